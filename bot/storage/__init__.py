"""Storage: the `bot.domain` port on SQLite and PostgreSQL, its types re-exported for tests."""

from bot.domain import REDELIVERY_HORIZON, EventRow, GameStatus, Owed, OwedKind, Store, StoreBroken
from bot.storage.sqlite import SqliteStore

__all__ = [
    "REDELIVERY_HORIZON",
    "EventRow",
    "GameStatus",
    "Owed",
    "OwedKind",
    "SqliteStore",
    "Store",
    "StoreBroken",
]
