"""What both databases share: the domain's types and the port they implement (re-exported from
`bot.domain`, where the core reads them), and the outbox's column mapping."""

from __future__ import annotations

from typing import Any

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
    "OWED_COLUMNS",
    "OWED_CONTENT",
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
    "owed_row",
    "owed_values",
    "same_update",
]

OWED_COLUMNS = (
    "chat_id, kind, text, lang, markup, game_id, seq, target, reply_to, body, filename, thread_id"
)
# What a row owes, its chat aside: the columns `Repo.owed_replace` rewrites, in `owed_values` order.
OWED_CONTENT = tuple(OWED_COLUMNS.split(", ")[1:])


def owed_values(owed: Owed) -> tuple[Any, ...]:
    """The values of `OWED_COLUMNS`, in order."""
    o = owed
    head = (o.chat_id, o.kind.value, o.text, o.lang, o.markup, o.game_id, o.seq)
    return (*head, o.target, o.reply_to, o.body, o.filename, o.thread_id)


def owed_row(row: Any) -> OwedRow:
    """An `OwedRow` from `id, attempts, <OWED_COLUMNS>` (either backend's row)."""
    body = row[11]
    owed = Owed(
        row[2],
        OwedKind(row[3]),
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        bytes(body) if body is not None else None,
        row[12],
        row[13],
    )
    return OwedRow(row[0], owed, row[1])
