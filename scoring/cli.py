"""The offline command line — spec/cli.md."""

from __future__ import annotations

import io
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from scoring.errors import ScoringError

if TYPE_CHECKING:
    from scoring.replay import Standing
    from scoring.sheet import Sheet

EXIT_ERROR: Final = 2
SHEET_LANG: Final = "en"  # the language of the labels of `replay --sheet`
CLI_LANG: Final = "en"  # the command line speaks English; its texts are in locales/*.toml [cli]
SHEET_ENTRY_POINTS: Final = "prefbot.sheet"  # where `replay --sheet` finds the picture


Renderer = Callable[..., bytes]
"""`render(sheet, lang, *, settlement=...) -> PNG bytes`: what `replay --sheet` draws with."""


class _Failure(Exception):
    """An error to report as one line: where (file, line 0 = the whole file) and what."""

    def __init__(self, where: str, line: int, problem: str | ScoringError) -> None:
        text = message(problem) if isinstance(problem, ScoringError) else problem
        super().__init__(f"{where}:{line}: {text}" if line else f"{where}: {text}")


def main(argv: Sequence[str] | None = None, *, renderer: Renderer | None = None) -> int:
    """Run one command; returns the exit status (0, or 2 after one line on standard error)."""
    for stream in (sys.stdout, sys.stderr):  # never fail on a name or a Russian word
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    words = list(sys.argv[1:] if argv is None else argv)
    args = _plain_arguments(words) or _arguments(words)
    command, path = args.command, args.file
    try:
        if command == "conventions":
            text = conventions_text()
        elif command == "settle":
            text = settle_output(_read(path), args.json)
        else:
            text = replay_output(_read(path), args.json, args.sheet, renderer)
        print(text, end="", flush=True)
    except _Failure as failure:
        print(failure, file=sys.stderr)
        return EXIT_ERROR
    except ScoringError as error:  # an error the commands did not place: report it on the file
        print(_Failure(path, getattr(error, "line", 0), error), file=sys.stderr)
        return EXIT_ERROR
    except Exception as error:  # a bug; still one line, never a traceback
        print(f"{path or command}: internal error: {type(error).__name__}", file=sys.stderr)
        return EXIT_ERROR
    return 0


@dataclass(frozen=True, slots=True)
class Arguments:
    command: str
    file: str = ""
    json: bool = False
    sheet: str | None = None


def _plain_arguments(words: Sequence[str]) -> Arguments | None:
    """The common command lines without argparse (slow to import); None: argparse reads it."""
    if not words or words[0] not in ("replay", "settle", "conventions"):
        return None
    command, rest = words[0], iter(words[1:])
    if command == "conventions":
        return Arguments(command) if len(words) == 1 else None
    as_json, sheet, files = False, None, []
    for word in rest:
        if word == "--json":
            as_json = True
        elif command == "replay" and sheet is None and word.startswith("--sheet="):
            sheet = word.removeprefix("--sheet=")
        elif command == "replay" and sheet is None and word == "--sheet":
            sheet = next(rest, "-")  # a missing OUT.png is argparse's error
            if sheet.startswith("-"):
                return None
        elif word.startswith("-"):
            return None
        else:
            files.append(word)
    return Arguments(command, files[0], as_json, sheet) if len(files) == 1 else None


