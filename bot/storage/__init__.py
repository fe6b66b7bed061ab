"""Storage: a repository interface (`Store`, `Repo`) and its SQLite implementation."""

from bot.storage.base import EventRow, GameRow, GameStatus, Repo, Store
from bot.storage.sqlite import SqliteStore

__all__ = ["EventRow", "GameRow", "GameStatus", "Repo", "SqliteStore", "Store"]
