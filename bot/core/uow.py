"""The unit of work every command runs in — written once.

`Core.command(caller)` takes the chat's lock, opens one transaction (`BEGIN IMMEDIATE` in SQLite),
refuses an update already handled and marks this one, and folds the chat's live game; the block
appends events through the `Unit` and everything commits together when it ends, or nothing does
(any exception rolls back). The locks are per chat: no lock shared by all chats is held around a
replay. Command modules (`lobby`, `records`, `votes`, `corrections`) are functions of a `Unit`.

Inside `Core.owing()` (one per update, one per tick of the vote clock) a command's commit waits
for the scope's end (see `Owing` for what commits it sooner), so that the replies it owes (`owe`,
`bot.storage.Owed` rows, registered by `bot.tg.reply.Reply`) are written in the same transaction
(docs/architecture.md "Delivery").
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import (
    asynccontextmanager,
    nullcontext,
)
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import lru_cache, partial
from typing import Final

from bot.core.cache import Games
from bot.core.errors import AlreadyHandled, GameError
from bot.core.events import SCHEMA_VERSION, VOTE_KINDS, Event, encode
from bot.core.newgame import name_from_profile
from bot.core.owing import _OWING, Owing, Write
from bot.core.state import GameState, Player, RecordItem, apply, clone, fold
from bot.storage import EventRow, GameRow, GameStatus, Owed, Repo, Store
from scoring.deal import Record
from scoring.errors import ScoringError
from scoring.notation import Table, parse_record
from scoring.rules import Rules
from scoring.seating import active_seats
from scoring.settle import Settlement, settle
from scoring.sheet import Sheet

Clock = Callable[[], datetime]
SHEET_CACHE: Final = 256
RECENT_STATES: Final = 1024  # (state, sheet) pairs kept, by game and seq
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
    message_id: int | None = None  # the update's message: a repeated update_id is told apart

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
    a, b, c = (names[s] for s in active_seats(len(names), dealer))
    return f"/deal {c} 7♠ -1 vist:{a} pass:{b}"


def table(state: GameState, dealer: int | None = None, sender: int | None = None) -> Table:
    return Table(state.names, state.usernames, dealer, sender)


_PARSED: OrderedDict[Table, dict[str, Record]] = OrderedDict()


def records_of(state: GameState, items: Sequence[RecordItem] | None = None) -> list[Record]:
    """The engine's records of `items` (by default the records in force); each stored line is read
    once per table (a dict lookup for the rest of the game)."""
    tab = table(state)
    known = _PARSED.get(tab)
    if known is None:
        known = _PARSED[tab] = {}
        while len(_PARSED) > SHEET_CACHE:
            _PARSED.popitem(last=False)
    lines = [item.line for item in (state.records if items is None else items)]
    records = list(map(known.get, lines))  # in C: a long game's lines are nearly all known
    for i in [i for i, record in enumerate(records) if record is None]:
        records[i] = known[lines[i]] = parse_stored(lines[i], tab)
    return records  # type: ignore[return-value]  # (no None is left)


def rules_now(state: GameState) -> Rules:
    """The rules in force now (conventions.md §1.4): time windows, the end rule, penalties."""
    rules = state.rules_now()
    assert rules is not None
    return rules


_SETTLED: OrderedDict[int, tuple[Sheet, Fraction | None, Settlement]] = OrderedDict()


def settlement(state: GameState, sheet: Sheet) -> Settlement:
    """Settled under the rules in force at the sheet's end (mid-game changes included); kept by
    the sheet itself, so that the sender drawing a command's sheet does not settle it again."""
    kept = _SETTLED.get(id(sheet))
    if kept is not None and kept[0] is sheet and kept[1] == state.stake:
        return kept[2]
    settled = settle(sheet.rules, sheet.totals, state.stake)
    _SETTLED[id(sheet)] = (sheet, state.stake, settled)
    while len(_SETTLED) > SHEET_CACHE:
        _SETTLED.popitem(last=False)
    return settled


def index_of(state: GameState, seq: int) -> int | None:
    """The index among the records in force of the record with this seq."""
    return next((i for i, item in enumerate(state.records) if item.seq == seq), None)


Notify = Callable[[], Awaitable[None]]


