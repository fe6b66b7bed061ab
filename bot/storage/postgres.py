"""The repository on PostgreSQL through asyncpg: a pool, one transaction per unit of work (READ
COMMITTED writing, a REPEATABLE READ read-only snapshot looking), a chat's units serialised across
processes by `lock_chat`'s advisory lock; migrations at open."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Final

import asyncpg

from bot.domain import Fault
from bot.storage.games import Games
from bot.storage.ledger import Ledger
from bot.storage.log import Log, Upkeep
from bot.storage.migrations import PG_MIGRATIONS
from bot.storage.outbox import Outbox
from bot.storage.sql import Row

# The key of the advisory lock taken while migrating (any bigint no chat id can be: chat ids are
# below 2**52 in magnitude).
MIGRATION_LOCK: Final = 0x7072_6566_6D69_6772  # "prefmigr"
_PG_TRANSIENT: Final = ("08", "57", "40", "53300", "55P03")
_PG_UNWRITABLE: Final = ("53100", "25006")
_PG_CONNECTION_GONE: Final = ("closed", "another operation")


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """The query with its `?` as PostgreSQL's `$1`, `$2`, …; no query has a `?` of its own."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], start=1))


class PostgresRepo(Log, Games, Ledger, Outbox):
    """The `Repo` of one unit of work on one connection; its methods never commit."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def _all(self, sql: str, *args: object) -> list[Row]:
        return list(await self._conn.fetch(numbered(sql), *args))

    async def _count(self, sql: str, *args: object) -> int:
        status = await self._conn.execute(numbered(sql), *args)  # its tag: "UPDATE 3", "DELETE 0"
        return int(status.rsplit(" ", 1)[-1])

    async def _write(self, sql: str, *args: object) -> None:
        await self._conn.execute(numbered(sql), *args)

    async def _write_many(self, sql: str, rows: list[Sequence[object]]) -> None:
        await self._conn.executemany(numbered(sql), rows)

    async def lock_chat(self, chat_id: int) -> None:
        """Wait for, then hold until this transaction ends, the chat's advisory lock."""
        await self._conn.execute("SELECT pg_advisory_xact_lock($1)", chat_id)


class PostgresStore(Upkeep):
    """The `Store` on a PostgreSQL database; `await PostgresStore.open(url)` migrates it."""

    serial = False  # a pool: units of work of different chats (and instances) run at once

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, url: str, pool_size: int = 10) -> PostgresStore:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size)
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool)

    @asynccontextmanager
    async def _unit(self, **options: object) -> AsyncIterator[PostgresRepo]:
        async with self._pool.acquire() as conn, conn.transaction(**options):
            yield PostgresRepo(conn)

    def transaction(self) -> AbstractAsyncContextManager[PostgresRepo]:
        return self._unit()

    statement = transaction

    def reading(self) -> AbstractAsyncContextManager[PostgresRepo]:
        return self._unit(isolation="repeatable_read", readonly=True)

    def connection(self) -> AbstractAsyncContextManager[asyncpg.Connection]:
        """A raw connection from the pool (tests, benchmarks)."""
        return self._pool.acquire()  # type: ignore[no-any-return]

    async def check(self) -> None:
        """A write probe, so a read-only server (a standby, a read-only default) stops the start."""
        await self._write_probe((OSError, asyncpg.PostgresError, asyncpg.InterfaceError))

    async def ping(self) -> None:
        await self._pool.fetchval("SELECT 1")

    def fault(self, error: BaseException) -> Fault | None:
        if isinstance(error, asyncpg.PostgresError):
            state = str(getattr(error, "sqlstate", "") or "")
            if state.startswith(_PG_UNWRITABLE):
                return Fault.UNWRITABLE
            return Fault.TRANSIENT if state.startswith(_PG_TRANSIENT) else None
        if isinstance(error, asyncpg.InterfaceError | asyncpg.exceptions.InternalClientError):
            # A connection terminated under asyncpg: closed, or left mid-operation (its next
            # statement finds "another operation in progress").
            return Fault.TRANSIENT if any(w in str(error) for w in _PG_CONNECTION_GONE) else None
        # refused, reset: the server is not reachable
        return Fault.TRANSIENT if isinstance(error, OSError | TimeoutError) else None

    async def close(self) -> None:
        await self._pool.close()


async def migrate(conn: asyncpg.Connection) -> int:
    """Run the migrations not yet applied, each in its own transaction under an advisory lock (so
    instances starting together migrate once); returns the version."""
    while True:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations"
                " (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)"
            )
            version = await conn.fetchval(
                "SELECT COALESCE(MAX(version), 0) FROM schema_migrations"
            )
            if version > len(PG_MIGRATIONS):
                raise RuntimeError(
                    f"database schema {version} is newer than this program ({len(PG_MIGRATIONS)})"
                )
            if version == len(PG_MIGRATIONS):
                return int(version)
            await conn.execute(PG_MIGRATIONS[version])
            sql = "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())"
            await conn.execute(sql, version + 1)
