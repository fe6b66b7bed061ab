"""The outbox (docs/architecture.md "Delivery"), on either database: what the bot owes the chats,
and the senders' claims on it."""

from collections.abc import Sequence
from dataclasses import astuple, fields

from bot.domain import Owed, OwedKind, OwedRow
from bot.storage.sql import Row, Statements, marks

_FIELDS = tuple(field.name for field in fields(Owed))  # the outbox's columns are its fields
OWED_COLUMNS = ", ".join(_FIELDS)
_UNCLAIMED = "claimed_by = NULL, claimed_until = NULL"


def owed_row(row: Row) -> OwedRow:
    """An `OwedRow` from `id, attempts, <OWED_COLUMNS>` (either backend's row)."""
    chat_id, kind, *rest = row[2:]
    return OwedRow(row[0], Owed(chat_id, OwedKind(kind), *rest), row[1])


class Outbox(Statements):
    """The outbox methods of the `Repo`; they never commit."""

    async def owe(self, rows: list[Owed]) -> None:
        sql = f"INSERT INTO outbox ({OWED_COLUMNS}) VALUES ({marks(len(_FIELDS))})"
        # an `Owed` as its columns' values: its kind, a StrEnum, binds as the text it is
        await self._write_many(sql, [astuple(owed) for owed in rows])

    async def claim_owed(self, claimant: str, now: float, until: float) -> list[OwedRow]:
        # PostgreSQL's READ COMMITTED re-checks the outer conditions on a row another sender just
        # changed, so two senders never both claim one row (the subquery alone is not re-read).
        sql = (
            "UPDATE outbox SET claimed_by = ?, claimed_until = ?"
            " WHERE id IN (SELECT MIN(id) FROM outbox WHERE sent_at IS NULL GROUP BY chat_id)"
            " AND sent_at IS NULL AND not_before <= ?"
            " AND (claimed_until IS NULL OR claimed_until < ?)"
            f" RETURNING id, attempts, {OWED_COLUMNS}"
        )
        rows = await self._all(sql, claimant, until, now, now)
        return sorted((owed_row(row) for row in rows), key=lambda r: r.id)

    async def owed_sent(
        self, row_id: int, claimant: str, message_id: int | None, now: float
    ) -> bool:
        sql = (
            f"UPDATE outbox SET sent_at = ?, message_id = ?, {_UNCLAIMED}, body = NULL"
            " WHERE id = ? AND claimed_by = ? AND sent_at IS NULL"
        )
        return await self._count(sql, now, message_id, row_id, claimant) == 1

    async def owed_retry(self, row_id: int, claimant: str, not_before: float, error: str) -> None:
        sql = (
            "UPDATE outbox SET attempts = attempts + 1, not_before = ?, error = ?,"
            f" {_UNCLAIMED} WHERE id = ? AND claimed_by = ?"
        )
        await self._write(sql, not_before, error[:500], row_id, claimant)

    async def owed_release(self, row_id: int, claimant: str, not_before: float) -> bool:
        sql = (
            f"UPDATE outbox SET not_before = ?, {_UNCLAIMED}"
            " WHERE id = ? AND claimed_by = ? AND sent_at IS NULL"
        )
        return await self._count(sql, not_before, row_id, claimant) == 1

    async def owed_after(self, chat_id: int, row_id: int, limit: int) -> list[OwedRow]:
        sql = (
            f"SELECT id, attempts, {OWED_COLUMNS} FROM outbox"
            " WHERE chat_id = ? AND id > ? AND sent_at IS NULL ORDER BY id LIMIT ?"
        )
        return [owed_row(row) for row in await self._all(sql, chat_id, row_id, limit)]

    async def owed_replace(self, row_id: int, owed: Owed, claimant: str | None = None) -> bool:
        sets = ", ".join(f"{column} = ?" for column in _FIELDS[1:])
        claimed = " AND claimed_by = ?" if claimant is not None else ""
        sql = f"UPDATE outbox SET {sets} WHERE id = ? AND chat_id = ? AND sent_at IS NULL{claimed}"
        by = (claimant,) if claimant is not None else ()
        return await self._count(sql, *astuple(owed)[1:], row_id, owed.chat_id, *by) == 1

    async def owed_done(self, row_ids: Sequence[int], now: float) -> int:
        sql = (
            f"UPDATE outbox SET sent_at = ?, {_UNCLAIMED}, body = NULL"
            f" WHERE id IN ({marks(len(row_ids))}) AND sent_at IS NULL"
        )
        return await self._count(sql, now, *row_ids)

    async def owed_as_text(self, row_id: int) -> None:
        await self._write("UPDATE outbox SET kind = 'text' WHERE id = ?", row_id)

    async def release_claims(self, claimant: str, keep: Sequence[int] = ()) -> int:
        kept = f" AND id NOT IN ({marks(len(keep))})" if keep else ""
        sql = f"UPDATE outbox SET {_UNCLAIMED} WHERE claimed_by = ? AND sent_at IS NULL{kept}"
        return await self._count(sql, claimant, *keep)

    async def owed_claimants(self) -> list[str]:
        sql = (
            "SELECT DISTINCT claimed_by FROM outbox"
            " WHERE sent_at IS NULL AND claimed_by IS NOT NULL"
        )
        return [str(row[0]) for row in await self._all(sql)]

    async def owed_count(self) -> int:
        row = await self._one("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL")
        return int(row[0]) if row else 0

    async def prune_sent(self, before: float) -> int:
        sql = "DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?"
        return await self._count(sql, before)