class Core:
    """What every unit of work shares: the store, the clock, the chats' locks, the sheet cache,
    and the games with open votes (game id → (chat id, the earliest deadline); it may hold more
    than is due — a rolled-back command — and `votes.expire_votes` reads the log and corrects it)."""

    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._recent: OrderedDict[tuple[int, int], tuple[GameState, Sheet]] = OrderedDict()
        self.watch: dict[int, tuple[int, datetime]] = {}
        self.notify: Notify | None = None  # told when owed rows were committed (the sender)
        self.games = Games()  # each live game's state and replay, kept

    def lock(self, chat_id: int) -> asyncio.Lock:
        return self._locks.setdefault(chat_id, asyncio.Lock())

    @asynccontextmanager
    async def owing(self) -> AsyncIterator[Owing]:
        """The scope of one update: its command commits at the end with the replies it owes
        (an exception rolls both back); then the sender is told."""
        scope = Owing(self)
        token = _OWING.set(scope)
        try:
            yield scope
        except BaseException:
            _OWING.reset(token)
            await scope.abort_all()
            raise
        _OWING.reset(token)
        await scope.flush()
        if scope.wrote:
            await self.told()

    async def owe(self, rows: Sequence[Owed]) -> None:
        """Replies owed: with the current update's command, or at once outside an update."""
        scope = _OWING.get()
        if scope is not None:
            scope.owe(rows)
            return
        async with self.store.transaction() as repo:
            await repo.owe(list(rows))
        await self.told()

    async def told(self) -> None:
        if self.notify is not None:
            await self.notify()

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
        whole inside the transaction. On a store that is not `serial` (PostgreSQL: several
        instances may share it) every unit runs whole inside its transaction, after
        `repo.lock_chat` — the chat's lock across processes — so what it reads no other instance
        can change before it commits."""
        scope = _OWING.get()
        if scope is not None:
            async with self._owed_command(scope, caller, game, direct) as unit:
                yield unit
            return
        async with self.lock(caller.chat_id):
            shared = not self.store.serial  # several instances: read under their lock
            if direct or shared:
                async with self.store.transaction() as repo:
                    if shared:
                        await repo.lock_chat(caller.chat_id)
                    await self.mark_update(repo, caller)
                    unit = Unit(self, caller.chat_id, repo)
                    row = await self._row(repo, caller.chat_id, game)
                    if row is not None:
                        unit.adopt(self.tracked(await self.games.state(repo, row)))
                        await unit.link(caller)
                    yield unit
                unit.committed()
                return
            unit = await self._read(caller, game)
            yield unit
            await self._commit(unit, caller)

    @asynccontextmanager
    async def _owed_command(
        self, scope: Owing, caller: Caller, game: int | None, direct: bool
    ) -> AsyncIterator[Unit]:
        """`command` inside an update's scope: the commit is left to the scope."""
        shared = not self.store.serial  # several instances: read under their lock
        await scope.begin(caller.chat_id, direct=direct or shared)
        try:
            if direct or shared:
                repo = await scope.open(self.store.transaction())
                if shared:
                    await repo.lock_chat(caller.chat_id)
                await self.mark_update(repo, caller)
                unit = Unit(self, caller.chat_id, repo)
                row = await self._row(repo, caller.chat_id, game)
                if row is not None:
                    unit.adopt(self.tracked(await self.games.state(repo, row)))
                    await unit.link(caller)
                yield unit
                scope.defer(unit, None)
            else:
                unit = await self._read(caller, game)
                yield unit
                scope.defer(unit, caller)
        except BaseException:
            await scope.abort()
            raise

    async def _read(self, caller: Caller, game: int | None) -> Unit:
        async with self.store.reading() as repo:
            if caller.update_id is not None and await repo.update_seen(
                caller.update_id, caller.chat_id, caller.message_id
            ):
                raise AlreadyHandled(caller.update_id)
            row = await self._row(repo, caller.chat_id, game)
            log = await self.games.read(repo, row) if row is not None else None
        unit = Unit(self, caller.chat_id, None)
        if row is not None and log is not None:  # folded with the store free
            unit.adopt(self.tracked(self.games.take(row, log)))
            await unit.link(caller)
        return unit

    @asynccontextmanager
    async def background(self, chat_id: int, game_id: int) -> AsyncIterator[Unit | None]:
        """A unit of work of the bot itself (the vote clock) on one game, in the same two steps;
        None when the game is gone or has ended."""
        scope = _OWING.get()
        if scope is not None:
            shared = not self.store.serial
            await scope.begin(chat_id, direct=shared)
            try:
                repo = None
                if shared:  # several instances: read under their lock
                    repo = await scope.open(self.store.transaction())
                    await repo.lock_chat(chat_id)
                unit = await self._game_unit(chat_id, game_id, repo)
                yield unit
                if unit is not None:
                    scope.defer(unit, None)
                else:
                    await scope.release()
            except BaseException:
                await scope.abort()
                raise
            return
        async with self.lock(chat_id):
            if not self.store.serial:  # several instances: read under the lock
                async with self.store.transaction() as repo:
                    await repo.lock_chat(chat_id)
                    unit = await self._game_unit(chat_id, game_id, repo)
                    yield unit
                if unit is not None:
                    unit.committed()
                return
            unit = await self._game_unit(chat_id, game_id)
            yield unit
            if unit is not None:
                await self._commit(unit, None)

    async def _game_unit(
        self, chat_id: int, game_id: int, held: Repo | None = None
    ) -> Unit | None:
        """The game's unit, read in a short read or through `held` (an open transaction that the
        unit then writes into)."""
        async with nullcontext(held) if held is not None else self.store.reading() as repo:
            row = await repo.game(game_id)
            log = await self.games.read(repo, row) if row is not None else None
        if row is None or log is None or row.status is GameStatus.ENDED:
            return None
        unit = Unit(self, chat_id, held)
        unit.adopt(self.tracked(self.games.take(row, log)))
        return unit

    async def mark_update(self, repo: Repo, caller: Caller | None) -> None:
        if caller is None or caller.update_id is None:
            return
        if await repo.update_seen(caller.update_id, caller.chat_id, caller.message_id):
            raise AlreadyHandled(caller.update_id)
        await repo.mark_update(caller.update_id, self.clock(), caller.chat_id, caller.message_id)

    async def _commit(self, unit: Unit, caller: Caller | None) -> None:
        marks = caller is not None and caller.update_id is not None
        if unit.writes or marks:
            async with self.store.transaction() as repo:
                await self.mark_update(repo, caller)
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
        return self.tracked(await self.games.state(repo, row))

    def tracked(self, state: GameState) -> GameState:
        self.track(state)
        return state

    def folded(self, row: GameRow, events: list[EventRow]) -> GameState:
        state = fold(row.game_id, events)
        state.chat_id = row.chat_id
        state.number = row.chat_number
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
        """The sheet kept for the game as `state`'s log stands (`remember`), if any."""
        found = self.recent(state.game_id, state.last_seq)
        return None if found is None else found[1]

    def sheet(self, state: GameState) -> Sheet:
        """The replay of the records in force (cached per game until its log grows); for a log
        read outside a command (a command's own sheets are cached once it has committed)."""
        sheet = self.cached(state)
        if sheet is None:
            sheet = self.games.sheet(state.game_id, state.game(), records_of(state))
            self.remember(state, sheet)
        return sheet

    def remember(self, state: GameState, sheet: Sheet) -> None:
        """Keep the sheet of the game as `state`'s log stands, with the state (a clone shares the
        records: cheap): the next command's read and the sender drawing an owed sheet at this
        seq then need no replay and no fold of the whole log."""
        key = (state.game_id, state.last_seq)
        self._recent[key] = (clone(state), sheet)
        self._recent.move_to_end(key)
        while len(self._recent) > RECENT_STATES:
            self._recent.popitem(last=False)

    def recent(self, game_id: int, seq: int) -> tuple[GameState, Sheet] | None:
        """The game's state and sheet as its log stood at event `seq`, if still kept (the
        `RECENT_STATES` least recently used go)."""
        found = self._recent.get((game_id, seq))
        if found is not None:
            self._recent.move_to_end((game_id, seq))
        return found


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
        chat (notation.md "Players"): a `SeatLinked` event and his members row."""
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
            sheet = self.core.games.sheet(state.game_id, state.game(), records_of(state))
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
            return self.core.games.sheet(state.game_id, state.game(), records)
        except ScoringError as error:
            error.example = error.example or deal_example(state.names, dealer)
            raise


async def _add_member(game_id: int, user_id: int, repo: Repo) -> None:
    await repo.add_member(game_id, user_id)


def _appending(row: EventRow) -> Write:
    async def write(repo: Repo) -> None:
        stored = await repo.append(row.game_id, row.kind, row.payload, row.author, row.at)
        if stored.seq != row.seq:  # the chat's locks make this impossible; never write past it
            raise RuntimeError(f"game {row.game_id}: event {stored.seq} written as {row.seq}")

    return write
