"""The domain's types and port, re-exported for the storage and its users (the core reads them
from `bot.domain`)."""

from __future__ import annotations

from bot.domain.owed import Owed, OwedKind, OwedRow
from bot.domain.ports import Fault, Repo, Store, StoreBroken
from bot.domain.rows import (
    PRUNE_BATCH,
    REDELIVERY_HORIZON,
    Account,
    ChatSettings,
    EventRow,
    GameRow,
    GameStatus,
    Reminder,
    same_update,
)

__all__ = [
    "PRUNE_BATCH",
    "REDELIVERY_HORIZON",
    "Account",
    "ChatSettings",
    "EventRow",
    "Fault",
    "GameRow",
    "GameStatus",
    "Owed",
    "OwedKind",
    "OwedRow",
    "Reminder",
    "Repo",
    "Store",
    "StoreBroken",
    "same_update",
]
