"""The archive as chat texts: a page of games, a chat's or an account's in every chat."""

from __future__ import annotations

from bot.core.archive import GameLine, GamesPage
from bot.core.events import EndReason
from bot.core.state import GameState
from bot.domain import GameStatus
from bot.texts.i18n import Safe, Translator, chat_time
from bot.texts.views import join_lines, sheet_caption
from scoring.sheet import Sheet


def game_state_text(t: Translator, line: GameLine) -> Safe:
    """What became of the game: forming, playing, cancelled, or its balances once it ended."""
    players = ", ".join(line.names) or "…"
    if line.status is not GameStatus.ENDED:
        return t(f"archive-state-{line.status.value}", players=players)
    if line.reason is EndReason.CANCELLED:
        return t("archive-state-cancelled", players=players)
    if line.balances is None or not line.deals:
        return t("archive-state-unplayed", players=players)
    parts = [
        t("archive-balance", name=name, whists=t.number(balance, signed=True))
        for name, balance in zip(line.names, line.balances, strict=True)
    ]
    deals = t.count(line.deals, "deal")
    return t("archive-state-ended", deals=deals, balances=Safe(" · ".join(parts)))


def game_line_text(t: Translator, line: GameLine, page: GamesPage, *, private: bool) -> Safe:
    params: dict[str, object] = {
        "game": line.number,
        "date": chat_time(line.created_at, page.zone, t.lang, clock=False),
        "convention": t(f"convention-{line.convention}"),
        "state": game_state_text(t, line),
    }
    if private:
        return t("archive-line-private", chat=line.chat_title or "?", **params)
    return t("archive-line", **params)


def games_text(t: Translator, page: GamesPage, *, private: bool = False) -> Safe:
    """A page of games newest first, with how to open one."""
    if not page.lines:
        return t("archive-private-empty" if private else "archive-empty")
    title = "archive-private-title" if private else "archive-title"
    lines: list[str] = [t(title, count=page.total, page=page.page + 1, pages=page.pages)]
    lines += [game_line_text(t, line, page, private=private) for line in page.lines]
    lines += ["", t("archive-private-hint" if private else "archive-hint")]
    return join_lines(lines)


def look_caption(t: Translator, state: GameState, sheet: Sheet) -> Safe:
    """The caption of a game's sheet: an ended game's says so (no hint to end it)."""
    if state.status is GameStatus.ENDED:
        return t("archive-sheet-ended", game=state.number, deals=sheet.deals)
    return sheet_caption(t, state, sheet)
