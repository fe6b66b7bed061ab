"""Storage: the `bot.domain` port on SQLite and PostgreSQL, its types re-exported for tests."""

from bot.storage.base import (
    REDELIVERY_HORIZON,
    EventRow,
    Fault,
    GameRow,
    GameStatus,
    Owed,
    OwedKind,
    OwedRow,
    Repo,
    Store,
    StoreBroken,
)
from bot.storage.sqlite import SqliteStore

__all__ = [
    "REDELIVERY_HORIZON",
    "EventRow",
    "Fault",
    "GameRow",
    "GameStatus",
    "Owed",
    "OwedKind",
    "OwedRow",
    "Repo",
    "SqliteStore",
    "Store",
    "StoreBroken",
]
