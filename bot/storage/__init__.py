"""Storage: the `bot.domain` port (`Store`, `Repo`) on SQLite and PostgreSQL; its types are re-exported
here for the storage's own users (tests, benchmarks, the operator's `migrate-db`)."""

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
