"""Storage: a repository interface (`Store`, `Repo`) and its SQLite implementation."""

from bot.storage.base import EventRow, GameRow, GameStatus, Owed, OwedKind, OwedRow, Repo, Store
from bot.storage.sqlite import SqliteStore

__all__ = [
    "EventRow",
    "GameRow",
    "GameStatus",
    "Owed",
    "OwedKind",
    "OwedRow",
    "Repo",
    "SqliteStore",
    "Store",
]
