"""Options of conventions.md §2.1 in the chat's words: `/rules`, the opened game, rule votes.

A Russian screen reads «вист при ремизе: жлобский или джентльменский: джентльменский», not
`whist_split=gentleman`; the code is shown beside it where a player may type it (`/rule`).
"""

from __future__ import annotations

from bot.texts.i18n import Translator, quote
from locales import catalog
from scoring.rules import OPTION_NAMES, Rules, format_option


def option_value(t: Translator, value: str) -> str:
    """An option's value as people say it (`джентльменский`, `да`); numbers stay as they are."""
    return catalog.lookup(t.lang, f"option_values.{value}") or value


def option_label(t: Translator, name: str) -> str:
    """An option's meaning in the chat's language; an unknown name as it is."""
    return catalog.lookup(t.lang, f"options.{name}") or name


def option_said(t: Translator, name: str, value: str) -> str:
    """An option in the chat's words, `вист при ремизе: …: джентльменский`, not `whist_split=…`."""
    label = option_label(t, name)
    joint = " " if label.endswith(("×", "=")) else ": "
    return f"{label}{joint}{option_value(t, value)}"


def option_lines(
    t: Translator, rules: Rules, preset: Rules, mid_game: set[str] | None = None
) -> list[str]:
    """One line per option in the chat's words, then the code to type in `/rule`; ✎ where the
    value differs from the preset's (an override equal to it is no change), 🔄 changed mid-game
    by a vote."""
    lines = []
    for name in OPTION_NAMES:
        value = format_option(getattr(rules, name))
        mark = " ✎" if value != format_option(getattr(preset, name)) else ""
        if mid_game and name in mid_game:
            mark += " 🔄"
        said = quote(option_said(t, name, value))
        lines.append(f"{said}{mark} · <code>{quote(name)}={quote(value)}</code>")
    return lines
