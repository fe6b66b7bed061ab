"""Trips to the SQLite connection's thread, as few as a unit of work allows: each costs some 45 µs
against a statement's 5 µs, so inside a transaction writes wait and go with the next read or the
`COMMIT` (a write that fails then fails that trip, still inside the transaction)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import aiosqlite

from bot.storage.sql import Row, Statements

Statement = tuple[str, Sequence[object] | Iterable[Sequence[object]], bool]  # sql, args, many
Want = Literal["rows", "count", "nothing"]


def bound(args: Sequence[object]) -> tuple[object, ...]:
    """The arguments as SQLite keeps them: a time as ISO text in UTC, so that text compares as
    the times do."""
    return tuple(
        a.astimezone(UTC).isoformat(timespec="microseconds") if isinstance(a, datetime) else a
        for a in args
    )


def _run(conn: sqlite3.Connection, statements: list[Statement], want: Want) -> Any:
    """In the connection's thread: the statements in order; the last one's answer."""
    answer: Any = None
    for index, (sql, args, many) in enumerate(statements):
        cursor = conn.executemany(sql, args) if many else conn.execute(sql, args)  # type: ignore[arg-type]
        try:
            if index == len(statements) - 1:
                if want == "rows":
                    answer = cursor.fetchall()
                elif want == "count":
                    answer = cursor.rowcount
        finally:
            cursor.close()
    return answer


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


class SqliteTrips(Statements):
    """The statements of a repository on `_db`, writes held back while `begin()` is in force."""

    _db: aiosqlite.Connection
    _held: list[Statement] | None = None  # None: outside a transaction, every write goes now

    async def _trip(self, statement: Statement, want: Want) -> Any:
        """The statements held, then `statement`, in one trip; its answer."""
        statements = [*(self._held or ()), statement]
        if self._held is not None:
            self._held = []
        return await self._go(_run, statements, want)

    async def _go(self, work: Callable[..., Any], *args: object) -> Any:
        """`work(connection, *args)` in the connection's thread: one trip. aiosqlite has no
        public call for it; `_execute` is what each of its own methods is made of (aiosqlite is
        pinned in pyproject.toml, and every storage test goes through here)."""
        return await self._db._execute(work, self._db._conn, *args)  # type: ignore[no-untyped-call]

    async def _all(self, sql: str, *args: object) -> list[Row]:
        return list(await self._trip((sql, bound(args), False), "rows"))

    async def _count(self, sql: str, *args: object) -> int:
        return int(await self._trip((sql, bound(args), False), "count"))

    async def _hold(self, statement: Statement) -> None:
        """A statement whose answer nobody reads: held in a transaction, run now outside one."""
        if self._held is not None:
            self._held.append(statement)
        else:
            await self._trip(statement, "nothing")

    async def _write(self, sql: str, *args: object) -> None:
        await self._hold((sql, bound(args), False))

    async def _write_many(self, sql: str, rows: list[Sequence[object]]) -> None:
        await self._hold((sql, [bound(row) for row in rows], True))

    # -- the transaction -------------------------------------------------------------------
    def begin(self) -> None:
        """`BEGIN IMMEDIATE`, held with the writes until the first trip."""
        self._held = [("BEGIN IMMEDIATE", (), False)]

    async def commit(self) -> None:
        await self._trip(("COMMIT", (), False), "nothing")
        self._held = None

    async def rollback(self) -> None:
        """What was held is dropped; what went is rolled back (if the `BEGIN` itself went)."""
        self._held = None
        await self._go(_rollback)
