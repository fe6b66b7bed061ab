"""aiogram's FSM for the step-by-step `/deal`: its storage (chosen here; on PostgreSQL, the bot's
own database, shared by its instances) and its data."""

import asyncio
import importlib
import logging
from collections import defaultdict
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar, cast

from aiogram.fsm.state import State, StatesGroup
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage, DefaultKeyBuilder, StorageKey
from aiogram.fsm.storage.memory import MemoryStorage, SimpleEventIsolation
from pydantic import TypeAdapter

from bot.core.base import Clock, utc_now
from bot.core.health import instance_name
from bot.domain import Fault, Repo, Store
from bot.settings import Settings
from bot.texts.deal_steps import Draft
from scoring.seating import Seating

log = logging.getLogger(__name__)
T = TypeVar("T")
STEPS_KEY: Final = "steps"
CLOSED_KEY: Final = "closed"
CLOSED_KEPT: Final = 16  # step messages a user closed lately: a late press there says "answered"
TRIES: Final = 3
PAUSE: Final = 0.05  # seconds before the second try, doubled before the third
ISOLATION_SECONDS: Final = 10.0  # longest an update of one key may hold the others back
ISOLATION_PAUSE: Final = 0.02  # seconds between two tries for a key another instance holds


def fsm_backend(
    settings: Settings, store: Store | None = None
) -> tuple[BaseStorage, BaseEventIsolation]:
    """FSM storage and event isolation, chosen here alone: Redis, the database, or in-process."""
    if settings.redis_url:
        try:
            redis = importlib.import_module("aiogram.fsm.storage.redis")
        except ImportError:
            raise RuntimeError(
                "REDIS_URL is set but the redis package is not installed: pip install 'redis>=5'"
            ) from None
        url = settings.redis_url
        return redis.RedisStorage.from_url(url), redis.RedisEventIsolation.from_url(url)
    if settings.database_url and store is not None:
        return DatabaseStorage(store), DatabaseEventIsolation(store)
    return MemoryStorage(), SimpleEventIsolation()


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
    key_builder = DefaultKeyBuilder(with_bot_id=True)

    def __init__(self, store: Store) -> None:
        self.store = store

    async def set_state(self, key: StorageKey, state: str | State | None = None) -> None:
        value = state.state if isinstance(state, State) else state
        await _in(self.store, True, lambda r: r.set_fsm_state(self.key_builder.build(key), value))

    async def get_state(self, key: StorageKey) -> str | None:
        return await _in(self.store, False, lambda r: r.fsm_state(self.key_builder.build(key)))

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        name, value = self.key_builder.build(key), dict(data)
        await _in(self.store, True, lambda repo: repo.set_fsm_data(name, value))

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        return await _in(self.store, False, lambda r: r.fsm_data(self.key_builder.build(key)))

    async def close(self) -> None:
        """The store belongs to the bot, which closes it itself."""


class DatabaseEventIsolation(BaseEventIsolation):
    """One update of an FSM key at a time, across the instances sharing the store."""

    key_builder = DefaultKeyBuilder(with_bot_id=True)

    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store, self.clock, self.holder = store, clock, instance_name()
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncGenerator[None, None]:
        name, holder = "fsm:" + self.key_builder.build(key), self.holder
        async with self._locks[name]:
            while not await self._take(name):
                await asyncio.sleep(ISOLATION_PAUSE)
            try:
                yield
            finally:
                try:
                    await _in(self.store, True, lambda repo: repo.release_lease(name, holder))
                except Exception as error:  # it expires after ISOLATION_SECONDS all the same
                    log.warning("fsm: %s not released (%s)", name, error)

    async def _take(self, name: str) -> bool:
        now = self.clock()
        until = now + timedelta(seconds=ISOLATION_SECONDS)
        return await _in(self.store, True, lambda r: r.take_lease(name, self.holder, now, until))

    async def close(self) -> None:
        self._locks.clear()


class DealEntry(StatesGroup):
    steps = State()


@dataclass(slots=True)
class OpenSteps:
    """One step message: which message, who opened it, for which game and records, its drafts."""

    message_id: int
    opener_name: str
    game_id: int
    records: str  # fingerprint of the records in force when it was opened
    seating: Seating
    opened_at: datetime
    drafts: list[Draft] = field(default_factory=lambda: [Draft()])
    version: int = 0
    concede: bool = False  # the convention allows the concession «без трёх»
    prikup: bool = False  # the rules count quick tricks in the prikup (Odessa)
    odessa: bool = False  # Odessa's own rules: the 4-player dealer may whist

    @property
    def draft(self) -> Draft:
        return self.drafts[-1]

    def to_data(self) -> dict[str, Any]:
        """Plain JSON values, so that any storage can hold them."""
        return cast(dict[str, Any], STEPS.dump_python(self, mode="json"))


STEPS: Final = TypeAdapter(OpenSteps)


def open_steps(data: dict[str, Any], message_id: int) -> OpenSteps | None:
    """The steps of `message_id` in a user's FSM data, if that is the message he has open."""
    raw = data.get(STEPS_KEY)
    if not isinstance(raw, dict) or raw.get("message_id") != message_id:
        return None
    return STEPS.validate_python(raw)


def with_closed(data: dict[str, Any], message_id: int) -> dict[str, Any]:
    """The FSM data once `message_id` is done with (recorded, cancelled, stale)."""
    kept = [m for m in data.get(CLOSED_KEY, ()) if m != message_id][-(CLOSED_KEPT - 1) :]
    rest = {k: v for k, v in data.items() if k != STEPS_KEY}
    if isinstance(data.get(STEPS_KEY), dict) and data[STEPS_KEY].get("message_id") != message_id:
        rest[STEPS_KEY] = data[STEPS_KEY]  # another open step message stays open
    return {**rest, CLOSED_KEY: [*kept, message_id]}
