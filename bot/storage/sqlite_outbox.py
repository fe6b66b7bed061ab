"""The outbox on SQLite (docs/architecture.md "Delivery"): what the bot owes the chats, written in
the command's transaction and claimed by the senders with a lease."""

from __future__ import annotations

from bot.storage.base import OWED_COLUMNS, Owed, OwedRow, owed_row, owed_values
from bot.storage.sqlite_trips import SqliteTrips


class SqliteOutbox(SqliteTrips):
    """The outbox methods of `SqliteRepo`; they never commit."""

    # -- the outbox ----------------------------------------------------------------------------
    async def owe(self, rows: list[Owed]) -> None:
        await self._write_many(
            f"INSERT INTO outbox ({OWED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [owed_values(owed) for owed in rows],
        )

    async def claim_owed(self, claimant: str, now: float, until: float) -> list[OwedRow]:
        rows = await self._all(
            "UPDATE outbox SET claimed_by = ?, claimed_until = ?"
            " WHERE id IN (SELECT MIN(id) FROM outbox WHERE sent_at IS NULL GROUP BY chat_id)"
            " AND sent_at IS NULL AND not_before <= ?"
            " AND (claimed_until IS NULL OR claimed_until < ?)"
            f" RETURNING id, attempts, {OWED_COLUMNS}",
            claimant,
            until,
            now,
            now,
        )
        return sorted((owed_row(row) for row in rows), key=lambda r: r.id)

    async def owed_sent(
        self, row_id: int, claimant: str, message_id: int | None, now: float
    ) -> bool:
        changed = await self._count(
            "UPDATE outbox SET sent_at = ?, message_id = ?, claimed_by = NULL,"
            " claimed_until = NULL, body = NULL WHERE id = ? AND claimed_by = ? AND sent_at IS NULL",
            now,
            message_id,
            row_id,
            claimant,
        )
        return changed == 1

    async def owed_retry(self, row_id: int, claimant: str, not_before: float, error: str) -> None:
        await self._write(
            "UPDATE outbox SET attempts = attempts + 1, not_before = ?, error = ?,"
            " claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?",
            not_before,
            error[:500],
            row_id,
            claimant,
        )

    async def owed_as_text(self, row_id: int) -> None:
        await self._write("UPDATE outbox SET kind = 'text' WHERE id = ?", row_id)

    async def release_claims(self, claimant: str) -> int:
        return await self._count(
            "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
            " WHERE claimed_by = ? AND sent_at IS NULL",
            claimant,
        )

    async def owed_claimants(self) -> list[str]:
        rows = await self._all(
            "SELECT DISTINCT claimed_by FROM outbox WHERE sent_at IS NULL AND claimed_by IS NOT NULL"
        )
        return [row[0] for row in rows]

    async def owed_count(self) -> int:
        row = await self._one("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL")
        return int(row[0]) if row else 0

    async def prune_sent(self, before: float) -> int:
        return await self._count(
            "DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?", before
        )
