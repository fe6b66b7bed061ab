"""What the queries of both databases are written against: one text per operation, `?` for each
argument (`bot.storage.postgres` numbers them), and the few statement calls each backend provides."""

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final, Protocol

Row = Sequence[Any]
IN_BATCH: Final = 500  # ids per `IN (…)`: far below SQLite's limit of bound variables


def when(value: str | datetime) -> datetime:
    """A stored time: SQLite keeps ISO text (UTC, `sqlite.bound`), PostgreSQL a timestamptz."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def marks(count: int) -> str:
    """`?, ?, …` for an `IN (…)` of `count` values (`NULL` for none: it matches no row)."""
    return ", ".join("?" * count) or "NULL"


class Statements(Protocol):
    """The statement calls a repository's queries use; a backend's repository provides them.
    Writes whose answer nobody reads go through `_write`, so SQLite may hold them back."""

    async def _all(self, sql: str, *args: object) -> list[Row]: ...
    async def _count(self, sql: str, *args: object) -> int: ...  # how many rows it changed
    async def _write(self, sql: str, *args: object) -> None: ...
    async def _write_many(self, sql: str, rows: list[Sequence[object]]) -> None: ...

    async def _one(self, sql: str, *args: object) -> Row | None:
        rows = await self._all(sql, *args)
        return rows[0] if rows else None

    async def _upsert(
        self, table: str, key: tuple[str, object], column: str, value: object
    ) -> None:
        """`column` of the row of `table` whose key is `key` (name, value) set to `value`."""
        sql = (
            f"INSERT INTO {table} ({key[0]}, {column}) VALUES (?, ?)"
            f" ON CONFLICT ({key[0]}) DO UPDATE SET {column} = excluded.{column}"
        )
        await self._write(sql, key[1], value)
