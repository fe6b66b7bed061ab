"""aiogram's FSM for the step-by-step `/deal`: its storage (chosen here) and its data."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from datetime import datetime
from types import ModuleType
from typing import Any, Final

from aiogram.fsm.state import State, StatesGroup
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage
from aiogram.fsm.storage.memory import MemoryStorage, SimpleEventIsolation
from pydantic import TypeAdapter

from bot.domain import Store
from bot.settings import Settings
from bot.telegram.inbound.fsm_db import DatabaseEventIsolation, DatabaseStorage
from bot.texts.deal_steps import Draft
from scoring.seating import Seating

STEPS_KEY: Final = "steps"
CLOSED_KEY: Final = "closed"
CLOSED_KEPT: Final = 16  # step messages a user closed lately: a late press there says "answered"


def _redis() -> ModuleType:
    try:
        return importlib.import_module("aiogram.fsm.storage.redis")
    except ImportError:
        raise RuntimeError(
            "REDIS_URL is set but the redis package is not installed: pip install 'redis>=5'"
        ) from None


def fsm_storage(settings: Settings, store: Store | None = None) -> BaseStorage:
    """The FSM storage of the dispatcher (the one place it is chosen)."""
    if settings.redis_url:
        storage: BaseStorage = _redis().RedisStorage.from_url(settings.redis_url)
        return storage
    if settings.database_url and store is not None:
        return DatabaseStorage(store)
    return MemoryStorage()


def fsm_isolation(settings: Settings, store: Store | None = None) -> BaseEventIsolation:
    """How updates of one FSM key are kept apart: Redis, the database, or in-process."""
    if settings.redis_url:
        isolation: BaseEventIsolation = _redis().RedisEventIsolation.from_url(settings.redis_url)
        return isolation
    if settings.database_url and store is not None:
        return DatabaseEventIsolation(store)
    return SimpleEventIsolation()


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
        data: dict[str, Any] = STEPS.dump_python(self, mode="json")
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> OpenSteps:
        return STEPS.validate_python(data)


STEPS: Final = TypeAdapter(OpenSteps)


def open_steps(data: dict[str, Any], message_id: int) -> OpenSteps | None:
    """The steps of `message_id` in a user's FSM data, if that is the message he has open."""
    raw = data.get(STEPS_KEY)
    if not isinstance(raw, dict) or raw.get("message_id") != message_id:
        return None
    return OpenSteps.from_data(raw)


def closed(data: dict[str, Any], message_id: int) -> bool:
    return message_id in data.get(CLOSED_KEY, ())


def with_closed(data: dict[str, Any], message_id: int) -> dict[str, Any]:
    """The FSM data once `message_id` is done with (recorded, cancelled, stale)."""
    kept = [m for m in data.get(CLOSED_KEY, ()) if m != message_id][-(CLOSED_KEPT - 1) :]
    rest = {k: v for k, v in data.items() if k != STEPS_KEY}
    if isinstance(data.get(STEPS_KEY), dict) and data[STEPS_KEY].get("message_id") != message_id:
        rest[STEPS_KEY] = data[STEPS_KEY]  # another open step message stays open
    return {**rest, CLOSED_KEY: [*kept, message_id]}
