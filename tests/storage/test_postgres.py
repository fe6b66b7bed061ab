"""What only PostgreSQL has to show: the schema it migrates to, the append-only trigger against every
way of changing rows, the per-chat advisory lock across connections, and the store factory."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest
from pydantic import ValidationError

from bot.redact import masked_url
from bot.settings import Settings
from bot.startup import StartupError, open_store
from bot.storage import SqliteStore
from bot.storage.migrations import PG_MIGRATIONS
from bot.storage.postgres import PostgresStore
from tests.pg import PostgresServer

AT = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
async def pg(pg_server: PostgresServer) -> AsyncIterator[PostgresStore]:
    store = await PostgresStore.open(await pg_server.new_database())
    yield store
    await store.close()


async def until(condition: Callable[[], Awaitable[bool]], tries: int = 3000) -> None:
    """Wait, by polling, for something another task or connection does (no time is asserted)."""
    for _ in range(tries):
        if await condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never came true")


async def test_an_empty_database_gets_every_table_index_and_trigger(pg: PostgresStore) -> None:
    async with pg.connection() as conn:
        tables = {
            r[0]
            for r in await conn.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            )
        }
        indexes = {
            r[0]
            for r in await conn.fetch(
                "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'"
            )
        }
        triggers = {
            r[0] for r in await conn.fetch("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
        }
        versions = [r[0] for r in await conn.fetch("SELECT version FROM schema_migrations")]
    assert tables == {
        "games",
        "events",
        "members",
        "chats",
        "processed_updates",
        "outbox",
        "schema_migrations",
        "leases",  # issue 14: the vote clock's lease
        "fsm",  # issue 14: the /deal steps of every instance
        "game_summaries",  # issue 24: each ended game's projection, a cache of its log
        "accounts",  # who started the bot in private (settling up)
        "reminders",  # each chat's reminder of open debts
        "snapshots",  # a cache of each game's fold and replay, beside the log
        "tournaments",  # a tournament's index row, its log, its tables
        "tournament_events",
        "tournament_tables",
    }
    assert {
        "games_one_live_per_table",
        "games_by_chat",
        "members_by_user",
        "outbox_owed",
        "events_of_debts",
    } <= indexes
    assert triggers == {
        "events_are_never_changed",
        "events_are_never_truncated",
        "tournament_events_are_never_changed",
        "tournament_events_are_never_truncated",
    }
    assert versions == list(range(1, len(PG_MIGRATIONS) + 1))


async def test_instances_opening_an_empty_database_together_migrate_it_once(
    pg_server: PostgresServer,
) -> None:
    url = await pg_server.new_database()
    stores = await asyncio.gather(*(PostgresStore.open(url) for _ in range(4)))
    try:
        async with stores[0].connection() as conn:
            versions = [r[0] for r in await conn.fetch("SELECT version FROM schema_migrations")]
    finally:
        for store in stores:
            await store.close()
    assert versions == list(range(1, len(PG_MIGRATIONS) + 1))


async def test_a_newer_schema_than_the_program_is_refused(pg_server: PostgresServer) -> None:
    url = await pg_server.new_database()
    store = await PostgresStore.open(url)
    async with store.connection() as conn:
        await conn.execute("INSERT INTO schema_migrations VALUES (99, now())")
    await store.close()
    with pytest.raises(RuntimeError, match="newer than this program"):
        await PostgresStore.open(url)


async def test_the_trigger_refuses_update_delete_and_truncate_even_outside_the_store(
    pg: PostgresStore,
) -> None:
    async with pg.transaction() as repo:
        game = await repo.create_game(-1, 7, AT)
        await repo.append(game.game_id, "deal", {"line": "x"}, 7, AT)
    async with pg.connection() as conn:
        for sql in (
            "UPDATE events SET payload = '{}'",
            "DELETE FROM events WHERE seq = 1",
            "TRUNCATE events CASCADE",
            "TRUNCATE games CASCADE",
        ):
            with pytest.raises(asyncpg.RestrictViolationError, match="append-only"):
                await conn.execute(sql)
    async with pg.reading() as repo:
        assert [e.payload for e in await repo.events(game.game_id)] == [{"line": "x"}]


async def test_a_reading_unit_may_not_write(pg: PostgresStore) -> None:
    with pytest.raises(asyncpg.ReadOnlySQLTransactionError):
        async with pg.reading() as repo:
            await repo.create_game(-1, 7, AT)


async def _waiting_for_advisory_lock(pg: PostgresStore) -> int:
    async with pg.connection() as conn:
        return int(
            await conn.fetchval(
                "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            )
        )


async def test_the_chat_lock_serialises_one_chat_across_connections_and_not_another(
    pg: PostgresStore,
) -> None:
    async with pg.transaction() as repo:
        one = await repo.create_game(-1, 7, AT)
        two = await repo.create_game(-2, 7, AT)
    order: list[str] = []
    release = asyncio.Event()

    async def first() -> None:
        async with pg.transaction() as repo:
            await repo.lock_chat(-1)
            await repo.append(one.game_id, "deal", {"by": "first"}, 7, AT)
            order.append("first locked")
            await release.wait()
            order.append("first commits")

    async def second() -> None:
        async with pg.transaction() as repo:
            await repo.lock_chat(-1)
            order.append("second locked")
            await repo.append(one.game_id, "deal", {"by": "second"}, 7, AT)

    async def first_holds() -> bool:
        return order == ["first locked"]

    async def second_waits() -> bool:  # blocked inside the database, not in this process
        return await _waiting_for_advisory_lock(pg) == 1

    holder = asyncio.create_task(first())
    await until(first_holds)
    waiter = asyncio.create_task(second())
    await until(second_waits)
    async with pg.transaction() as repo:  # another chat is not held up meanwhile
        await repo.lock_chat(-2)
        await repo.append(two.game_id, "deal", {"by": "other chat"}, 7, AT)
    assert not waiter.done() and order == ["first locked"]
    release.set()
    await asyncio.gather(holder, waiter)
    assert order == ["first locked", "first commits", "second locked"]
    async with pg.reading() as repo:
        events = await repo.events(one.game_id)
        assert [(e.seq, e.payload["by"]) for e in events] == [(1, "first"), (2, "second")]
        assert len(await repo.events(two.game_id)) == 1


async def test_a_burst_of_units_on_one_chat_numbers_its_events_without_a_clash(
    pg: PostgresStore,
) -> None:
    async with pg.transaction() as repo:
        game = await repo.create_game(-1, 7, AT)

    async def deal(n: int) -> None:
        async with pg.transaction() as repo:
            await repo.lock_chat(-1)
            await repo.append(game.game_id, "deal", {"n": n}, 7, AT)

    await asyncio.gather(*(deal(n) for n in range(20)))
    async with pg.reading() as repo:
        events = await repo.events(game.game_id)
    assert [e.seq for e in events] == list(range(1, 21))
    assert sorted(e.payload["n"] for e in events) == list(range(20))


async def test_the_lock_is_released_by_a_rollback(pg: PostgresStore) -> None:
    with pytest.raises(RuntimeError):
        async with pg.transaction() as repo:
            await repo.lock_chat(-1)
            raise RuntimeError("refused")
    async with pg.connection() as conn:
        assert await conn.fetchval("SELECT pg_try_advisory_xact_lock(-1)")


async def test_open_store_picks_postgresql_when_database_url_is_set(
    pg_server: PostgresServer, tmp_path: Path
) -> None:
    url = await pg_server.new_database()
    on_pg = await open_store(Settings(bot_token="42:TEST", database_url=url))
    on_file = await open_store(Settings(bot_token="42:TEST", database_path=tmp_path / "f.sqlite3"))
    try:
        assert isinstance(on_pg, PostgresStore)
        assert isinstance(on_file, SqliteStore)
    finally:
        await on_pg.close()
        await on_file.close()


async def test_an_unreachable_database_is_one_line_without_the_password() -> None:
    settings = Settings(
        bot_token="42:TEST", database_url="postgresql://bot:s3cret@127.0.0.1:1/prefbot"
    )
    with pytest.raises(StartupError) as caught:
        await open_store(settings)
    message = str(caught.value)
    assert message.startswith("DATABASE_URL=postgresql://***@127.0.0.1:1/prefbot cannot be opened")
    assert "s3cret" not in message and "\n" not in message
    assert caught.value.transient  # refused connections: the start waits and tries again


def test_a_malformed_database_url_is_refused_without_quoting_it() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(bot_token="42:TEST", database_url="mysql://bot:s3cret@db/prefbot")
    assert "postgresql://USER:PASSWORD@HOST:5432/DBNAME" in str(caught.value)
    assert Settings(bot_token="42:TEST", database_url=" ").database_url is None
    assert masked_url("postgresql://u@h:5432/d") == "postgresql://***@h:5432/d"
