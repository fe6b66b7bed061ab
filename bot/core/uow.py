"""The unit of work every command runs in — written once (issue 10).

`Core.command(caller)` takes the chat's lock, opens one transaction (`BEGIN IMMEDIATE` in SQLite),
refuses an update already handled and marks this one, and folds the chat's live game; the block
appends events through the `Unit` and everything commits together when it ends, or nothing does
(any exception rolls back). The locks are per chat: no lock shared by all chats is held around a
replay. Command modules (`lobby`, `records`, `votes`, `corrections`) are functions of a `Unit`.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache, partial
from typing import Final

from bot.core.errors import AlreadyHandled, GameError
from bot.core.events import SCHEMA_VERSION, VOTE_KINDS, Event, encode
from bot.core.newgame import name_from_profile
from bot.core.state import GameState, Player, RecordItem, apply, fold
from bot.storage import EventRow, GameRow, GameStatus, Repo, Store
from scoring.deal import Record
from scoring.errors import ScoringError
from scoring.notation import Table, parse_record
from scoring.replay import replay
from scoring.rules import Rules
from scoring.settle import Settlement, settle
from scoring.sheet import Sheet

Clock = Callable[[], datetime]
SHEET_CACHE: Final = 256
LIVE: Final = -1  # `Core.command(game=LIVE)`: the chat's live game


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a command, from where, in which Telegram update."""

    chat_id: int
    user_id: int | None
    first_name: str | None = None
    username: str | None = None
    update_id: int | None = None
    chat_type: str = "supergroup"
    chat_title: str | None = None

    @property
    def private(self) -> bool:
        return self.chat_type == "private"

    def as_player(self, taken: set[str] | None = None) -> Player:
        name = name_from_profile(self.first_name, self.username, taken or set())
        return Player(name, self.user_id, self.username)

    @property
    def shown(self) -> str:
        return self.first_name or (f"@{self.username}" if self.username else str(self.user_id))


@lru_cache(maxsize=8192)
def parse_stored(line: str, table: Table) -> Record:
    """A record from its stored canonical line (the lines are few and repeat on every replay)."""
    return parse_record(line, table)


def deal_example(names: Sequence[str], dealer: int) -> str:
    """One correct deal line for this table when `dealer` deals (with 4 players he sits out)."""
    active = [s for s in range(len(names)) if len(names) == 3 or s != dealer]
    a, b, c = (names[s] for s in active)
    return f"/deal {c} 7♠ -1 vist:{a} pass:{b}"


def table(state: GameState, dealer: int | None = None, sender: int | None = None) -> Table:
    return Table(state.names, state.usernames, dealer, sender)


def records_of(state: GameState, items: Sequence[RecordItem] | None = None) -> list[Record]:
    """The engine's records of `items` (by default the records in force)."""
    tab = table(state)
    return [parse_stored(item.line, tab) for item in (state.records if items is None else items)]


def rules_now(state: GameState) -> Rules:
    """The rules in force now (conventions.md §1.4): time windows, the end rule, penalties."""
    rules = state.rules_now()
    assert rules is not None
    return rules


def settlement(state: GameState, sheet: Sheet) -> Settlement:
    """Settled under the rules in force at the sheet's end (mid-game changes included)."""
    return settle(sheet.rules, sheet.totals, state.stake)


def index_of(state: GameState, seq: int) -> int | None:
    """The index among the records in force of the record with this seq."""
    return next((i for i, item in enumerate(state.records) if item.seq == seq), None)


Write = Callable[[Repo], Awaitable[object]]


