"""The archive's buttons and replies: pages, an opened game's history and export, standings."""

from __future__ import annotations

import asyncio
import logging
from enum import StrEnum
from fractions import Fraction

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.core import UnitOfWork
from bot.core.archive import GamesPage, read_log
from bot.core.results import Exported, Snapshot
from bot.core.stats import ChatStats
from bot.core.tournaments import Standings
from bot.telegram.outbound.outbox import Outbox
from bot.texts.history import history_lines
from bot.texts.i18n import Translator
from bot.texts.stats import filter_text
from bot.texts.views import chunks, plain_text
from scoring.tournament import shown_places

try:
    from bot.sheet.standings import StandingRow, render_standings_png
except ImportError:  # the picture is optional: /top's text stands alone
    render_standings_png = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


class GamesCb(CallbackData, prefix="gl"):
    """◀ ▶ under a list of games: the page to show (counted from 0)."""

    page: int


class GameAct(StrEnum):
    HISTORY = "h"
    EXPORT = "x"


class GameCb(CallbackData, prefix="gm"):
    """A button under an opened game: `game` is its number in the chat the button is in."""

    game: int
    act: GameAct


def pages_keyboard(t: Translator, page: GamesPage) -> InlineKeyboardMarkup | None:
    """◀ and ▶ to the neighbouring pages; none for a list of one page."""
    if page.pages <= 1:
        return None
    builder = InlineKeyboardBuilder()
    back, ahead = ("button-page-back", page.page, -1), ("button-page-next", page.page + 2, 1)
    for key, shown, step in (back, ahead):
        if 0 <= page.page + step < page.pages:
            text = t.template(key).format(page=shown)
            builder.button(text=text, callback_data=GamesCb(page=page.page + step))
    return builder.as_markup()


def game_keyboard(t: Translator, number: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for act in GameAct:
        text = t.template(f"button-game-{act.name.lower()}")
        builder.button(text=text, callback_data=GameCb(game=number, act=act))
    builder.adjust(2)
    return builder.as_markup()


async def owe_history(uow: UnitOfWork, out: Outbox, t: Translator, snap: Snapshot) -> None:
    state = await read_log(uow, snap.state)
    for part in chunks(history_lines(t, state, snap.sheet, out.zone)):
        await out.text(uow, part)


async def owe_export(uow: UnitOfWork, out: Outbox, t: Translator, exported: Exported) -> None:
    """The protocol file (replays with `python -m scoring replay`) and the JSON event log."""
    game_id, number = exported.state.game_id, exported.state.number
    protocol, events = exported.protocol.encode(), exported.events.encode()
    await out.document(uow, protocol, f"game-{game_id}.pref", t("export-protocol", game=number))
    await out.document(uow, events, f"game-{game_id}-events.json", t("export-events", game=number))


async def _drawn(rows: list[StandingRow], lang: str, title: str, subtitle: str) -> bytes | None:
    """Standings drawn in a worker thread; None without Pillow or when it fails."""
    if render_standings_png is None or not rows:
        return None
    try:
        return await asyncio.to_thread(render_standings_png, rows, lang, title, subtitle)
    except Exception:
        log.exception("the standings could not be drawn; sending them as text")
        return None


async def tournament_png(t: Translator, standings: Standings) -> bytes | None:
    """A tournament's standings as a picture (a shared total shares its place)."""
    if render_standings_png is None:
        return None
    rows: list[StandingRow] = []
    for place, line in zip(shown_places(standings.lines), standings.lines, strict=True):
        average = line.total / line.games if line.games else Fraction(0)
        name = standings.names.get(line.player, "?")
        rows.append(StandingRow(place, name, line.total, line.games, average))
    subtitle = t.count(standings.played, "game")
    return await _drawn(rows, t.lang, standings.tournament.name, subtitle)


async def standings_png(t: Translator, stats: ChatStats) -> bytes | None:
    """The /top picture, drawn in a worker thread; None without Pillow or when it fails."""
    if render_standings_png is None or not stats.players:
        return None
    rows = [
        StandingRow(
            place,
            player.name,
            player.tally.total,
            player.tally.games,
            player.tally.average,
            round(player.rating),
        )
        for place, player in enumerate(stats.players, start=1)
    ]
    title = t.template("top-picture-title")
    subtitle = f"{plain_text(filter_text(t, stats.filter))} · {t.count(len(stats.games), 'game')}"
    return await _drawn(rows, t.lang, title, subtitle)
