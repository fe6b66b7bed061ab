"""The repository on SQLite through aiosqlite: one connection (WAL) serving one unit of work at a
time under an asyncio lock, writes in `BEGIN IMMEDIATE … COMMIT`; migrations at open.

Trips to the connection's thread are as few as a unit of work allows: each costs some 45 µs
against a statement's 5 µs, so inside a transaction writes wait and go with the next read or the
`COMMIT` (a write that fails then fails that trip, still inside the transaction)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import aiosqlite

from bot.domain import Fault, StoreBroken
from bot.storage.games import Games
from bot.storage.ledger import Ledger
from bot.storage.log import Log, Upkeep
from bot.storage.migrations import MIGRATIONS
from bot.storage.outbox import Outbox
from bot.storage.sql import Row

# Each fault: the error names (`sqlite_errorname`) and, without one, the words of the message.
_FAULTS: Final = {
    Fault.TRANSIENT: (
        ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_PROTOCOL"),
        ("database is locked", "database table is locked", "busy"),
    ),
    Fault.UNWRITABLE: (
        ("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_CANTOPEN"),
        ("disk is full", "readonly", "read-only", "disk i/o error"),
    ),
}
_DAMAGED: Final = "restore it from a backup, or move it away to start with an empty one"


# The sql and its arguments: a tuple for one run, a list of them for `executemany`.
Statement = tuple[str, tuple[object, ...] | list[tuple[object, ...]]]


def bound(args: Sequence[object]) -> tuple[object, ...]:
    """The arguments as SQLite keeps them: times as ISO text in UTC, which compares as they do."""
    return tuple(
        a.astimezone(UTC).isoformat(timespec="microseconds") if isinstance(a, datetime) else a
        for a in args
    )


def _run(conn: sqlite3.Connection, statements: list[Statement], rows: bool) -> Any:
    """In the connection's thread: the statements in order; the last one's rows or row count."""
    answer: Any = None
    for sql, args in statements:
        run = conn.executemany if isinstance(args, list) else conn.execute
        with closing(run(sql, args)) as cursor:  # type: ignore[arg-type]
            answer = cursor.fetchall() if rows else cursor.rowcount
    return answer


class SqliteRepo(Log, Games, Ledger, Outbox):
    """The `Repo` of one unit of work (its methods never commit); a transaction's writes held."""

    _held: list[Statement] | None = None  # None: outside a transaction, every write goes now

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def lock_chat(self, chat_id: int) -> None:
        """Nothing to do: `BEGIN IMMEDIATE` already makes this the only writer."""

    async def _trip(self, statement: Statement, rows: bool = False) -> Any:
        """The statements held, then `statement`, in one trip; its answer."""
        statements = [*(self._held or ()), statement]
        if self._held is not None:
            self._held = []
        return await self._go(_run, statements, rows)

    async def _go(self, work: Callable[..., Any], *args: object) -> Any:
        """`work(connection, *args)` in the connection's thread: one trip. aiosqlite has no
        public call for it; `_execute` is what each of its own methods is made of (aiosqlite is
        pinned in pyproject.toml, and every storage test goes through here)."""
        return await self._db._execute(work, self._db._conn, *args)  # type: ignore[no-untyped-call]

    async def _all(self, sql: str, *args: object) -> list[Row]:
        return list(await self._trip((sql, bound(args)), rows=True))

    async def _count(self, sql: str, *args: object) -> int:
        return int(await self._trip((sql, bound(args))))

    async def _hold(self, statement: Statement) -> None:
        """A statement whose answer nobody reads: held in a transaction, run now outside one."""
        if self._held is not None:
            self._held.append(statement)
        else:
            await self._trip(statement)

    async def _write(self, sql: str, *args: object) -> None:
        await self._hold((sql, bound(args)))

    async def _write_many(self, sql: str, rows: list[Sequence[object]]) -> None:
        await self._hold((sql, [bound(row) for row in rows]))


class SqliteStore(Upkeep):
    """The `Store` on one SQLite file; `await SqliteStore.open(path)` creates it and its folder."""

    serial = True  # one connection: one unit of work at a time

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[Any] | None = None
        self._repo = SqliteRepo(db)

    @classmethod
    async def open(cls, path: Path | str) -> SqliteStore:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        # A file that cannot be opened fails here, at once: when aiosqlite's connect fails,
        # its worker thread may outlive the event loop and print a traceback at exit.
        sqlite3.connect(path).close()
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            await db.executescript(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                " PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;"
            )
            await migrate(db)
        except BaseException:
            await db.close()
            raise
        return cls(db)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[SqliteRepo]:
        """The one connection, for one unit of work at a time; a task holding it that asks again
        would wait for ever, so it is told to use its own (`bot.core.uow.UnitOfWork.reading`)."""
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            raise RuntimeError("the store is held by this task's own unit of work: use it")
        async with self._lock:
            self._holder = task
            try:
                yield self._repo
            finally:
                self._holder = None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteRepo]:
        async with self.reading() as repo:
            repo._held = [("BEGIN IMMEDIATE", ())]  # held, with the writes, until the first trip
            try:
                yield repo
                await repo._trip(("COMMIT", ()))
            except BaseException:  # what went is rolled back (if the `BEGIN` itself went)
                await repo._go(sqlite3.Connection.rollback)
                raise
            finally:
                repo._held = None

    # Autocommit: the lock keeps other units out, and one statement is atomic by itself.
    statement = reading

    async def check(self) -> None:
        """`PRAGMA quick_check` and a write probe: a damaged or read-only file stops the start."""
        try:
            async with self.reading() as repo:
                found = [str(row[0]) for row in await repo._all("PRAGMA quick_check")]
        except sqlite3.DatabaseError as error:
            raise StoreBroken(f"the database is damaged ({error}); {_DAMAGED}") from None
        if found != ["ok"]:
            raise StoreBroken(f"the database is damaged (quick_check: {found[0]}); {_DAMAGED}")
        hint = "; check the file's and its folder's permissions and the free disk space"
        await self._write_probe((sqlite3.DatabaseError,), hint)

    async def ping(self) -> None:
        """`SELECT 1` in one trip, without the store's lock: it waits for the statement running
        in the connection's thread, never for a unit of work, and reads no table."""
        await self._repo._go(lambda conn: conn.execute("SELECT 1").fetchone())

    def fault(self, error: BaseException) -> Fault | None:
        if not isinstance(error, sqlite3.Error):
            return None
        name = str(getattr(error, "sqlite_errorname", ""))
        named, text = name.startswith("SQLITE_"), str(error).casefold()
        for fault, (names, words) in _FAULTS.items():
            if name.startswith(names) if named else any(word in text for word in words):
                return fault
        return None

    async def close(self) -> None:
        await self._db.close()


async def migrate(db: aiosqlite.Connection) -> None:
    """Run the migrations not yet applied, each in its own transaction (one that fails is rolled
    back as `SqliteStore.open` closes the connection)."""
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations"
        " (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    async with db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cursor:
        (version,) = await cursor.fetchone() or (0,)
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"database schema {version} is newer than this program ({len(MIGRATIONS)})"
        )
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        (stamp,) = bound((datetime.now(UTC),))
        await db.executescript(
            f"BEGIN IMMEDIATE;\n{script}\n"
            f"INSERT INTO schema_migrations (version, applied_at) VALUES ({number}, '{stamp}');\n"
            "COMMIT;"
        )
