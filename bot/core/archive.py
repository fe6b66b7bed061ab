"""The archive: a chat's games and an account's games, a page at a time; one game by number."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from fractions import Fraction
from typing import Final

from bot.core.audit import event_log_json, protocol_comments
from bot.core.base import Core, records_of, settlement
from bot.core.errors import GameError
from bot.core.events import EndReason, Player
from bot.core.results import Exported, Snapshot
from bot.core.state import GameState, fold
from bot.core.summaries import summaries
from bot.core.uow import UnitOfWork
from bot.core.zones import chat_zone
from bot.domain import GameRow, GameStatus, Store
from scoring.protocol import format_protocol
from scoring.replay import replay

PAGE_SIZE: Final = 10
GAMES_EXAMPLE: Final = "/game 1"
_NUMBER: Final = re.compile(r"[#№]?(\d{1,9})")


def parse_number(text: str, command: str) -> int:
    """A game's number as typed after a command (`2`, `#2`, `№2`); `bad-game-number` otherwise."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise GameError("bad-game-number", f"{command} {text.strip()}", {}, GAMES_EXAMPLE)
    return int(match.group(1))


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game in a list: `balances` and `money` (seat order) once it ended after a deal."""

    game_id: int
    chat_id: int
    number: int
    created_at: datetime
    convention: str
    names: tuple[str, ...]
    status: GameStatus
    reason: EndReason | None = None
    deals: int | None = None
    balances: tuple[Fraction, ...] | None = None
    money: tuple[Decimal, ...] | None = None
    chat_title: str | None = None  # in an account's list, which chat


@dataclass(frozen=True, slots=True)
class GamesPage:
    """A page of a list, newest first (`page` counts from 0), and the zone its dates are in."""

    lines: tuple[GameLine, ...]
    page: int
    pages: int
    total: int
    zone: tzinfo


def page_bounds(total: int, page: int) -> tuple[int, int]:
    """The page asked for, kept within the list, and how many pages there are."""
    pages = max(1, -(-total // PAGE_SIZE))
    return min(max(page, 0), pages - 1), pages


async def _lines(core: Core, rows: list[GameRow]) -> list[tuple[GameLine, tuple[Player, ...]]]:
    """Each game's line, and who sits in it."""
    ended = {s.game_id: s for s in await summaries(core.store, rows)}
    lines = []
    async with core.store.reading() as repo:
        for row in rows:
            head = (row.game_id, row.chat_id, row.chat_number, row.created_at)
            if row.status is not GameStatus.ENDED:
                state = await core.fold(repo, row)
                line = GameLine(*head, state.convention, state.names, row.status)
                lines.append((line, tuple(state.players)))
                continue
            s = ended[row.game_id]
            plays, money = s.plays, None
            if plays is not None and all(p.money is not None for p in plays):
                money = tuple(p.money for p in plays if p.money is not None)
            balances = None if plays is None else tuple(p.balance for p in plays)
            names = tuple(p.name for p in s.players)
            line = GameLine(
                *head, s.convention, names, row.status, s.reason, s.deals, balances, money
            )
            lines.append((line, s.players))
    return lines


async def chat_games(core: Core, chat_id: int, page: int, lang: str) -> GamesPage:
    """A page of the chat's games, newest first."""
    async with core.store.reading() as repo:
        settings = await repo.chat_settings(chat_id)
        rows = await repo.chat_games(chat_id)
    page, pages = page_bounds(len(rows), page)
    shown = rows[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    lines = [line for line, _ in await _lines(core, shown)]
    zone = chat_zone(settings.time_zone, settings.locale or lang)
    return GamesPage(tuple(lines), page, pages, len(rows), zone)


async def account_games(core: Core, user_id: int, chat_id: int, page: int, lang: str) -> GamesPage:
    """A page of the games the account sits in, in every chat, newest first (zone of `chat_id`)."""
    async with core.store.reading() as repo:
        settings = await repo.chat_settings(chat_id)
        rows = await repo.account_games(user_id)
    lines = [
        line
        for line, players in await _lines(core, rows)
        if any(p.user_id == user_id for p in players)
    ]
    async with core.store.reading() as repo:
        titles = {c: (await repo.chat_settings(c)).title for c in {x.chat_id for x in lines}}
    page, pages = page_bounds(len(lines), page)
    shown = [
        replace(line, chat_title=titles.get(line.chat_id))
        for line in lines[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    ]
    zone = chat_zone(settings.time_zone, settings.locale or lang)
    return GamesPage(tuple(shown), page, pages, len(lines), zone)


# -- one game by its number --------------------------------------------------------------------
async def game_state(core: Core, chat_id: int, number: int) -> GameState:
    """The chat's game `number` as its log stands (`no-such-game` when the chat has none)."""
    async with core.store.reading() as repo:
        row = await repo.chat_game(chat_id, number)
        if row is None:
            raise GameError("no-such-game", f"#{number}", {"number": str(number)}, "/games")
        if row.status is not GameStatus.ENDED:
            return await core.fold(repo, row)
        events = await repo.events(row.game_id)
    state = fold(row.game_id, events)  # an ended game: kept out of the live games' caches
    state.log = events
    state.chat_id, state.number, state.thread_id = row.chat_id, row.chat_number, row.thread_id
    return state


async def game_snapshot(core: Core, chat_id: int, number: int) -> Snapshot:
    """Game `number` of the chat with its sheet and settlement (None before its start)."""
    state = await game_state(core, chat_id, number)
    if state.rules is None:
        return Snapshot(state, None, None)
    if state.status is GameStatus.ENDED:
        sheet = replay(state.game(), records_of(state))
    else:
        sheet = core.sheet(state)
    return Snapshot(state, sheet, settlement(state, sheet))


async def read_log(reader: UnitOfWork | Store, state: GameState) -> GameState:
    """`state` with its whole log, read for /history or the export (a kept game holds none)."""
    if state.log is None:
        async with reader.reading() as repo:
            state.log = [e for e in await repo.events(state.game_id) if e.seq <= state.last_seq]
    return state


async def exported(
    reader: UnitOfWork | Store, state: GameState, now: datetime, zone: tzinfo = UTC
) -> Exported:
    """The protocol file of a game and its JSON event log."""
    await read_log(reader, state)
    if state.rules is None:
        missing = str(state.seats - len(state.players))
        raise GameError("game-not-started", "/export", {"missing": missing}, "/join")
    in_force = records_of(state)
    comments = protocol_comments(state, in_force, zone)
    protocol = format_protocol(state.game(), in_force, comments)
    return Exported(state, protocol, event_log_json(state, now))
