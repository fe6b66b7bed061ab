"""Issue 12: inside a transaction the SQLite repository holds its writes back and sends them with
the next read or the COMMIT (bot.storage.sqlite): fewer trips to the connection's thread, the
same transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.storage import SqliteStore
from bot.storage.sqlite import SqliteRepo

AT = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    store = await SqliteStore.open(tmp_path / "t.sqlite3")
    yield store
    await store.close()


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry a trip to the connection's thread, from now on."""
    counted: list[int] = []
    real = SqliteRepo._go

    async def go(self: SqliteRepo, work: Any, *args: object) -> Any:
        counted.append(1)
        return await real(self, work, *args)

    monkeypatch.setattr(SqliteRepo, "_go", go)
    return counted


async def test_writes_in_a_transaction_go_with_the_commit(
    store: SqliteStore, trips: list[int]
) -> None:
    async with store.transaction() as repo:
        await repo.mark_update(5, AT, -1, 10)
        await repo.set_chat_locale(-1, "en")
        await repo.set_fsm_state("k", "s")
    assert len(trips) == 1  # BEGIN, three writes and COMMIT in one trip
    async with store.reading() as repo:
        assert await repo.update_seen(5, -1, 10)
        assert await repo.chat_locale(-1) == "en"
        assert await repo.fsm_state("k") == "s"


async def test_a_read_takes_the_writes_before_it_along(
    store: SqliteStore, trips: list[int]
) -> None:
    async with store.transaction() as repo:
        await repo.set_chat_locale(-1, "ru")
        assert await repo.chat_locale(-1) == "ru"  # the held write went first, in the same trip
        await repo.set_chat_title(-1, "Friday")
    assert len(trips) == 2


async def test_a_held_write_that_fails_rolls_the_whole_transaction_back(
    store: SqliteStore,
) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        async with store.transaction() as repo:
            game = await repo.create_game(-1, 7, AT)  # a trip: the BEGIN went with it
            await repo.append(game.game_id, "deal", {"line": "x"}, 7, AT)
            await repo.mark_update(5, AT)
            await repo.mark_update(5, AT)  # held: it fails with the COMMIT's trip
    async with store.reading() as repo:
        assert await repo.live_game(-1) is None
        assert await repo.count_events() == 0
        assert not await repo.update_seen(5)
    async with store.transaction() as repo:  # the connection is usable, out of the transaction
        await repo.mark_update(5, AT)
    async with store.reading() as repo:
        assert await repo.update_seen(5)


async def test_a_unit_refused_before_its_first_trip_sends_nothing(
    store: SqliteStore, trips: list[int]
) -> None:
    with pytest.raises(RuntimeError):
        async with store.transaction() as repo:
            await repo.set_chat_locale(-1, "en")
            raise RuntimeError("refused")
    assert len(trips) == 1  # the rollback's look: no BEGIN had gone, nothing to undo
    async with store.reading() as repo:
        assert await repo.chat_locale(-1) is None


async def test_outside_a_transaction_a_write_goes_at_once(
    store: SqliteStore, trips: list[int]
) -> None:
    async with store.statement() as repo:
        await repo.set_chat_locale(-1, "en")
    assert len(trips) == 1
    async with store.reading() as repo:
        assert await repo.chat_locale(-1) == "en"
