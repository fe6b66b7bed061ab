"""The domain's types and ports, below the core and the storage (docs/architecture.md)."""

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
    Owed,
    OwedKind,
    OwedRow,
    Reminder,
    TournamentRow,
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
    "TournamentRow",
    "same_update",
]
