"""The unit of work: one per command a handler runs; its commit is the one step that writes. A
command's part of it (`Command`): its game, the events it appends, its writes."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from datetime import datetime, timedelta
from functools import partial
from typing import Protocol

from bot.core.base import LIVE, Caller, Core, deal_example, records_of, rules_now
from bot.core.errors import AlreadyHandled, GameError, Transient, Unsaved
from bot.core.events import ARBITER_SEAT, SCHEMA_VERSION, VOTE_KINDS, Event, encode
from bot.core.results import Recorded
from bot.core.state import GameState, apply
from bot.domain import EventRow, Fault, GameRow, GameStatus, Owed, Repo
from scoring.deal import Record
from scoring.errors import ScoringError
from scoring.sheet import Sheet

log = logging.getLogger(__name__)

Hook = Callable[[], Awaitable[object]]
Write = Callable[[Repo], Awaitable[object]]


class Command:
    """A command's part of its unit; a direct one writes at once into the open transaction."""

    def __init__(self, uow: UnitOfWork, repo: Repo | None) -> None:
        self.core = uow.core
        self._uow = uow  # told that its open transaction holds this command's writes
        self._repo = repo
        self._state: GameState | None = None
        self.writes: list[Write] = []
        self._sheet: tuple[int, Sheet] | None = None  # the latest replayed, at its seq

    @property
    def repo(self) -> Repo:
        """The open transaction's repository (direct commands): what it writes is the unit's."""
        assert self._repo is not None, "only a direct command holds the repository"
        self._uow._dirty = True
        return self._repo

    async def fold(self, row: GameRow) -> GameState:
        self._state = await self.core.fold(self.repo, row, apart=True)
        return self._state

    async def link(self, caller: Caller) -> None:
        """An `@username` seat is linked to the caller's account on his first act (notation.md)."""
        event = self.state.link_event(caller.as_player())
        user_id, game_id = caller.user_id, self.state.game_id
        if event is not None and user_id is not None:
            await self.append(event, user_id)
            if event.seat != ARBITER_SEAT:  # the arbiter is no player: the game is not his
                await self.write(lambda repo: repo.add_member(game_id, user_id))

    def adopt(self, state: GameState) -> None:
        """A game this command created or read (nothing to fold yet)."""
        self._state = state

    @property
    def state(self) -> GameState:
        assert self._state is not None, "this command read no game"
        return self._state

    def now(self) -> datetime:
        return self.core.clock()

    def deadline(self) -> str:
        """When a vote opened now times out (the rules in force's `vote_seconds`)."""
        return (self.now() + timedelta(seconds=rules_now(self.state).vote_seconds)).isoformat()

    async def write(self, write: Write) -> None:
        """A write beside the events (members, the status index): now, or at the commit."""
        if self._repo is not None:
            await write(self.repo)
        else:
            self.writes.append(write)

    async def append(self, event: Event, author: int | None) -> None:
        """Append a typed event and fold it into the state; its seq is the log's next."""
        state = self.state
        kind, payload = encode(event)
        seq, at = state.last_seq + 1, self.now()
        row = EventRow(state.game_id, seq, kind.value, payload, author, at, SCHEMA_VERSION)
        await self.write(partial(_append_row, row))
        apply(state, row)
        if kind in VOTE_KINDS:
            self.core.track(state)

    def sheet(self, records: list[Record] | None = None) -> Sheet:
        """The replay of the records in force now; `records`: them, when the caller has them."""
        state = self.state
        sheet = self.core.cached(state)
        if sheet is not None:
            return sheet
        records = records_of(state) if records is None else records
        sheet = self.core.games.sheet(state.game_id, state.game(), records)
        self.remember(sheet)
        return sheet

    def remember(self, sheet: Sheet) -> None:
        self._sheet = (self.state.last_seq, sheet)

    def committed(self) -> None:
        """Its sheet is kept if it is the log's as committed (an earlier one never is)."""
        if self._sheet is not None and self._sheet[0] == self.state.last_seq:
            self.core.remember(self.state, self._sheet[1])

    def replay(self, records: list[Record], dealer: int) -> Sheet:
        """The sheet with a new record; the engine's refusal gets an example for this table."""
        state = self.state
        try:
            return self.core.games.sheet(state.game_id, state.game(), records)
        except ScoringError as error:
            error.example = error.example or deal_example(state.names, dealer)
            raise


