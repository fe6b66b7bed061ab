"""Storage: a repository interface (`Store`, `Repo`) and its SQLite implementation."""

from bot.storage.base import (
    REDELIVERY_HORIZON,
    EventRow,
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