def _arguments(words: Sequence[str]) -> Arguments:
    """The command line read by argparse: its help, its usage and its errors (exit status 2)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m scoring", description="Preferans scoring without Telegram."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a protocol file and settle it")
    replay_cmd.add_argument("file", metavar="GAME.pref")
    replay_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    replay_cmd.add_argument("--sheet", metavar="OUT.png", help="also render the sheet image")
    settle_cmd = commands.add_parser("settle", help="settle a paper sheet (JSON)")
    settle_cmd.add_argument("file", metavar="SHEET.json")
    settle_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    commands.add_parser("conventions", help="list presets and every option")
    return Arguments(**vars(parser.parse_args(words)))


def settle_output(source: tuple[str, str], as_json: bool) -> str:
    """`settle`: the paper sheet, its balances and transfers, as a table or one JSON object."""
    from scoring.cli_report import Report
    from scoring.paper import parse_paper_sheet
    from scoring.settle import settle

    sheet = parse_paper_sheet(source[1])  # its errors are placed on the file by `main`
    settlement = settle(sheet.rules, sheet.totals, sheet.stake)
    return Report(sheet.rules, sheet.players, sheet.totals, sheet.stake, settlement).text(as_json)


def replay_output(
    source: tuple[str, str], as_json: bool, sheet_png: str | None, renderer: Renderer | None = None
) -> str:
    """`replay`: the protocol replayed, its sheet, balances and transfers; optionally the image."""
    from scoring.cli_report import Report
    from scoring.protocol import parse_protocol
    from scoring.replay import replay, standing
    from scoring.settle import settle

    path, text = source
    protocol = parse_protocol(text)  # its errors are placed on the file by `main`
    game = protocol.game()
    records = [record for _, record in protocol.records]
    try:
        # The picture needs the whole sheet; the report, only where the game stands.
        sheet = replay(game, records) if sheet_png is not None else None
        now: Sheet | Standing = sheet if sheet is not None else standing(game, records)
    except ScoringError as error:
        index = error.params.pop("record", "")
        at = int(index) if index.isdigit() else len(records)
        line = protocol.records[at][0] if at < len(records) else 0
        raise _Failure(path, line, error) from None
    settlement = settle(now.rules, now.totals, game.stake)
    if sheet_png is not None and sheet is not None:
        # The image is drawn by a renderer (Pillow), which the rules engine does not depend on.
        try:
            render = renderer if renderer is not None else find_renderer()
        except (ImportError, AttributeError) as error:
            failure = texts("failures")["no-renderer"].format(error=error)
            raise _Failure(sheet_png, 0, failure) from None
        png = render(sheet, SHEET_LANG, settlement=settlement)
        try:
            with open(sheet_png, "wb") as file:
                file.write(png)
        except OSError as error:
            reason = error.strerror or type(error).__name__
            failure = texts("failures")["cannot-write"].format(error=reason)
            raise _Failure(sheet_png, 0, failure) from None
    return Report(
        now.rules, game.players, now.totals, game.stake, settlement, now.deals, now.finished
    ).text(as_json)


def find_renderer() -> Renderer:
    """The sheet renderer of entry-point group `prefbot.sheet`; ImportError when none loads."""
    from importlib.metadata import entry_points

    for point in entry_points(group=SHEET_ENTRY_POINTS):
        render: Renderer = point.load()
        return render
    raise ImportError(f"no renderer registered under {SHEET_ENTRY_POINTS!r}")


def conventions_text() -> str:
    """Every preset with its aliases, then every option with each preset's value and its meaning."""
    from locales import catalog
    from scoring.cli_report import columns
    from scoring.rules import ALIASES, OPTION_NAMES, PRESETS, format_option, rules_for

    lines = ["Presets (aliases):"]
    for name in PRESETS:
        aliases = [alias for alias, canonical in ALIASES.items() if canonical == name]
        lines.append(f"  {name} ({', '.join(aliases)})" if aliases else f"  {name}")
    lines += ["", "Options (the meaning under each; a/b: the value with 3 / 4 players):"]
    rows = [["option", *PRESETS]]
    for option in OPTION_NAMES:
        values = []
        for name in PRESETS:
            three, four = (format_option(getattr(rules_for(name, n), option)) for n in (3, 4))
            values.append(three if three == four else f"{three}/{four}")
        rows.append([option, *values])
    table = columns(rows, right=())
    lines.append(table[0])
    ru, en = catalog.table("ru", "options"), catalog.table("en", "options")
    for option, row in zip(OPTION_NAMES, table[1:], strict=True):
        lines += [row, f"    {ru.get(option, '')} — {en.get(option, '')}"]
    return "\n".join(lines) + "\n"


def texts(name: str) -> Mapping[str, str]:
    """`[cli.NAME]`: "messages" by error code, "problems.CODE", "expected" of a field, "failures"."""
    from locales import catalog  # loaded only for an error's message

    return catalog.table(CLI_LANG, f"cli.{name}")  # (the catalogue keeps what it read)


def message(error: ScoringError) -> str:
    """One English line for an error: its message by code (or `code: span`), then its example."""
    template = texts("messages").get(error.code)
    if template is None:
        return f"{error.code}: {error.span}"
    from scoring.paper import FIELDS  # named by a paper sheet's messages

    # the error's params and span, the paper's fields; '?' for anything missing
    fields = defaultdict(lambda: "?", {"fields": ", ".join(FIELDS), **error.params})
    fields["span"] = error.span
    problem = texts(f"problems.{error.code}").get(error.params.get("problem", ""), "?")
    fields["problem_text"] = problem.format_map(fields)
    wanted = error.params.get("expected", "")
    fields["expected_text"] = texts("expected").get(wanted, wanted or "?").format_map(fields)
    text = template.format_map(fields)
    if not error.span:
        text = text.replace(": ''", "")
    if error.example and len(error.example) <= 60 and "\n" not in error.example:
        text += f" (example: {error.example})"
    return " ".join(text.split())  # one line, whatever the input held


def _read(path: str) -> tuple[str, str]:
    """The file's text as (path, text); a missing file or bytes that are not UTF-8 are `_Failure`s."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise _Failure(path, 0, f"cannot read: {error.strerror or type(error).__name__}") from None
    try:
        return path, data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise _Failure(path, line, f"not UTF-8 text (byte 0x{data[error.start]:02x})") from None