class Core:
    """What every unit of work shares: the store, the clock, the chats' locks, the sheet cache,
    and the games with open votes (game id → (chat id, the earliest deadline); it may hold more
    than is due — a rolled-back command — and `votes.expire_votes` reads the log and corrects it)."""

    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._sheets: OrderedDict[int, tuple[int, Sheet]] = OrderedDict()
        self.watch: dict[int, tuple[int, datetime]] = {}

    def lock(self, chat_id: int) -> asyncio.Lock:
        return self._locks.setdefault(chat_id, asyncio.Lock())

    @asynccontextmanager
    async def command(
        self, caller: Caller, game: int | None = LIVE, *, direct: bool = False
    ) -> AsyncIterator[Unit]:
        """The preamble of every command. `game` LIVE: the chat's live game (refused with
        `no-game` when there is none); a game id: that game of this chat (`stale-button`
        otherwise); None: no game read.

        Under the chat's lock, in two steps, so that no lock shared by every chat (SQLite's one
        connection) is held while the command replays: the update is checked and the game's log
        read in a short read; the log is folded and the command checks and replays with the store
        free, its events and writes kept by the `Unit`; then one transaction (`BEGIN IMMEDIATE`)
        marks the update and writes them all, or nothing (any exception before it writes nothing).
        `direct` units (the few that create rows and replay nothing: /newgame, /join, /lang) run
        whole inside the transaction."""
        async with self.lock(caller.chat_id):
            if direct:
                async with self.store.transaction() as repo:
                    await self._mark(repo, caller)
                    unit = Unit(self, caller.chat_id, repo)
                    row = await self._row(repo, caller.chat_id, game)
                    if row is not None:
                        unit.fold(row, await repo.events(row.game_id))
                        await unit.link(caller)
                    yield unit
                unit.committed()
                return
            async with self.store.reading() as repo:
                if caller.update_id is not None and await repo.update_seen(caller.update_id):
                    raise AlreadyHandled(caller.update_id)
                row = await self._row(repo, caller.chat_id, game)
                events = await repo.events(row.game_id) if row is not None else []
            unit = Unit(self, caller.chat_id, None)
            if row is not None:
                unit.fold(row, events)
                await unit.link(caller)
            yield unit
            await self._commit(unit, caller)

    @asynccontextmanager
    async def background(self, chat_id: int, game_id: int) -> AsyncIterator[Unit | None]:
        """A unit of work of the bot itself (the vote clock) on one game, in the same two steps;
        None when the game is gone or has ended."""
        async with self.lock(chat_id):
            async with self.store.reading() as repo:
                row = await repo.game(game_id)
                events = await repo.events(game_id) if row is not None else []
            if row is None or row.status is GameStatus.ENDED:
                yield None
                return
            unit = Unit(self, chat_id, None)
            unit.fold(row, events)
            yield unit
            await self._commit(unit, None)

    async def _mark(self, repo: Repo, caller: Caller | None) -> None:
        if caller is None or caller.update_id is None:
            return
        if await repo.update_seen(caller.update_id):
            raise AlreadyHandled(caller.update_id)
        await repo.mark_update(caller.update_id, self.clock())

    async def _commit(self, unit: Unit, caller: Caller | None) -> None:
        marks = caller is not None and caller.update_id is not None
        if unit.writes or marks:
            async with self.store.transaction() as repo:
                await self._mark(repo, caller)
                for write in unit.writes:
                    await write(repo)
        unit.committed()

    @staticmethod
    async def _row(repo: Repo, chat_id: int, game: int | None) -> GameRow | None:
        if game is None:
            return None
        if game == LIVE:
            row = await repo.live_game(chat_id)
            if row is None:
                raise GameError("no-game", "", {}, "/newgame sochi")
            return row
        row = await repo.game(game)
        if row is None or row.chat_id != chat_id:
            raise GameError("stale-button", "", {}, "/score")
        return row

    async def fold(self, repo: Repo, row: GameRow) -> GameState:
        return self.folded(row, await repo.events(row.game_id))

    def folded(self, row: GameRow, events: list[EventRow]) -> GameState:
        state = fold(row.game_id, events)
        state.chat_id = row.chat_id
        state.number = row.number or row.game_id
        self.track(state)
        return state

    def track(self, state: GameState) -> None:
        """Remember when this game's earliest open vote times out (never later than known)."""
        due = [v.deadline for v in state.open_votes() if v.referred is None]
        if not due or state.status is GameStatus.ENDED:
            return
        known = self.watch.get(state.game_id)
        earliest = min(due) if known is None else min(known[1], *due)
        self.watch[state.game_id] = (state.chat_id, earliest)

    # -- the sheet ---------------------------------------------------------------------------
    def cached(self, state: GameState) -> Sheet | None:
        cached = self._sheets.get(state.game_id)
        if cached is not None and cached[0] == state.last_seq:
            self._sheets.move_to_end(state.game_id)
            return cached[1]
        return None

    def sheet(self, state: GameState) -> Sheet:
        """The replay of the records in force (cached per game until its log grows); for a log
        read outside a command (a command's own sheets are cached once it has committed)."""
        sheet = self.cached(state)
        if sheet is None:
            sheet = replay(state.game(), records_of(state))
            self.remember(state, sheet)
        return sheet

    def remember(self, state: GameState, sheet: Sheet) -> None:
        self._sheets[state.game_id] = (state.last_seq, sheet)
        self._sheets.move_to_end(state.game_id)
        while len(self._sheets) > SHEET_CACHE:
            self._sheets.popitem(last=False)


