"""The unit of work: one per command a handler runs; its commit is the one step that writes."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime

from bot.core.base import LIVE, Caller, Core
from bot.core.command import Command, Write
from bot.core.errors import AlreadyHandled, GameError, Transient, Unsaved
from bot.domain import Fault, GameRow, GameStatus, Owed, Repo

log = logging.getLogger(__name__)

Hook = Callable[[], Awaitable[object]]


class _RolledBack(Exception):  # thrown into an open transaction to roll it back
    pass


class UnitOfWork:
    """One unit of work; `caller` is the update it marks when it writes (None: the bot's own)."""

    def __init__(self, core: Core, caller: Caller | None = None) -> None:
        self.core = core
        self.caller = caller
        self.discarded = Unsaved((), False)  # what the last `rollback` threw away
        self._reset()

    async def __aenter__(self) -> UnitOfWork:
        return self

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

    # -- what it holds -----------------------------------------------------------------------
    def owe(self, *rows: Owed) -> None:
        """Replies owed: written with the commit, delivered by the sender after it."""
        self._rows.extend(rows)

    def then(self, hook: Hook) -> None:
        """A follow-up once this unit committed: a unit of work of its own."""
        self._then.append(hook)

    def now(self) -> datetime:
        return self.core.clock()

    def _touch(self) -> None:
        self._dirty = True

    # -- commands ----------------------------------------------------------------------------
    @asynccontextmanager
    async def command(
        self, caller: Caller, game: int | None = LIVE, *, direct: bool = False
    ) -> AsyncIterator[Command]:
        """The preamble of every command; `game`: LIVE (the live game), a game id, or None."""
        unit = await self._begin(
            caller.chat_id, lambda repo: _row(repo, caller.chat_id, game, caller.topic), direct
        )
        if unit.has_state:
            await unit.link(caller)
        async with self._running(unit) as running:
            yield running

    @asynccontextmanager
    async def on_game(self, chat_id: int, game_id: int) -> AsyncIterator[Command | None]:
        """A command of the bot itself on one game; None when the game is gone or has ended."""
        unit = await self._begin(chat_id, lambda repo: repo.game(game_id), direct=False)
        if not unit.has_state or unit.state.status is GameStatus.ENDED:
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
        """Whether a read through `reading` may see writes not committed yet."""
        return self._dirty or bool(self._writes)

    async def _begin(
        self, chat_id: int, find: Callable[[Repo], Awaitable[GameRow | None]], direct: bool
    ) -> Command:
        await self._lock(chat_id)
        store = self.core.store
        if direct or not store.serial or self._repo is not None or self._writes:
            repo = await self._transaction(chat_id)
            unit = Command(self.core, chat_id, repo, self._touch)
            row = await find(repo)
            if row is not None and self._dirty:  # not the log as committed: folded apart
                unit.adopt(self.core.folded(row, await repo.events(row.game_id)))
            elif row is not None:
                unit.adopt(await self.core.fold(repo, row))
            return unit
        async with store.reading() as repo:
            await self._mark(repo, write=False)
            row = await find(repo)
            read = await self.core.games.read(repo, row) if row is not None else None
        unit = Command(self.core, chat_id, None, self._touch)
        if row is not None and read is not None:  # folded with the store free
            unit.adopt(self.core.track(self.core.games.take(row, read)))
        return unit

    @asynccontextmanager
    async def _running(self, unit: Command) -> AsyncIterator[Command]:
        try:
            yield unit
        except BaseException:
            if unit.in_transaction:  # its writes are in the transaction: it cannot commit
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

    # -- the commit --------------------------------------------------------------------------
    async def commit(self) -> None:
        """Write it all in one transaction, or nothing; then tell the kept states, the sender."""
        if self._failed:
            raise RuntimeError("a command failed inside this unit of work: it cannot commit")
        if self._repo is not None:
            await self._write(self._repo)
        elif self._writes or self._rows or self._commands:
            async with self.core.store.transaction() as repo:
                await self._mark(repo)
                await self._write(repo)
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

    async def _write(self, repo: Repo) -> None:
        for write in self._writes:
            await write(repo)
        if self._rows:
            await repo.owe(list(self._rows))

    async def rollback(self) -> None:
        """Forget everything the unit holds; what was owed is kept in `discarded`."""
        self.discarded = Unsaved(tuple(self._rows), bool(self._commands))
        stack = self._stack
        self._reset()
        try:
            await stack.__aexit__(_RolledBack, _RolledBack(), None)
        except Exception as error:  # a dropped connection: its transaction is gone with it
            log.info("rolling back: %s", error)


async def _row(repo: Repo, chat_id: int, game: int | None, topic: int = 0) -> GameRow | None:
    if game is None:
        return None
    if game == LIVE:
        row = await repo.live_game(chat_id, topic)
        if row is None:
            raise GameError("no-game", "", {}, "/newgame sochi")
        return row
    row = await repo.game(game)
    if row is None or row.chat_id != chat_id:
        raise GameError("stale-button", "", {}, "/score")
    return row
