"""The service's results as chat texts (Telegram HTML): pure; numbers come exact from scoring/."""

import html
import re
from collections.abc import Iterable, Sequence
from typing import Final

from bot.core import GameState, Player
from bot.core.base import deal_example
from bot.core.results import Edited, Recorded, Undone
from bot.texts.i18n import Safe, Translator, quote
from locales import catalog
from scoring.deal import Column, LastRound, Record
from scoring.errors import ScoringError
from scoring.notation import SEATS, format_record
from scoring.rules import OPTION_NAMES, format_option, rules_for
from scoring.sheet import Entry, ScoredRecord, Sheet

MESSAGE_LIMIT: Final = 4000  # Telegram allows 4096 characters; keep a margin for entities
# The longest piece of input an error quotes: a 4,000-character command is answered with its first
# part, and the refusal stays far under Telegram's limit.
QUOTE_LIMIT: Final = 200
_TAG: Final = re.compile(r"<[^>]+>")
# Examples are built in the canonical English notation; a Russian chat reads its own words.
_RU_WORDS: Final = {"vist": "вист", "pass": "пас", "half": "пол"}
_RU_TOKENS: Final = {"misere": "мизер", "three_down": "без трёх", "open": "светлую"}
_LINE_COMMANDS: Final = ("/deal", "/dispute", "/edit")  # the commands that take a deal line
_NO_TRUMP: Final = re.compile(r"^(\d+)(?:NT|nt)$")


def plain_text(text: str) -> str:
    """What a Telegram HTML text shows, without tags or entities (callback answers, lengths)."""
    return html.unescape(_TAG.sub("", text))


def join_lines(lines: Iterable[str]) -> Safe:
    return Safe("\n".join(lines))


def shown_line(t: Translator, record: Record, names: Sequence[str]) -> str:
    """A record's canonical line with the chat's role words (they parse back too)."""
    return format_record(record, names, lang=t.lang)


def example_in(lang: str, example: str) -> str:
    """An example deal line in the chat's words (Russian: `вист:`, `пас:`, `мизер`, `7бк`)."""
    if lang != "ru" or not example.startswith(_LINE_COMMANDS):
        return example
    words = []
    for word in example.split(" "):
        role, colon, rest = word.partition(":")
        if colon and role in _RU_WORDS:
            word = f"{_RU_WORDS[role]}:{rest}"
        word = _NO_TRUMP.sub(r"\1бк", word)
        words.append(_RU_TOKENS.get(word, word))
    return " ".join(words)


# -- options (conventions.md §2.1) in the chat's words, not `whist_split=gentleman` --------------
def option_value(t: Translator, value: str) -> str:
    """An option's value as people say it (`джентльменский`, `да`); numbers stay as they are."""
    return catalog.lookup(t.lang, f"option_values.{value}") or value


def option_label(t: Translator, name: str) -> str:
    """An option's meaning in the chat's language; an unknown name as it is."""
    return catalog.lookup(t.lang, f"options.{name}") or name


def option_said(t: Translator, name: str, value: str) -> str:
    """An option in the chat's words, `вист при ремизе: …: джентльменский`."""
    label = option_label(t, name)
    joint = " " if label.endswith(("×", "=")) else ": "
    return f"{label}{joint}{option_value(t, value)}"


def seats_text(t: Translator, state: GameState) -> Safe:
    lines = []
    for seat, player in enumerate(state.players):
        shown = player.name
        if player.username and player.username != player.name:
            shown = f"{player.name} (@{player.username})"
        elif player.named_only:
            shown = t("player-named", name=player.name)
        lines.append(f"{SEATS[seat]}. {quote(shown)}")
    lines += [f"{SEATS[seat]}. …" for seat in range(len(state.players), state.seats)]
    return join_lines(lines)


def rules_brief(t: Translator, state: GameState) -> Safe:
    """Convention, pool, stake and the options that differ from the preset, in one line."""
    convention = t(f"convention-{state.convention}")
    now = state.rules_now() or rules_for(state.convention, state.seats, state.overrides)
    parts: list[str] = [t("rules-brief", convention=convention, pool=str(now.pool_target))]
    if state.stake is not None:
        parts.append(t("rules-stake", stake=t.number(state.stake, places=4)))
    frozen = state.rules or rules_for(state.convention, state.seats, state.overrides)
    preset = rules_for(state.convention, state.seats, {})
    options = [
        (name, format_option(getattr(frozen, name)))
        for name in state.overrides
        if name != "pool_target" and hasattr(frozen, name)
    ]
    changed = [(k, v) for k, v in options if v != format_option(getattr(preset, k))]
    if changed:
        parts.append(", ".join(option_said(t, k, v) for k, v in changed))
    return Safe(" · ".join(quote(p) for p in parts))


def opened_text(t: Translator, state: GameState, started: bool) -> Safe:
    head, brief = t("game-opened", game=state.number), rules_brief(t, state)
    seats = t("seats", count=len(state.players), seats=state.seats)
    last = started_text(t, state) if started else t("join-hint", seats=state.seats)
    return join_lines([head, brief, "", seats, seats_text(t, state), "", last])


def started_text(t: Translator, state: GameState, *, with_seats: bool = False) -> Safe:
    lines: list[str] = [t("game-started", dealer=state.players[state.first_dealer].name)]
    if with_seats:
        lines += [rules_brief(t, state), seats_text(t, state)]
    example = example_in(t.lang, deal_example(state.names, state.first_dealer))
    return join_lines([*lines, t("deal-hint", example=example)])


