"""The repository on PostgreSQL through asyncpg: a pool of connections, migrations at open.

Each unit of work takes a connection from the pool and runs in one transaction (READ COMMITTED for
writing, a REPEATABLE READ read-only snapshot for looking), so commands of different chats run in
parallel. Commands of one chat are serialised, across processes too, by `lock_chat`: a transaction
advisory lock on the chat id, released by the commit or the rollback. `DATABASE_URL` is
`postgresql://USER[:PASSWORD]@HOST:PORT/DBNAME`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bot.redact import masked_url as masked_url  # the one mask, kept importable here
from bot.storage.base import PRUNE_BATCH, EventRow, Fault, StoreBroken, same_update
from bot.storage.faults import postgres_fault
from bot.storage.migrations import EVENT_SCHEMA_VERSION
from bot.storage.pg_archive import PostgresArchive
from bot.storage.pg_games import PostgresGames
from bot.storage.pg_ledger import PostgresLedger
from bot.storage.pg_migrations import MIGRATION_LOCK, PG_MIGRATIONS
from bot.storage.pg_outbox import PostgresOutbox, rowcount
from bot.storage.pg_tournaments import PostgresTournaments

POOL_SIZE = 10


def _payload(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


class PostgresRepo(
    PostgresGames, PostgresArchive, PostgresLedger, PostgresOutbox, PostgresTournaments
):
    """The `Repo` of one unit of work on one connection; its methods never commit."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def lock_chat(self, chat_id: int) -> None:
        """Wait for, then hold until this transaction ends, the chat's advisory lock."""
        await self._conn.execute("SELECT pg_advisory_xact_lock($1)", chat_id)

    async def update_seen(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        row = await self._conn.fetchrow(
            "SELECT chat_id, message_id FROM processed_updates WHERE update_id = $1", update_id
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
            await self._conn.execute(
                "DELETE FROM processed_updates WHERE update_id = $1 AND chat_id IS NOT NULL"
                " AND (chat_id IS DISTINCT FROM $2 OR message_id IS DISTINCT FROM $3)",
                update_id,
                chat_id,
                message_id,
            )
        await self._conn.execute(
            "INSERT INTO processed_updates (update_id, at, chat_id, message_id)"
            " VALUES ($1, $2, $3, $4)",
            update_id,
            at,
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
        seq = await self._conn.fetchval(
            "INSERT INTO events (game_id, seq, kind, payload, author, at, schema_version)"
            " SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3::json, $4, $5, $6"
            " FROM events WHERE game_id = $1 RETURNING seq",
            game_id,
            kind,
            _payload(payload),
            author,
            at,
            EVENT_SCHEMA_VERSION,
        )
        return EventRow(game_id, int(seq), kind, payload, author, at, EVENT_SCHEMA_VERSION)

    async def events(self, game_id: int, after: int = 0) -> list[EventRow]:
        rows = await self._conn.fetch(
            "SELECT seq, kind, payload::text, author, at, schema_version FROM events"
            " WHERE game_id = $1 AND seq > $2 ORDER BY seq",
            game_id,
            after,
        )
        return [
            EventRow(game_id, seq, kind, json.loads(payload), author, at, version)
            for seq, kind, payload, author, at, version in rows
        ]

    async def snapshot(self, game_id: int) -> tuple[int, str, bytes] | None:
        row = await self._conn.fetchrow(
            "SELECT seq, version, data FROM snapshots WHERE game_id = $1", game_id
        )
        return (int(row["seq"]), str(row["version"]), bytes(row["data"])) if row else None

    async def put_snapshot(
        self, game_id: int, seq: int, version: str, data: bytes, at: datetime
    ) -> None:
        await self._conn.execute(
            "INSERT INTO snapshots (game_id, seq, version, data, at) VALUES ($1, $2, $3, $4, $5)"
            " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
            " version = excluded.version, data = excluded.data, at = excluded.at"
            " WHERE excluded.seq > snapshots.seq OR excluded.version != snapshots.version",
            game_id,
            seq,
            version,
            data,
            at,
        )

    async def count_events(self) -> int:
        return int(await self._conn.fetchval("SELECT COUNT(*) FROM events"))

    async def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        taken = await self._conn.fetchval(
            "INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)"
            " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
            " expires_at = excluded.expires_at"
            " WHERE leases.holder = excluded.holder OR leases.expires_at <= $4"
            " RETURNING holder",
            name,
            holder,
            until,
            now,
        )
        return bool(taken == holder)

    async def release_lease(self, name: str, holder: str) -> None:
        await self._conn.execute(
            "DELETE FROM leases WHERE name = $1 AND holder = $2", name, holder
        )

    async def lease_holder(self, name: str, now: datetime) -> str | None:
        value = await self._conn.fetchval(
            "SELECT holder FROM leases WHERE name = $1 AND expires_at > $2", name, now
        )
        return str(value) if value is not None else None

    async def fsm_state(self, key: str) -> str | None:
        value = await self._conn.fetchval("SELECT state FROM fsm WHERE key = $1", key)
        return str(value) if value is not None else None

    async def set_fsm_state(self, key: str, state: str | None) -> None:
        await self._conn.execute(
            "INSERT INTO fsm (key, state) VALUES ($1, $2)"
            " ON CONFLICT (key) DO UPDATE SET state = excluded.state",
            key,
            state,
        )

    async def fsm_data(self, key: str) -> dict[str, Any]:
        value = await self._conn.fetchval("SELECT data::text FROM fsm WHERE key = $1", key)
        return dict(json.loads(value)) if value is not None else {}

    async def set_fsm_data(self, key: str, data: dict[str, Any]) -> None:
        await self._conn.execute(
            "INSERT INTO fsm (key, data) VALUES ($1, $2::json)"
            " ON CONFLICT (key) DO UPDATE SET data = excluded.data",
            key,
            _payload(data),
        )


class PostgresStore:
    """The `Store` on a PostgreSQL database; `await PostgresStore.open(url)` migrates it."""

    serial = False  # a pool: units of work of different chats (and instances) run at once

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, url: str, pool_size: int = POOL_SIZE) -> PostgresStore:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size)
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresRepo]:
        async with self._pool.acquire() as conn, conn.transaction():
            yield PostgresRepo(conn)

    def statement(self) -> AbstractAsyncContextManager[PostgresRepo]:
        return self.transaction()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[PostgresRepo]:
        async with (
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield PostgresRepo(conn)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A raw connection from the pool (bulk copies of `python -m bot migrate-db`, tests)."""
        async with self._pool.acquire() as conn:
            yield conn

    async def check(self) -> None:
        """A round trip and a write probe (a row written and deleted, committed), so a read-only
        server (a standby, `default_transaction_read_only`) stops the start."""
        try:
            async with self._pool.acquire() as conn:
                await conn.fetchval("SELECT 1")
                async with conn.transaction():
                    await conn.execute(
                        "INSERT INTO processed_updates (update_id, at) VALUES (-1, now())"
                        " ON CONFLICT (update_id) DO NOTHING"
                    )
                    await conn.execute("DELETE FROM processed_updates WHERE update_id = -1")
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StoreBroken(f"the database takes no writes ({error})") from None

    async def ping(self) -> None:
        """`SELECT 1` on a connection of the pool."""
        async with self._pool.acquire() as conn:
            await conn.fetchval("SELECT 1")

    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int:
        gone = 0
        while True:
            async with self._pool.acquire() as conn:
                status = await conn.execute(
                    "DELETE FROM processed_updates WHERE update_id IN (SELECT update_id"
                    " FROM processed_updates WHERE at < $1 ORDER BY at LIMIT $2)",
                    before,
                    batch,
                )
            count = rowcount(status)
            gone += count
            if count < batch:
                return gone

    def fault(self, error: BaseException) -> Fault | None:
        return postgres_fault(error)

    async def close(self) -> None:
        await self._pool.close()


async def schema_version(conn: asyncpg.Connection) -> int:
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations"
        " (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)"
    )
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))


async def migrate(conn: asyncpg.Connection) -> int:
    """Run the migrations not yet applied, each in its own transaction; returns the version."""
    while True:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            version = await schema_version(conn)
            if version > len(PG_MIGRATIONS):
                raise RuntimeError(
                    f"database schema {version} is newer than this program ({len(PG_MIGRATIONS)})"
                )
            if version == len(PG_MIGRATIONS):
                return version
            await conn.execute(PG_MIGRATIONS[version])
            await conn.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                version + 1,
                datetime.now(UTC),
            )
