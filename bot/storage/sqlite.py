"""The repository on SQLite through aiosqlite: one connection, WAL, migrations at open.

One connection serves the whole bot, so one unit of work runs at a time (an asyncio lock); SQLite has a
single writer anyway. Units that write run in `BEGIN IMMEDIATE … COMMIT`.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from bot.storage.base import PRUNE_BATCH, EventRow, Fault, StoreBroken, same_update
from bot.storage.faults import sqlite_fault
from bot.storage.migrations import EVENT_SCHEMA_VERSION, MIGRATIONS
from bot.storage.sqlite_archive import SqliteArchive
from bot.storage.sqlite_games import SqliteGames
from bot.storage.sqlite_ledger import SqliteLedger
from bot.storage.sqlite_outbox import SqliteOutbox
from bot.storage.sqlite_tournaments import SqliteTournaments

_DAMAGED = "restore it from a backup, or move it away to start with an empty one"


def _time(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _select_one(conn: sqlite3.Connection) -> None:
    conn.execute("SELECT 1").fetchone()


class SqliteRepo(SqliteGames, SqliteArchive, SqliteLedger, SqliteOutbox, SqliteTournaments):
    """The `Repo` of one unit of work; its methods never commit."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._held = None

    async def prune_updates(self, before: datetime, batch: int) -> int:
        """Up to `batch` of the oldest processed updates before `before` forgotten; how many."""
        return await self._count(
            "DELETE FROM processed_updates WHERE update_id IN (SELECT update_id"
            " FROM processed_updates WHERE at < ? ORDER BY at LIMIT ?)",
            _time(before),
            batch,
        )

    async def lock_chat(self, chat_id: int) -> None:
        """Nothing to do: `BEGIN IMMEDIATE` already makes this the only writer."""

    async def update_seen(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        row = await self._one(
            "SELECT chat_id, message_id FROM processed_updates WHERE update_id = ?", update_id
        )
        return row is not None and same_update(update_id, (row[0], row[1]), chat_id, message_id)

    async def mark_update(
        self,
        update_id: int,
        at: datetime,
        chat_id: int | None = None,
        message_id: int | None = None,
    ) -> None:
        if chat_id is not None:  # an older update's row with this id goes (`same_update`)
            await self._write(
                "DELETE FROM processed_updates WHERE update_id = ? AND chat_id IS NOT NULL"
                " AND (chat_id IS NOT ? OR message_id IS NOT ?)",
                update_id,
                chat_id,
                message_id,
            )
        await self._write(
            "INSERT INTO processed_updates (update_id, at, chat_id, message_id)"
            " VALUES (?, ?, ?, ?)",
            update_id,
            _time(at),
            chat_id,
            message_id,
        )

    async def append(
        self,
        game_id: int,
        kind: str,
        payload: dict[str, Any],
        author: int | None,
        at: datetime,
    ) -> EventRow:
        row = await self._one(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", game_id
        )
        assert row is not None
        seq = int(row[0])
        await self._write(
            "INSERT INTO events (game_id, seq, kind, payload, author, at, schema_version)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            game_id,
            seq,
            kind,
            json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
            author,
            _time(at),
            EVENT_SCHEMA_VERSION,
        )
        return EventRow(game_id, seq, kind, payload, author, at, EVENT_SCHEMA_VERSION)

    async def events(self, game_id: int, after: int = 0) -> list[EventRow]:
        rows = await self._all(
            "SELECT seq, kind, payload, author, at, schema_version FROM events"
            " WHERE game_id = ? AND seq > ? ORDER BY seq",
            game_id,
            after,
        )
        return [
            EventRow(game_id, seq, kind, json.loads(payload), author, _parse_time(at), version)
            for seq, kind, payload, author, at, version in rows
        ]

    async def snapshot(self, game_id: int) -> tuple[int, str, bytes] | None:
        row = await self._one(
            "SELECT seq, version, data FROM snapshots WHERE game_id = ?", game_id
        )
        return (int(row[0]), str(row[1]), bytes(row[2])) if row else None

    async def put_snapshot(
        self, game_id: int, seq: int, version: str, data: bytes, at: datetime
    ) -> None:
        await self._write(
            "INSERT INTO snapshots (game_id, seq, version, data, at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
            " version = excluded.version, data = excluded.data, at = excluded.at"
            " WHERE excluded.seq > snapshots.seq OR excluded.version != snapshots.version",
            game_id,
            seq,
            version,
            data,
            _time(at),
        )

    async def count_events(self) -> int:
        row = await self._one("SELECT COUNT(*) FROM events")
        return int(row[0]) if row else 0

    async def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        await self._write(
            "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
            " expires_at = excluded.expires_at"
            " WHERE leases.holder = excluded.holder OR leases.expires_at <= ?",
            name,
            holder,
            _time(until),
            _time(now),
        )
        row = await self._one("SELECT holder FROM leases WHERE name = ?", name)
        return row is not None and row[0] == holder

    async def release_lease(self, name: str, holder: str) -> None:
        await self._write("DELETE FROM leases WHERE name = ? AND holder = ?", name, holder)

    async def lease_holder(self, name: str, now: datetime) -> str | None:
        row = await self._one(
            "SELECT holder FROM leases WHERE name = ? AND expires_at > ?", name, _time(now)
        )
        return str(row[0]) if row else None

    async def fsm_state(self, key: str) -> str | None:
        row = await self._one("SELECT state FROM fsm WHERE key = ?", key)
        return str(row[0]) if row and row[0] is not None else None

    async def set_fsm_state(self, key: str, state: str | None) -> None:
        await self._write(
            "INSERT INTO fsm (key, state) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET state = excluded.state",
            key,
            state,
        )

    async def fsm_data(self, key: str) -> dict[str, Any]:
        row = await self._one("SELECT data FROM fsm WHERE key = ?", key)
        return dict(json.loads(row[0])) if row else {}

    async def set_fsm_data(self, key: str, data: dict[str, Any]) -> None:
        await self._write(
            "INSERT INTO fsm (key, data) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET data = excluded.data",
            key,
            json.dumps(data, ensure_ascii=False, separators=(",", ":")),
        )


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
        """The one connection, for one unit of work at a time. A task that asks for it while it
        holds it would wait for itself for ever: it is told to read through the unit of work it
        holds (`bot.core.uow.UnitOfWork.reading`) instead."""
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
        """Autocommit: the connection's lock keeps other units' statements out, and a single
        statement is atomic in SQLite by itself."""
        return self.reading()

    async def check(self) -> None:
        """`PRAGMA quick_check` (every page readable, every index consistent) and a write probe
        (a row written and deleted, committed), so a damaged or read-only file stops the start."""
        async with self._lock:
            try:
                async with self._db.execute("PRAGMA quick_check") as cursor:
                    found = [str(row[0]) for row in await cursor.fetchall()]
            except sqlite3.DatabaseError as error:
                raise StoreBroken(f"the database is damaged ({error}); {_DAMAGED}") from None
            if found != ["ok"]:
                raise StoreBroken(f"the database is damaged (quick_check: {found[0]}); {_DAMAGED}")
            try:
                await self._db.execute("BEGIN IMMEDIATE")
                try:
                    await self._db.execute(
                        "INSERT OR REPLACE INTO processed_updates (update_id, at) VALUES (-1, '')"
                    )
                    await self._db.execute("DELETE FROM processed_updates WHERE update_id = -1")
                except BaseException:
                    await self._db.execute("ROLLBACK")
                    raise
                await self._db.execute("COMMIT")
            except sqlite3.DatabaseError as error:
                raise StoreBroken(
                    f"the database takes no writes ({error}); check the file's and its"
                    " folder's permissions and the free disk space"
                ) from None

    async def ping(self) -> None:
        """`SELECT 1` in one trip to the connection's thread, without the store's lock: it waits
        for the statement running there, never for a unit of work, and holds nothing (a unit's
        open transaction is left as it is: the statement reads no table)."""
        await self._repo._go(_select_one)

    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int:
        gone = 0
        while True:
            async with self.transaction() as repo:
                count = await repo.prune_updates(before, batch)
            gone += max(count, 0)
            if count < batch:
                return gone

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
        stamp = _time(datetime.now(UTC))
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
