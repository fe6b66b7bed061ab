"""The domain's types and ports, below the core and the storage (docs/architecture.md)."""

from bot.domain.owed import Owed, OwedKind, OwedRow
from bot.domain.ports import Fault, Repo, Store, StoreBroken
from bot.domain.rows import (
    PRUNE_BATCH,
    REDELIVERY_HORIZON,
    Account,
    ChatSettings,
    DebtLog,
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
    "DebtLog",
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
