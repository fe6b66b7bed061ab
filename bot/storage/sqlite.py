"""The repository on SQLite through aiosqlite: one connection (WAL) serving one unit of work at a
time under an asyncio lock, writes in `BEGIN IMMEDIATE … COMMIT`; migrations at open."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from bot.domain import PRUNE_BATCH, Fault, StoreBroken
from bot.storage.faults import sqlite_fault
from bot.storage.games import Games
from bot.storage.ledger import Ledger
from bot.storage.log import Log, in_batches, write_probe
from bot.storage.migrations import MIGRATIONS
from bot.storage.outbox import Outbox
from bot.storage.sqlite_trips import SqliteTrips, bound
from bot.storage.tournaments import Tournaments

_DAMAGED = "restore it from a backup, or move it away to start with an empty one"


def _select_one(conn: sqlite3.Connection) -> None:
    conn.execute("SELECT 1").fetchone()


class SqliteRepo(Log, Games, Ledger, Outbox, Tournaments, SqliteTrips):
    """The `Repo` of one unit of work; its methods never commit."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._held = None

    async def lock_chat(self, chat_id: int) -> None:
        """Nothing to do: `BEGIN IMMEDIATE` already makes this the only writer."""


class SqliteStore:
    """The `Store` on one SQLite file; `await SqliteStore.open(path)` creates it and its folder."""

    serial = True  # one connection: one unit of work at a time

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[Any] | None = None
        self._repo = SqliteRepo(db)

    @classmethod
    async def open(cls, path: Path | str) -> SqliteStore:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            # A file that cannot be opened fails here, at once: when aiosqlite's connect fails,
            # its worker thread may outlive the event loop and print a traceback at exit.
            sqlite3.connect(path).close()
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute("PRAGMA synchronous = NORMAL")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA busy_timeout = 5000")
            await migrate(db)
        except BaseException:
            await db.close()
            raise
        return cls(db)

    @asynccontextmanager
    async def _held(self) -> AsyncIterator[SqliteRepo]:
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
        async with self._held() as repo:
            repo.begin()  # held, with the writes, until the unit's first trip (sqlite_trips)
            try:
                yield repo
                await repo.commit()
            except BaseException:
                await repo.rollback()
                raise

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[SqliteRepo]:
        async with self._held() as repo:
            yield repo

    def statement(self) -> AbstractAsyncContextManager[SqliteRepo]:
        """Autocommit: the lock keeps other units out, and one statement is atomic by itself."""
        return self.reading()

    async def check(self) -> None:
        """`PRAGMA quick_check` and a write probe (a row written, deleted, committed), so a
        damaged or read-only file stops the start."""
        try:
            async with self.reading() as repo:
                found = [str(row[0]) for row in await repo._all("PRAGMA quick_check")]
        except sqlite3.DatabaseError as error:
            raise StoreBroken(f"the database is damaged ({error}); {_DAMAGED}") from None
        if found != ["ok"]:
            raise StoreBroken(f"the database is damaged (quick_check: {found[0]}); {_DAMAGED}")
        try:
            await write_probe(self.transaction)
        except sqlite3.DatabaseError as error:
            raise StoreBroken(
                f"the database takes no writes ({error}); check the file's and its"
                " folder's permissions and the free disk space"
            ) from None

    async def ping(self) -> None:
        """`SELECT 1` in one trip, without the store's lock: it waits for the statement running
        in the connection's thread, never for a unit of work, and reads no table."""
        await self._repo._go(_select_one)

    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int:
        return await in_batches(self.transaction, before, batch)

    def fault(self, error: BaseException) -> Fault | None:
        return sqlite_fault(error)

    async def close(self) -> None:
        await self._db.close()


async def schema_version(db: aiosqlite.Connection) -> int:
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations"
        " (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    async with db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(db: aiosqlite.Connection) -> int:
    """Run the migrations not yet applied, each in its own transaction; returns the version."""
    version = await schema_version(db)
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"database schema {version} is newer than this program ({len(MIGRATIONS)})"
        )
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        (stamp,) = bound((datetime.now(UTC),))
        try:
            await db.executescript(
                f"BEGIN IMMEDIATE;\n{script}\n"
                f"INSERT INTO schema_migrations (version, applied_at) VALUES ({number}, '{stamp}');\n"
                "COMMIT;"
            )
        except BaseException:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)