class Unit:
    """One unit of work: the game it folded, the events it appends and the writes it keeps until
    the commit (a `direct` unit has its transaction's repository and writes at once)."""

    def __init__(self, core: Core, chat_id: int, repo: Repo | None) -> None:
        self.core = core
        self.chat_id = chat_id
        self._repo = repo
        self._state: GameState | None = None
        self.writes: list[Write] = []
        self._sheets: list[tuple[GameState, int, Sheet]] = []

    @property
    def repo(self) -> Repo:
        """The transaction's repository (direct units only)."""
        assert self._repo is not None, "only a direct unit of work holds the repository"
        return self._repo

    def fold(self, row: GameRow, events: list[EventRow]) -> GameState:
        self._state = self.core.folded(row, events)
        return self._state

    async def link(self, caller: Caller) -> None:
        """An `@username` seat is linked to the caller's account the first time he acts in the
        chat (notation.md "Players", issue 13): a `SeatLinked` event and his members row."""
        first = name_from_profile(caller.first_name, caller.username, set())
        event = self.state.link_event(caller.user_id, caller.username, first)
        if event is not None and caller.user_id is not None:
            await self.append(event, caller.user_id)
            await self.write(partial(_add_member, self.state.game_id, caller.user_id))

    def adopt(self, state: GameState) -> None:
        """A game this unit created (nothing to fold yet)."""
        self._state = state

    @property
    def state(self) -> GameState:
        assert self._state is not None, "this unit of work read no game"
        return self._state

    def now(self) -> datetime:
        return self.core.clock()

    def deadline(self) -> str:
        """When a vote opened now times out (the rules in force's `vote_seconds`)."""
        seconds = rules_now(self.state).vote_seconds
        return (self.now() + timedelta(seconds=seconds)).isoformat()

    async def write(self, write: Write) -> None:
        """A write beside the events (members, the status index): now, or at the commit."""
        if self._repo is not None:
            await write(self._repo)
        else:
            self.writes.append(write)

    async def append(self, event: Event, author: int | None) -> None:
        """Append a typed event (encoded to its JSON payload) and fold it into the state; its
        seq is the log's next, checked again when it is written."""
        state = self.state
        kind, payload = encode(event)
        at = self.now()
        if self._repo is not None:
            row = await self._repo.append(state.game_id, kind.value, payload, author, at)
        else:
            seq = state.last_seq + 1
            row = EventRow(state.game_id, seq, kind.value, payload, author, at, SCHEMA_VERSION)
            self.writes.append(_appending(row))
        apply(state, row)
        if kind in VOTE_KINDS:
            self.core.track(state)

    def sheet(self) -> Sheet:
        """The replay of the records in force now (cached once the unit commits)."""
        state = self.state
        sheet = self.core.cached(state)
        if sheet is None:
            sheet = replay(state.game(), records_of(state))
            self.remember(sheet)
        return sheet

    def remember(self, sheet: Sheet) -> None:
        self._sheets.append((self.state, self.state.last_seq, sheet))

    def committed(self) -> None:
        for state, seq, sheet in self._sheets:
            if seq == state.last_seq:
                self.core.remember(state, sheet)

    def replay(self, records: list[Record], dealer: int) -> Sheet:
        """The sheet with a new record; the engine's refusal gets an example for this table."""
        state = self.state
        try:
            return replay(state.game(), records)
        except ScoringError as error:
            error.example = error.example or deal_example(state.names, dealer)
            raise


async def _add_member(game_id: int, user_id: int, repo: Repo) -> None:
    await repo.add_member(game_id, user_id)


def _appending(row: EventRow) -> Write:
    async def write(repo: Repo) -> None:
        stored = await repo.append(row.game_id, row.kind, row.payload, row.author, row.at)
        if stored.seq != row.seq:  # the chat's lock makes this impossible; never write past it
            raise RuntimeError(f"game {row.game_id}: event {stored.seq} written as {row.seq}")

    return write