async def _append_row(row: EventRow, repo: Repo) -> None:
    stored = await repo.append(row.game_id, row.kind, row.payload, row.author, row.at)
    if stored.seq != row.seq:  # the chats' locks make this impossible; never write past it
        raise RuntimeError(f"game {row.game_id}: event {stored.seq} written as {row.seq}")


class _RolledBack(Exception):  # thrown into an open transaction to roll it back
    pass


class UnitOfWork(AbstractAsyncContextManager["UnitOfWork"]):
    """One unit of work; `caller` is the update it marks when it writes (None: the bot's own)."""

    def __init__(self, core: Core, caller: Caller | None = None) -> None:
        self.core, self.caller = core, caller
        self.discarded = Unsaved((), False)  # what the last `rollback` threw away
        self._reset()

    async def __aexit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        """Whatever was not committed rolls back; a database failure is told for what it is."""
        if error is None and (self._rows or self._commands or self._writes):
            log.warning("a unit of work ended without its commit: rolled back")
        await self.rollback()
        if not isinstance(error, Exception):
            return
        fault = self.core.store.fault(error)
        if fault is Fault.UNWRITABLE:
            log.warning("the database takes no writes (%s)", error)
            raise self.discarded from error
        if fault is Fault.TRANSIENT:
            raise Transient(f"{type(error).__name__}: {error}") from error

    def _reset(self) -> None:
        self._stack = AsyncExitStack()  # the chats' locks, then the open transaction
        self._chats: set[int] = set()
        self._locked: set[int] = set()  # chats locked in the database (PostgreSQL)
        self._repo: Repo | None = None  # the open transaction
        self._commands: list[Command] = []
        self._writes: list[Write] = []  # kept for the commit
        self._rows: list[Owed] = []
        self._then: list[Hook] = []
        self._checked = False  # the update was found not handled (a short read)
        self._marked = False  # the update's mark is in the open transaction
        self._dirty = False  # the open transaction holds writes of this unit
        self._failed = False  # a command failed inside the open transaction

    def owe(self, *rows: Owed) -> None:
        """Replies owed: written with the commit, delivered by the sender after it."""
        self._rows.extend(rows)

    def then(self, hook: Hook) -> None:
        """A follow-up once this unit committed: a unit of work of its own."""
        self._then.append(hook)

    def now(self) -> datetime:
        return self.core.clock()

    @asynccontextmanager
    async def command(
        self, caller: Caller, game: int | None = LIVE, *, direct: bool = False
    ) -> AsyncIterator[Command]:
        """The preamble of every command; `game`: LIVE (the live game), a game id, or None."""
        unit = await self._begin(caller.chat_id, lambda repo: _row(repo, caller, game), direct)
        if unit._state is not None:
            await unit.link(caller)
        async with self._running(unit) as running:
            yield running

    @asynccontextmanager
    async def on_game(self, chat_id: int, game_id: int) -> AsyncIterator[Command | None]:
        """A command of the bot itself on one game; None when the game is gone or has ended."""
        unit = await self._begin(chat_id, lambda repo: repo.game(game_id), direct=False)
        if unit._state is None or unit.state.status is GameStatus.ENDED:
            yield None
            return
        async with self._running(unit) as running:
            yield running

    async def holding(self, *chat_ids: int) -> Repo:
        """The unit's open transaction, under these chats' locks, for a write of its own."""
        for chat_id in sorted(chat_ids):
            await self._lock(chat_id)
        repo = await self._transaction(*chat_ids)
        self._dirty = True
        return repo

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Repo]:
        """The store as this unit sees it: its open transaction, else a short read."""
        if self._repo is not None or self._writes:
            yield await self._transaction()
            return
        async with self.core.store.reading() as repo:
            yield repo

    @property
    def sees_own_writes(self) -> bool:
        return self._dirty or bool(self._writes)

    async def _begin(
        self, chat_id: int, find: Callable[[Repo], Awaitable[GameRow | None]], direct: bool
    ) -> Command:
        await self._lock(chat_id)
        if direct or not self.core.store.serial or self._repo is not None or self._writes:
            repo = await self._transaction(chat_id)
            unit = Command(self, repo)
            row = await find(repo)
            if row is not None:
                unit.adopt(await self.core.fold(repo, row, apart=self._dirty))
            return unit
        async with self.core.store.reading() as repo:
            await self._mark(repo, write=False)
            row = await find(repo)
            read = await self.core.games.read(repo, row) if row is not None else None
        unit = Command(self, None)
        if row is not None and read is not None:  # folded with the store free
            unit.adopt(self.core.track(self.core.games.take(row, read)))
        return unit

    @asynccontextmanager
    async def _running(self, unit: Command) -> AsyncIterator[Command]:
        try:
            yield unit
        except BaseException:
            if unit._repo is not None:  # its writes are in the transaction: it cannot commit
                self._failed = True
            raise
        self._writes.extend(unit.writes)
        self._commands.append(unit)

    async def _lock(self, chat_id: int) -> None:
        if chat_id not in self._chats:
            await self._stack.enter_async_context(self.core.lock(chat_id))
            self._chats.add(chat_id)

    async def _transaction(self, *chat_ids: int) -> Repo:
        """The open transaction (opened if need be), these chats locked, the update marked."""
        if self._repo is None:
            self._repo = await self._stack.enter_async_context(self.core.store.transaction())
        repo = self._repo
        if not self.core.store.serial:
            for chat_id in sorted(set(chat_ids) - self._locked):
                await repo.lock_chat(chat_id)
                self._locked.add(chat_id)
        await self._mark(repo)
        if self._writes:
            writes, self._writes = self._writes, []
            for write in writes:
                await write(repo)
            self._dirty = True
        return repo

    async def _mark(self, repo: Repo, *, write: bool = True) -> None:
        """Refuse an update handled before; `write`: mark it handled in the open transaction."""
        caller = self.caller
        done = self._marked if write else self._checked
        if done or caller is None or caller.update_id is None:
            return
        if await repo.update_seen(caller.update_id, caller.chat_id, caller.message_id):
            raise AlreadyHandled(caller.update_id)
        if write:
            await repo.mark_update(caller.update_id, self.now(), caller.chat_id, caller.message_id)
            self._marked = True
        self._checked = True

    async def commit(self) -> None:
        """Write it all in one transaction, or nothing; then tell the kept states, the sender."""
        if self._failed:
            raise RuntimeError("a command failed inside this unit of work: it cannot commit")
        if self._repo is not None or self._writes or self._rows or self._commands:
            repo = await self._transaction()  # (the writes kept for the commit go in it)
            if self._rows:
                await repo.owe(list(self._rows))
        await self._stack.aclose()  # the open transaction commits, then the chats' locks go
        commands, rows, then = self._commands, self._rows, self._then
        self._reset()
        for unit in commands:
            unit.committed()
        if rows and self.core.notify is not None:
            try:
                await self.core.notify()
            except Exception:
                log.exception("the sender could not be woken; it looks again within a tick")
        for hook in then:
            try:
                await hook()
            except Exception as error:
                log.warning("a follow-up of a committed unit failed (%s)", error)

    async def rollback(self) -> None:
        """Forget everything the unit holds; what was owed is kept in `discarded`."""
        self.discarded = Unsaved(tuple(self._rows), bool(self._commands))
        stack = self._stack
        self._reset()
        try:
            await stack.__aexit__(_RolledBack, _RolledBack(), None)
        except Exception as error:  # a dropped connection: its transaction is gone with it
            log.info("rolling back: %s", error)


async def _row(repo: Repo, caller: Caller, game: int | None) -> GameRow | None:
    if game is None:
        return None
    if game == LIVE:
        row = await repo.live_game(caller.chat_id, caller.topic)
        if row is None:
            raise GameError("no-game", "", {}, "/newgame sochi")
        return row
    row = await repo.game(game)
    if row is None or row.chat_id != caller.chat_id:
        raise GameError("stale-button", "", {}, "/score")
    return row


class Announce(Protocol):
    """The port through which a command taken outside Telegram owes its chat the usual answer."""

    async def recorded(self, uow: UnitOfWork, lang: str, result: Recorded) -> None:
        """Owe the record's chat its sheet with the record's caption, in `lang`."""
