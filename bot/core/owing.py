"""An update's scope: the commands whose commits wait for the update's end, and the replies they
owe, all written in one transaction (docs/architecture.md "Delivery"). `Core.owing` makes one per
update (and per tick of the vote clock); `Flushing` is the store as the service sees it, committing
what waits before it is used again.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from bot.storage import Owed, Repo, Store
from bot.storage.base import PRUNE_BATCH

Write = Callable[[Repo], Awaitable[object]]


class Deferred(Protocol):
    """A unit of work whose writes wait for the scope's commit (`bot.core.uow.Unit`)."""

    writes: list[Write]

    def committed(self) -> None: ...


class Host(Protocol):
    """What a scope needs of the core: its store, the chats' locks, and the update mark."""

    store: Store

    def lock(self, chat_id: int) -> asyncio.Lock: ...

    async def mark_update(self, repo: Repo, caller: Any) -> None: ...


@dataclass(slots=True)
class _Held:
    """A command waiting in a scope: its chat's lock (and a direct unit's open transaction)."""

    chat_id: int
    stack: AsyncExitStack
    unit: Deferred | None = None
    caller: Any = None
    repo: Repo | None = None


class Owing:
    """One update's scope (or one tick of the vote clock's): the commands whose commits wait,
    each holding its chat's lock, and the replies owed so far; all commit in one transaction at
    the end. A second command on a chat already held, a direct unit (its transaction is open), or
    a write through the service's store commits what waits first. Made by `Core.owing`."""

    def __init__(self, core: Host) -> None:
        self.core = core
        self.rows: list[Owed] = []
        self._held: list[_Held] = []
        self._current: _Held | None = None
        self.wrote = False

    def owe(self, rows: Sequence[Owed]) -> None:
        self.rows.extend(rows)

    @property
    def open_transaction(self) -> bool:
        return any(held.repo is not None for held in self._held)

    async def begin(self, chat_id: int, *, direct: bool) -> None:
        """A command starts: commit what waits if it must, then take the chat's lock."""
        if direct or self.open_transaction or any(h.chat_id == chat_id for h in self._held):
            await self.flush()
        self._current = _Held(chat_id, AsyncExitStack())
        await self._current.stack.enter_async_context(self.core.lock(chat_id))

    async def open(self, transaction: AbstractAsyncContextManager[Repo]) -> Repo:
        assert self._current is not None
        repo = await self._current.stack.enter_async_context(transaction)
        self._current.repo = repo
        return repo

    def defer(self, unit: Deferred, caller: Any) -> None:
        assert self._current is not None
        self._current.unit, self._current.caller = unit, caller
        self._held.append(self._current)
        self._current = None

    async def release(self) -> None:
        """The starting command found nothing to do: release its lock."""
        current, self._current = self._current, None
        if current is not None:
            await current.stack.aclose()

    async def abort(self) -> None:
        """The starting command failed: roll back its transaction, release its lock."""
        current, self._current = self._current, None
        if current is not None:
            await current.stack.__aexit__(*sys.exc_info())

    async def abort_all(self) -> None:
        """The update failed: nothing waiting commits, nothing is owed."""
        await self.abort()
        held, self._held, self.rows = self._held, [], []
        for one in reversed(held):
            await one.stack.__aexit__(*sys.exc_info())

    async def flush(self) -> None:
        """Commit the waiting commands with the replies owed so far, in one transaction."""
        held, rows = self._held, self.rows
        if not held and not rows:
            return
        self._held, self.rows = [], []
        opened = next((h.repo for h in held if h.repo is not None), None)
        try:
            if opened is not None:
                await _write(opened, held, rows, self.core)
            else:
                async with self.core.store.transaction() as repo:
                    await _write(repo, held, rows, self.core)
        except BaseException:
            for one in reversed(held):
                await one.stack.__aexit__(*sys.exc_info())
            raise
        for one in reversed(held):  # an open transaction commits, then the locks are released
            await one.stack.aclose()
        for one in held:
            if one.unit is not None:
                one.unit.committed()
        self.wrote = self.wrote or bool(rows)


async def _write(repo: Repo, held: list[_Held], rows: list[Owed], core: Host) -> None:
    for one in held:
        if one.repo is None and one.unit is not None:
            await core.mark_update(repo, one.caller)
            for write in one.unit.writes:
                await write(repo)
    if rows:
        await repo.owe(rows)


_OWING: ContextVar[Owing | None] = ContextVar("owing", default=None)


async def flush_owing(*, reading: bool = False) -> None:
    """Commit what the current scope keeps waiting before the store is used again: always before
    a write; before a read only when a direct unit's transaction is open (SQLite's one connection
    would wait for itself). A read otherwise sees the store as committed."""
    scope = _OWING.get()
    if scope is not None and (not reading or scope.open_transaction):
        await scope.flush()


class Flushing:
    """The store as the service uses it: a scope's waiting commands commit before it writes."""

    def __init__(self, store: Store) -> None:
        self.inner = store
        self.serial = store.serial

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Repo]:
        await flush_owing()
        async with self.inner.transaction() as repo:
            yield repo

    @asynccontextmanager
    async def statement(self) -> AsyncIterator[Repo]:
        await flush_owing()
        async with self.inner.statement() as repo:
            yield repo

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Repo]:
        await flush_owing(reading=True)
        async with self.inner.reading() as repo:
            yield repo

    async def check(self) -> None:
        await self.inner.check()

    async def ping(self) -> None:
        await self.inner.ping()

    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int:
        await flush_owing()
        return await self.inner.prune_updates(before, batch)

    async def close(self) -> None:
        await self.inner.close()
