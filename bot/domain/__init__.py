"""The domain's types and ports, below both the application core and the storage: what a game's log
row is, what the bot owes a chat, and the `Store`/`Repo` port the core works through and the storage
implements (docs/architecture.md)."""

from bot.domain.owed import Owed, OwedKind, OwedRow
from bot.domain.ports import Fault, Repo, Store, StoreBroken
from bot.domain.rows import (
    PRUNE_BATCH,
    REDELIVERY_HORIZON,
    ChatSettings,
    EventRow,
    GameRow,
    GameStatus,
    same_update,
)

__all__ = [
    "PRUNE_BATCH",
    "REDELIVERY_HORIZON",
    "ChatSettings",
    "EventRow",
    "Fault",
    "GameRow",
    "GameStatus",
    "Owed",
    "OwedKind",
    "OwedRow",
    "Repo",
    "Store",
    "StoreBroken",
    "same_update",
]
