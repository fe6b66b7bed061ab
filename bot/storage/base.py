"""The domain's types and port that the storage's users import from here (the core reads them
from `bot.domain`)."""

from bot.domain import ChatSettings, EventRow, GameStatus, Owed, OwedKind, Repo, Store

__all__ = ["ChatSettings", "EventRow", "GameStatus", "Owed", "OwedKind", "Repo", "Store"]