def joined_text(t: Translator, state: GameState, player: Player, started: bool) -> Safe:
    head = t("joined", name=player.name, count=len(state.players), seats=state.seats)
    return join_lines([head, started_text(t, state, with_seats=True)]) if started else head


def left_text(t: Translator, state: GameState, player: Player) -> Safe:
    return t("left", name=player.name, count=len(state.players), seats=state.seats)


def sheet_caption(t: Translator, state: GameState, sheet: Sheet) -> Safe:
    title = t("sheet-title", game=state.number, deals=sheet.deals)
    return join_lines([title, footer_text(t, state, sheet)])


def open_games_text(t: Translator, games: Sequence[tuple[GameState, str | None]]) -> Safe:
    if not games:
        return t("private-no-games")
    lines = [t("private-games-title")]
    for state, title in games:
        status, players = t(f"status-{state.status.value}"), ", ".join(state.names) or "…"
        line = {"game": state.number, "chat": title or "?", "status": status, "players": players}
        lines.append(t("private-game-line", **line))
    return join_lines(lines)


# -- entries ("why") -------------------------------------------------------------------------
def entry_text(t: Translator, names: Sequence[str], entry: Entry) -> Safe:
    helper = names[entry.source] if entry.source is not None else ""
    reason = t(f"reason-{entry.reason.value}", helper=helper)
    if entry.column is Column.WHISTS and entry.target is not None:
        amount = t.count(entry.amount, "whist")
        writer, target = names[entry.player], names[entry.target]
        return t("entry-whists", writer=writer, target=target, amount=amount, reason=reason)
    column, amount = t(f"column-{entry.column.value}"), t.number(entry.amount, signed=True)
    player = names[entry.player]
    return t("entry-column", player=player, column=column, amount=amount, reason=reason)


def why_text(t: Translator, names: Sequence[str], scored: ScoredRecord) -> Safe:
    lines = [entry_text(t, names, e) for e in scored.entries]
    lines += [t(f"warning-{code}") for code in scored.warnings]
    return join_lines(lines or [t("no-entries")])


def number_label(t: Translator, scored: ScoredRecord) -> str:
    return f"#{scored.number}" if scored.number else t("mark")


def recorded_text(t: Translator, result: Recorded) -> Safe:
    names, scored, sheet = result.state.names, result.scored, result.sheet
    if isinstance(scored.record, LastRound):
        size, first = len(names), sheet.game.first_dealer
        wait = (first - sheet.next_dealer) % size  # deals before his turn
        start, remain = sheet.deals + wait + 1, wait + size
        announced = t("last-round-announced", start=start, dealer=names[first], remain=remain)
        return join_lines([announced, footer_text(t, result.state, sheet)])
    line = shown_line(t, scored.record, names)
    head = t("deal-recorded", number=number_label(t, scored), line=line)
    return join_lines([head, why_text(t, names, scored), footer_text(t, result.state, sheet)])


def footer_text(t: Translator, state: GameState, sheet: Sheet) -> Safe:
    if sheet.finished:
        return t("game-finished-hint")
    return t("next-dealer", dealer=state.names[sheet.next_dealer], deals=sheet.deals)


def undone_text(t: Translator, result: Undone) -> Safe:
    line = result.state.canonical(result.line, t.lang)
    head = t("deal-undone", number=f"#{result.number}", line=line)
    return join_lines([head, footer_text(t, result.state, result.sheet)])


def edited_text(t: Translator, result: Edited) -> Safe:
    state, scored, names = result.state, result.scored, result.state.names
    old, line = state.canonical(result.old, t.lang), shown_line(t, scored.record, names)
    head = t("deal-edited", number=number_label(t, scored), old=old, line=line)
    return join_lines([head, why_text(t, names, scored), footer_text(t, state, result.sheet)])


def rules_text(t: Translator, state: GameState) -> Safe:
    """Every option in the chat's words and as `/rule` takes it; ✎ where it differs from the
    preset (an override equal to it is no change), 🔄 where a vote changed it mid-game."""
    lines: list[str] = [t("rules-title", game=state.number), rules_brief(t, state), ""]
    rules = state.rules_now()
    mid_game = state.changed_options()
    if rules is None:
        rules = rules_for(state.convention, state.seats, state.overrides)
        lines.append(t("rules-not-frozen"))
    elif mid_game:
        lines.append(t("rules-changed-mid-game"))
    preset = rules_for(state.convention, state.seats, {})
    for name in OPTION_NAMES:
        value = format_option(getattr(rules, name))
        mark = " ✎" if value != format_option(getattr(preset, name)) else ""
        mark += " 🔄" if name in mid_game else ""
        said = quote(option_said(t, name, value))
        lines.append(f"{said}{mark} · <code>{quote(name)}={quote(value)}</code>")
    return join_lines(lines)


def chunks(lines: Sequence[str]) -> list[Safe]:
    out: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if out[-1] and size + len(line) + 1 > MESSAGE_LIMIT:
            out.append([])
            size = 0
        out[-1].append(line)
        size += len(line) + 1
    return [join_lines(part) for part in out if part]


def capped(text: str) -> str:
    """Quoted input cut to its first `QUOTE_LIMIT` characters (the cut marked with "…")."""
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"


def error_text(t: Translator, error: ScoringError, *, with_example: bool = True) -> Safe:
    """`error-<code>`, the input at fault and an example (none under a pressed button), capped."""
    params = {k: capped(v) for k, v in error.params.items() if k != "record"}
    lines: list[str] = [t(f"error-{error.code}", **params)]
    if error.span:
        lines.append(t("error-span", span=capped(error.span)))
    if error.example and with_example:
        lines.append(t("error-example", example=capped(example_in(t.lang, error.example))))
    return join_lines(lines)
