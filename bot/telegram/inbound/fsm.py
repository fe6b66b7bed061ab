"""aiogram's FSM for the step-by-step `/deal`: the storage, chosen here and nowhere else, and what
the steps keep in it.

The storage: aiogram's `RedisStorage` when `REDIS_URL` is set (the optional `redis` package); the
bot's own database (`bot.telegram.inbound.fsm_db.DatabaseStorage`) on PostgreSQL (`DATABASE_URL`), so a `/deal`
started on one instance continues on any other; else, one process on SQLite, aiogram's
`MemoryStorage`: steps open before a restart are then stale and say to start again. The FSM is keyed
per user in a chat (aiogram's default), so each player has at most one open step message per chat,
and one user's updates in a chat are handled one at a time (the isolation; across instances with
Redis), so two quick presses cannot both read the same draft. Its data is plain JSON values, so a
storage that serialises them can hold it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from datetime import datetime
from types import ModuleType
from typing import Any, Final

from aiogram.fsm.state import State, StatesGroup
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage
from aiogram.fsm.storage.memory import MemoryStorage, SimpleEventIsolation

from bot.domain import Store
from bot.settings import Settings
from bot.telegram.inbound.fsm_db import DatabaseEventIsolation, DatabaseStorage
from bot.texts.deal_draft import DealKind, Draft
from scoring.deal import Role, Suit
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
    """How updates of one FSM key (a user in a chat) are kept apart: one at a time, in-process, or
    across instances — through Redis when `REDIS_URL` is set, else through the database on
    PostgreSQL."""
    if settings.redis_url:
        isolation: BaseEventIsolation = _redis().RedisEventIsolation.from_url(settings.redis_url)
        return isolation
    if settings.database_url and store is not None:
        return DatabaseEventIsolation(store)
    return SimpleEventIsolation()


class DealEntry(StatesGroup):
    """A deal entered by buttons is open."""

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
        seating = self.seating
        return {
            "message": self.message_id,
            "opener": self.opener_name,
            "game": self.game_id,
            "records": self.records,
            "names": list(seating.names),
            "dealer": seating.dealer,
            "number": seating.number,
            "opened_at": self.opened_at.isoformat(),
            "drafts": [draft_to_data(d) for d in self.drafts],
            "version": self.version,
            "concede": self.concede,
            "prikup": self.prikup,
            "odessa": self.odessa,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> OpenSteps:
        seating = Seating(tuple(data["names"]), int(data["dealer"]), int(data["number"]))
        return cls(
            message_id=int(data["message"]),
            opener_name=str(data["opener"]),
            game_id=int(data["game"]),
            records=str(data["records"]),
            seating=seating,
            opened_at=datetime.fromisoformat(data["opened_at"]),
            drafts=[draft_from_data(d) for d in data["drafts"]],
            version=int(data["version"]),
            concede=bool(data.get("concede", False)),
            prikup=bool(data.get("prikup", False)),
            odessa=bool(data.get("odessa", False)),
        )


def draft_to_data(draft: Draft) -> dict[str, Any]:
    return {
        "kind": draft.kind.value if draft.kind is not None else None,
        "declarer": draft.declarer,
        "level": draft.level,
        "suit": draft.suit.value if draft.suit is not None else None,
        "words": [w.value for w in draft.words],
        "taken": draft.taken,
        "split": draft.split,
        "tricks": list(draft.tricks),
        "light": draft.light,
        "note": draft.note,
        "conceded": draft.conceded,
        "prikup": draft.prikup,
        "dealer_whist": draft.dealer_whist,
    }


def draft_from_data(data: dict[str, Any]) -> Draft:
    kind, suit = data["kind"], data["suit"]
    return Draft(
        kind=DealKind(kind) if kind is not None else None,
        declarer=data["declarer"],
        level=data["level"],
        suit=Suit(suit) if suit is not None else None,
        words=tuple(Role(w) for w in data["words"]),
        taken=data["taken"],
        split=data["split"],
        tricks=tuple(data["tricks"]),
        light=data.get("light"),
        note=str(data.get("note") or ""),
        conceded=bool(data.get("conceded", False)),
        prikup=int(data.get("prikup") or 0),
        dealer_whist=data.get("dealer_whist"),
    )


def open_steps(data: dict[str, Any], message_id: int) -> OpenSteps | None:
    """The steps of `message_id` in a user's FSM data, if that is the message he has open."""
    raw = data.get(STEPS_KEY)
    if not isinstance(raw, dict) or raw.get("message") != message_id:
        return None
    return OpenSteps.from_data(raw)


def closed(data: dict[str, Any], message_id: int) -> bool:
    return message_id in data.get(CLOSED_KEY, ())


def with_closed(data: dict[str, Any], message_id: int) -> dict[str, Any]:
    """The FSM data once `message_id` is done with (recorded, cancelled, stale)."""
    kept = [m for m in data.get(CLOSED_KEY, ()) if m != message_id][-(CLOSED_KEPT - 1) :]
    rest = {k: v for k, v in data.items() if k != STEPS_KEY}
    if isinstance(data.get(STEPS_KEY), dict) and data[STEPS_KEY].get("message") != message_id:
        rest[STEPS_KEY] = data[STEPS_KEY]  # another open step message stays open
    return {**rest, CLOSED_KEY: [*kept, message_id]}
