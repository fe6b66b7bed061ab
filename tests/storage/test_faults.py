"""What a database failure is (`Store.fault`), on the real drivers, and the unit of work on both
backends: a transient failure is told apart from a database that takes no writes and from a bug,
and a unit commits its command, its owed rows and the update's mark together or not at all."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from bot.core import Caller, Core, UnitOfWork, attempts, looks, parse_newgame, records
from bot.domain import Fault, Owed, OwedKind, Store
from bot.storage.postgres import PostgresRepo
from tests.bot.factories import Committing
from tests.pg import PostgresServer
from tests.storage.conftest import Backend

AT = datetime(2026, 1, 1, tzinfo=UTC)
CHAT = -4242
ANNA = Caller(CHAT, 1001, "Anna", "anna_p")
BORIS = Caller(CHAT, 1002, "Boris", "boris_p")
CLARA = Caller(CHAT, 1003, "Clara", "clara_p")
LINE = "Anna 6♠ = vist:Boris pass:Clara"


@pytest.fixture
def on_sqlite(tmp_path: Path) -> Backend:
    return Backend("sqlite", str(tmp_path / "f.sqlite3"))


@pytest.fixture
async def on_postgres(pg_server: PostgresServer) -> Backend:
    return Backend("postgres", await pg_server.new_database())


async def failure(store: Store, backend: Backend, setup: str, rows: int = 1) -> BaseException:
    """The error a write raises after `setup` ran on the unit's own connection."""
    try:
        async with store.transaction() as repo:
            await backend.execute(repo, setup)
            for n in range(rows):
                await repo.mark_update(10_000 + n, AT, CHAT, n)
            await repo.count_events()  # a trip: what SQLite held back goes now
    except Exception as error:
        return error
    raise AssertionError("the write went through")


async def test_a_database_that_takes_no_writes_is_unwritable(
    store: Store, backend: Backend
) -> None:
    if backend.name == "sqlite":
        error = await failure(store, backend, "PRAGMA query_only = 1")
    else:
        error = await failure(store, backend, "SET TRANSACTION READ ONLY")
    assert store.fault(error) is Fault.UNWRITABLE, repr(error)


async def test_a_full_sqlite_file_is_unwritable(on_sqlite: Backend) -> None:
    backend, store = on_sqlite, await on_sqlite.open()
    pages = await backend.fetch(store, "PRAGMA page_count")
    error = await failure(store, backend, f"PRAGMA max_page_count = {pages[0][0]}", rows=2000)
    await store.close()
    assert isinstance(error, sqlite3.OperationalError) and "full" in str(error)
    assert store.fault(error) is Fault.UNWRITABLE


async def test_a_broken_constraint_is_a_bug_not_a_database_fault(
    store: Store, backend: Backend
) -> None:
    async with store.transaction() as repo:
        await repo.mark_update(77, AT)
    with pytest.raises(backend.integrity_error) as twice:
        async with store.transaction() as repo:
            await repo.mark_update(77, AT)
    assert store.fault(twice.value) is None
    assert store.fault(KeyError("a bug")) is None


async def test_a_locked_sqlite_file_is_transient(on_sqlite: Backend) -> None:
    backend, store = on_sqlite, await on_sqlite.open()
    other = sqlite3.connect(backend.target, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        error = await failure(store, backend, "PRAGMA busy_timeout = 20")
    finally:
        other.execute("ROLLBACK")
        other.close()
        await store.close()
    assert store.fault(error) is Fault.TRANSIENT, repr(error)


async def test_a_killed_postgresql_connection_is_transient(
    on_postgres: Backend, pg_server: PostgresServer
) -> None:
    store = await on_postgres.open()
    admin = await asyncpg.connect(pg_server.url())
    try:
        with pytest.raises(Exception) as killed:
            async with store.transaction() as repo:
                assert isinstance(repo, PostgresRepo)
                pid = await repo._conn.fetchval("SELECT pg_backend_pid()")
                await admin.execute("SELECT pg_terminate_backend($1)", pid)
                await asyncio.sleep(0.1)
                await repo.mark_update(88, AT)
        assert store.fault(killed.value) is Fault.TRANSIENT, repr(killed.value)
        async with store.transaction() as repo:  # the pool makes a new connection
            await repo.mark_update(88, AT)
    finally:
        await admin.close()
        await store.close()


async def started(store: Store) -> Core:
    game = Core(store)
    commands = Committing(game)
    await commands.new_game(ANNA, parse_newgame("sochi pool 10", ANNA.as_player()))
    for player in (ANNA, BORIS, CLARA):
        await commands.join(player)
    return game


async def test_a_unit_commits_its_deal_its_replies_and_its_mark_together_on_both_backends(
    store: Store,
) -> None:
    game = await started(store)
    caller = Caller(CHAT, ANNA.user_id, "Anna", "anna_p", update_id=5150)
    uow = UnitOfWork(game, caller)
    await records.record(uow, caller, LINE)
    uow.owe(Owed(CHAT, OwedKind.TEXT, "recorded", "en"))
    async with store.reading() as repo:
        before = (await repo.count_events(), await repo.owed_count())
        assert not await repo.update_seen(5150)
    await uow.commit()
    async with store.reading() as repo:
        assert (await repo.count_events(), await repo.owed_count()) == (
            before[0] + 1,
            before[1] + 1,
        )
        assert await repo.update_seen(5150)


async def test_a_second_unit_of_the_same_chat_waits_for_the_first_to_commit(
    on_postgres: Backend,
) -> None:
    """Two stores on one PostgreSQL (two instances): the second unit's command reads the log only
    once the first unit committed (the chat's advisory lock, held to the commit)."""
    one, two = await on_postgres.open(), await on_postgres.open()
    try:
        first, second = await started(one), Core(two)
        held = UnitOfWork(first, ANNA)
        await records.record(held, ANNA, LINE)
        later: asyncio.Task[None] = asyncio.create_task(_record(second, BORIS))
        await asyncio.sleep(0.3)
        assert not later.done()  # waiting for the chat's lock
        await held.commit()
        await asyncio.wait_for(later, 10)
        snap = await looks.snapshot(second, CHAT)
        assert snap.sheet is not None and snap.sheet.deals == 2
    finally:
        await one.close()
        await two.close()


async def _record(game: Core, caller: Caller) -> None:
    async def work(uow: UnitOfWork) -> None:
        await records.record(uow, caller, "Boris 6♠ = vist:Clara pass:Anna")

    await attempts.run(game, work, caller)
