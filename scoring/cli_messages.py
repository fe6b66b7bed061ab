"""The command line's messages (spec/cli.md "Errors"), from locales/*.toml `[cli]`."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Final

from locales import catalog
from scoring.errors import ScoringError

CLI_LANG: Final = "en"  # the command line speaks English; its texts are in locales/*.toml [cli]


def texts(name: str) -> Mapping[str, str]:
    """`[cli.NAME]`: "messages" by error code, "expected" of a paper sheet's field, "failures"."""
    return catalog.table(CLI_LANG, f"cli.{name}")  # (the catalogue keeps what it read)


@cache
def problems() -> Mapping[str, Mapping[str, str]]:
    """The problems some codes name, by code."""
    return {
        code: catalog.table(CLI_LANG, f"cli.problems.{code}")
        for code in catalog.keys(CLI_LANG, "cli.problems")
    }


class _Params(dict[str, str]):
    """Message fields: the error's params, span and paper `fields`; '?' for anything missing."""

    def __missing__(self, key: str) -> str:
        if key == "fields":
            from scoring.paper import FIELDS

            return ", ".join(FIELDS)
        return "?"


def message(error: ScoringError) -> str:
    """One English line for an error: its message by code (or `code: span`), then its example."""
    template = texts("messages").get(error.code)
    if template is None:
        return f"{error.code}: {error.span}"
    fields = _Params(error.params)
    fields["span"] = error.span
    problem = problems().get(error.code, {}).get(error.params.get("problem", ""), "?")
    fields["problem_text"] = problem.format_map(fields)
    wanted = error.params.get("expected", "")
    fields["expected_text"] = texts("expected").get(wanted, wanted or "?").format_map(fields)
    text = template.format_map(fields)
    if not error.span:
        text = text.replace(": ''", "")
    if error.example and len(error.example) <= 60 and "\n" not in error.example:
        text += f" (example: {error.example})"
    return " ".join(text.split())  # one line, whatever the input held
