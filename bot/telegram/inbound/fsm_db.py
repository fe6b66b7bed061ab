"""aiogram's FSM storage and event isolation in the bot's own database (PostgreSQL)."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any, Final, TypeVar

from aiogram.fsm.state import State
from aiogram.fsm.storage.base import (
    BaseEventIsolation,
    BaseStorage,
    DefaultKeyBuilder,
    KeyBuilder,
    StateType,
    StorageKey,
)

from bot.core.base import Clock, utc_now
from bot.core.health import instance_name
from bot.domain import Fault, Repo, Store

log = logging.getLogger(__name__)
T = TypeVar("T")
TRIES: Final = 3
PAUSE: Final = 0.05  # seconds before the second try, doubled before the third
ISOLATION_SECONDS: Final = 10.0  # longest an update of one key may hold the others back
ISOLATION_PAUSE: Final = 0.02  # seconds between two tries for a key another instance holds


async def _in(store: Store, write: bool, step: Callable[[Repo], Awaitable[T]]) -> T:
    """`step(repo)` in a transaction (or a read), tried again after a transient database failure."""
    for attempt in range(TRIES):
        try:
            async with store.transaction() if write else store.reading() as repo:
                return await step(repo)
        except Exception as error:
            if attempt == TRIES - 1 or store.fault(error) is not Fault.TRANSIENT:
                raise
            log.info("fsm: try %d of %d failed (%s); again", attempt + 1, TRIES, error)
            await asyncio.sleep(PAUSE * 2**attempt)
    raise AssertionError("unreachable")  # pragma: no cover


class DatabaseStorage(BaseStorage):
    """`BaseStorage` over the bot's `Store` (the `fsm` table)."""

    def __init__(self, store: Store, key_builder: KeyBuilder | None = None) -> None:
        self.store = store
        self.key_builder = key_builder or DefaultKeyBuilder(with_bot_id=True)

    async def set_state(self, key: StorageKey, state: StateType = None) -> None:
        value, name = (
            state.state if isinstance(state, State) else state,
            self.key_builder.build(key),
        )
        await _in(self.store, True, lambda repo: repo.set_fsm_state(name, value))

    async def get_state(self, key: StorageKey) -> str | None:
        name = self.key_builder.build(key)
        return await _in(self.store, False, lambda repo: repo.fsm_state(name))

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        name, value = self.key_builder.build(key), dict(data)
        await _in(self.store, True, lambda repo: repo.set_fsm_data(name, value))

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        name = self.key_builder.build(key)
        return await _in(self.store, False, lambda repo: repo.fsm_data(name))

    async def close(self) -> None:
        """The store belongs to the bot, which closes it itself."""


class DatabaseEventIsolation(BaseEventIsolation):
    """One update of an FSM key at a time, across the instances sharing the store."""

    def __init__(
        self,
        store: Store,
        key_builder: KeyBuilder | None = None,
        seconds: float = ISOLATION_SECONDS,
        clock: Clock = utc_now,
    ) -> None:
        self.store = store
        self.key_builder = key_builder or DefaultKeyBuilder(with_bot_id=True)
        self.seconds = seconds
        self.clock = clock
        self.holder = instance_name()
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncGenerator[None, None]:
        name = "fsm:" + self.key_builder.build(key)
        async with self._locks[name]:
            while not await self._take(name):
                await asyncio.sleep(ISOLATION_PAUSE)
            try:
                yield
            finally:
                try:
                    await _in(self.store, True, lambda repo: repo.release_lease(name, self.holder))
                except Exception as error:  # it expires after `seconds` all the same
                    log.warning("fsm: %s not released (%s)", name, error)

    async def _take(self, name: str) -> bool:
        now = self.clock()
        until = now + timedelta(seconds=self.seconds)
        return await _in(
            self.store, True, lambda repo: repo.take_lease(name, self.holder, now, until)
        )

    async def close(self) -> None:
        self._locks.clear()
