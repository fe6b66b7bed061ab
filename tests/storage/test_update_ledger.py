"""Issue 11 on both backends: a processed update keeps its chat and message (an update_id that comes
back for another message is a new update), the ledger is pruned past the redelivery horizon in
batches, and the start-up check tells a sound database from a damaged or read-only one."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.domain import REDELIVERY_HORIZON, Store, StoreBroken
from bot.storage import SqliteStore
from bot.storage.log import prune_processed, pruning
from bot.storage.postgres import PostgresStore
from tests.pg import PostgresServer
from tests.storage.conftest import Backend

AT = datetime(2026, 1, 1, tzinfo=UTC)


async def test_the_same_update_again_is_seen(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.mark_update(7, AT, chat_id=-100, message_id=11)
    async with store.reading() as repo:
        assert await repo.update_seen(7, -100, 11)
        assert await repo.update_seen(7)  # a caller that does not know the message
        assert not await repo.update_seen(8, -100, 11)


async def test_an_update_id_back_for_another_message_is_a_new_update(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    async with store.transaction() as repo:
        await repo.mark_update(7, AT, chat_id=-100, message_id=11)
    async with store.reading() as repo:
        assert not await repo.update_seen(7, -100, 12)
        assert not await repo.update_seen(7, -200, 11)
    assert "update_id 7 came back for chat -100 message 12" in caplog.text
    async with store.transaction() as repo:
        await repo.mark_update(7, AT, chat_id=-200, message_id=11)
    async with store.reading() as repo:
        assert await repo.update_seen(7, -200, 11)
        assert not await repo.update_seen(7, -100, 11)


async def test_the_same_update_marked_twice_is_still_refused(
    backend: Backend, store: Store
) -> None:
    async with store.transaction() as repo:
        await repo.mark_update(7, AT, chat_id=-100, message_id=11)
    with pytest.raises(backend.integrity_error):
        async with store.transaction() as repo:
            await repo.mark_update(7, AT, chat_id=-100, message_id=11)


async def test_a_row_from_before_the_columns_counts_as_the_same_update(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.mark_update(7, AT)  # an old row: no chat, no message
    async with store.reading() as repo:
        assert await repo.update_seen(7, -100, 11)


async def test_updates_past_the_horizon_are_pruned_in_batches(
    backend: Backend, store: Store
) -> None:
    now = AT + timedelta(days=10)
    old = now - REDELIVERY_HORIZON - timedelta(minutes=1)
    recent = now - REDELIVERY_HORIZON + timedelta(minutes=1)
    async with store.transaction() as repo:
        for update_id in range(1, 8):
            await repo.mark_update(update_id, old - timedelta(seconds=update_id), -1, update_id)
        await repo.mark_update(100, recent, -1, 100)
    assert await prune_processed(store, now, batch=3) == 7
    rows = await backend.fetch(store, "SELECT update_id FROM processed_updates")
    assert rows == [(100,)]
    assert await prune_processed(store, now, batch=3) == 0


async def test_the_pruning_task_prunes_as_soon_as_it_starts(
    backend: Backend, store: Store
) -> None:
    now = AT + timedelta(days=10)
    async with store.transaction() as repo:
        await repo.mark_update(1, now - timedelta(days=3), -1, 1)
        await repo.mark_update(2, now, -1, 2)
    task = asyncio.create_task(pruning(store, lambda: now, every=3600))
    try:
        for _ in range(500):  # a bounded wait for the first pass, not a measure of its speed
            rows = await backend.fetch(store, "SELECT update_id FROM processed_updates")
            if rows == [(2,)]:
                break
            await asyncio.sleep(0.01)
        assert rows == [(2,)]
        assert not task.done(), "it goes on (every hour)"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_sound_database_passes_the_start_up_check(store: Store) -> None:
    await store.check()
    async with store.reading() as repo:
        assert not await repo.update_seen(-1)  # the write probe leaves nothing


async def sample_database(path: Path) -> None:
    store = await SqliteStore.open(path)
    async with store.transaction() as repo:
        for chat_id in range(200):
            game = await repo.create_game(chat_id, 1, AT)
            await repo.append(game.game_id, "note", {"text": "x" * 300}, 1, AT)
    await store.close()


async def test_a_damaged_sqlite_file_fails_the_check(tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite3"
    await sample_database(path)
    data = bytearray(path.read_bytes())
    data[4096 * 3 : 4096 * 6] = b"Z" * (4096 * 3)  # three pages of the log overwritten
    path.write_bytes(bytes(data))
    store = await SqliteStore.open(path)
    try:
        with pytest.raises(StoreBroken, match="damaged"):
            await store.check()
    finally:
        await store.close()


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """The file made read-only even for root (who ignores the mode bits): immutable."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        yield
        path.chmod(0o644)
        return
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


async def test_a_read_only_sqlite_file_fails_the_check(tmp_path: Path) -> None:
    path = tmp_path / "read-only.sqlite3"
    await sample_database(path)
    with read_only(path):
        store = await SqliteStore.open(path)
        try:
            with pytest.raises(StoreBroken, match="takes no writes"):
                await store.check()
        finally:
            await store.close()


async def test_a_read_only_postgres_database_fails_the_check(pg_server: PostgresServer) -> None:
    store = await PostgresStore.open(await pg_server.new_database(), pool_size=1)
    try:
        async with store.connection() as conn:
            name = await conn.fetchval("SELECT current_database()")
            await conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        await store._pool.expire_connections()  # the next connection starts read-only
        with pytest.raises(StoreBroken, match="takes no writes"):
            await store.check()
    finally:
        await store.close()
