"""The SQLite repository: migrations, the append-only log, one live game per chat, units of work."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.storage import GameStatus, SqliteStore
from bot.storage.migrations import MIGRATIONS

AT = datetime(2026, 1, 1, tzinfo=UTC)


async def test_opening_creates_the_folder_and_migrates_once(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "db.sqlite3"
    for _ in range(2):
        store = await SqliteStore.open(path)
        await store.close()
    with sqlite3.connect(path) as db:
        versions = [row[0] for row in db.execute("SELECT version FROM schema_migrations")]
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert versions == list(range(1, len(MIGRATIONS) + 1))
    assert mode == "wal"


async def test_events_are_numbered_per_game_and_never_changed(store: SqliteStore) -> None:
    async with store.transaction() as repo:
        one = await repo.create_game(-1, 7, AT)
        two = await repo.create_game(-2, 7, AT)
        seqs = [
            (await repo.append(g.game_id, "deal", {"line": "x"}, 7, AT)).seq
            for g in (one, two, one)
        ]
    assert seqs == [1, 1, 2]
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        async with store.transaction() as repo:
            await repo._db.execute("UPDATE events SET kind = 'other'")  # type: ignore[attr-defined]
    async with store.reading() as repo:
        assert [e.kind for e in await repo.events(one.game_id)] == ["deal", "deal"]


async def test_a_failed_unit_of_work_leaves_nothing(store: SqliteStore) -> None:
    with pytest.raises(RuntimeError):
        async with store.transaction() as repo:
            game = await repo.create_game(-1, 7, AT)
            await repo.append(game.game_id, "deal", {}, 7, AT)
            await repo.mark_update(5, AT)
            raise RuntimeError("refused")
    async with store.reading() as repo:
        assert await repo.count_events() == 0
        assert not await repo.update_seen(5)
        assert await repo.live_game(-1) is None


async def test_a_chat_has_at_most_one_live_game(store: SqliteStore) -> None:
    async with store.transaction() as repo:
        game = await repo.create_game(-1, 7, AT)
    with pytest.raises(sqlite3.IntegrityError):
        async with store.transaction() as repo:
            await repo.create_game(-1, 7, AT)
    async with store.transaction() as repo:
        await repo.set_status(game.game_id, GameStatus.ENDED)
        await repo.create_game(-1, 7, AT)


async def test_moving_a_chat_moves_its_games_and_language(store: SqliteStore) -> None:
    async with store.transaction() as repo:
        game = await repo.create_game(-400, 7, AT)
        await repo.set_chat_locale(-400, "en")
        assert await repo.move_chat(-400, -100400) == 1
    async with store.reading() as repo:
        live = await repo.live_game(-100400)
        assert live is not None and live.game_id == game.game_id
        assert await repo.chat_locale(-100400) == "en"


async def test_live_games_lists_every_game_not_ended_oldest_first(store: SqliteStore) -> None:
    at = datetime(2026, 11, 29, tzinfo=UTC)
    async with store.transaction() as repo:
        first = await repo.create_game(-1, 1, at)
        ended = await repo.create_game(-2, 1, at)
        await repo.set_status(ended.game_id, GameStatus.ENDED)
        third = await repo.create_game(-3, 1, at)
    async with store.reading() as repo:
        live = await repo.live_games()
    assert [row.game_id for row in live] == [first.game_id, third.game_id]
