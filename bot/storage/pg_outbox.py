"""The outbox on PostgreSQL (docs/architecture.md "Delivery"): what the bot owes the chats, written
in the command's transaction and claimed by the senders with a lease."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from bot.storage.base import OWED_COLUMNS, OWED_CONTENT, Owed, OwedRow, owed_row, owed_values


def rowcount(status: str) -> int:
    """The row count of a command's status tag ("UPDATE 3" → 3)."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


class PostgresOutbox:
    """The outbox methods of `PostgresRepo` (its connection `_conn`); they never commit."""

    _conn: asyncpg.Connection

    # -- the outbox ----------------------------------------------------------------------------
    async def owe(self, rows: list[Owed]) -> None:
        await self._conn.executemany(
            f"INSERT INTO outbox ({OWED_COLUMNS})"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            [owed_values(owed) for owed in rows],
        )

    async def claim_owed(self, claimant: str, now: float, until: float) -> list[OwedRow]:
        # READ COMMITTED re-checks the outer conditions on a row another sender just changed,
        # so two senders never both claim one row (the subquery alone is not re-read).
        rows = await self._conn.fetch(
            "UPDATE outbox SET claimed_by = $1, claimed_until = $2"
            " WHERE id IN (SELECT MIN(id) FROM outbox WHERE sent_at IS NULL GROUP BY chat_id)"
            " AND sent_at IS NULL AND not_before <= $3"
            " AND (claimed_until IS NULL OR claimed_until < $3)"
            f" RETURNING id, attempts, {OWED_COLUMNS}",
            claimant,
            until,
            now,
        )
        return sorted((owed_row(row) for row in rows), key=lambda r: r.id)

    async def owed_sent(
        self, row_id: int, claimant: str, message_id: int | None, now: float
    ) -> bool:
        status = await self._conn.execute(
            "UPDATE outbox SET sent_at = $1, message_id = $2, claimed_by = NULL,"
            " claimed_until = NULL, body = NULL"
            " WHERE id = $3 AND claimed_by = $4 AND sent_at IS NULL",
            now,
            message_id,
            row_id,
            claimant,
        )
        return rowcount(status) == 1

    async def owed_retry(self, row_id: int, claimant: str, not_before: float, error: str) -> None:
        await self._conn.execute(
            "UPDATE outbox SET attempts = attempts + 1, not_before = $1, error = $2,"
            " claimed_by = NULL, claimed_until = NULL WHERE id = $3 AND claimed_by = $4",
            not_before,
            error[:500],
            row_id,
            claimant,
        )

    async def owed_release(self, row_id: int, claimant: str, not_before: float) -> bool:
        status = await self._conn.execute(
            "UPDATE outbox SET not_before = $1, claimed_by = NULL, claimed_until = NULL"
            " WHERE id = $2 AND claimed_by = $3 AND sent_at IS NULL",
            not_before,
            row_id,
            claimant,
        )
        return rowcount(status) == 1

    async def owed_after(self, chat_id: int, row_id: int, limit: int) -> list[OwedRow]:
        rows = await self._conn.fetch(
            f"SELECT id, attempts, {OWED_COLUMNS} FROM outbox"
            " WHERE chat_id = $1 AND id > $2 AND sent_at IS NULL ORDER BY id LIMIT $3",
            chat_id,
            row_id,
            limit,
        )
        return [owed_row(row) for row in rows]

    async def owed_replace(self, row_id: int, owed: Owed, claimant: str | None = None) -> bool:
        values = owed_values(owed)[1:]  # the chat stays the row's own
        sets = ", ".join(f"{column} = ${n}" for n, column in enumerate(OWED_CONTENT, start=1))
        at = len(OWED_CONTENT)
        claimed = f" AND claimed_by = ${at + 3}" if claimant is not None else ""
        status = await self._conn.execute(
            f"UPDATE outbox SET {sets} WHERE id = ${at + 1} AND chat_id = ${at + 2}"
            f" AND sent_at IS NULL{claimed}",
            *values,
            row_id,
            owed.chat_id,
            *((claimant,) if claimant is not None else ()),
        )
        return rowcount(status) == 1

    async def owed_done(self, row_ids: Sequence[int], now: float) -> int:
        if not row_ids:
            return 0
        status = await self._conn.execute(
            "UPDATE outbox SET sent_at = $1, claimed_by = NULL, claimed_until = NULL, body = NULL"
            " WHERE id = ANY($2::bigint[]) AND sent_at IS NULL",
            now,
            list(row_ids),
        )
        return rowcount(status)

    async def owed_as_text(self, row_id: int) -> None:
        await self._conn.execute("UPDATE outbox SET kind = 'text' WHERE id = $1", row_id)

    async def release_claims(self, claimant: str, keep: Sequence[int] = ()) -> int:
        status = await self._conn.execute(
            "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
            " WHERE claimed_by = $1 AND sent_at IS NULL AND NOT (id = ANY($2::bigint[]))",
            claimant,
            list(keep),
        )
        return rowcount(status)

    async def owed_claimants(self) -> list[str]:
        rows = await self._conn.fetch(
            "SELECT DISTINCT claimed_by FROM outbox WHERE sent_at IS NULL AND claimed_by IS NOT NULL"
        )
        return [str(row[0]) for row in rows]

    async def owed_count(self) -> int:
        return int(await self._conn.fetchval("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL"))

    async def prune_sent(self, before: float) -> int:
        status = await self._conn.execute(
            "DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < $1", before
        )
        return rowcount(status)
