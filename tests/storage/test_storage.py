"""The repository on both backends (SQLite and PostgreSQL): migrations, the append-only log, one live
game per chat, units of work. The same test functions run on each (`backend`/`store` fixtures)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.domain import GameStatus, Store
from bot.storage import SqliteStore
from bot.storage.migrations import MIGRATIONS, PG_MIGRATIONS
from tests.storage.conftest import Backend

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


async def test_an_empty_database_is_migrated_once_at_opening(backend: Backend) -> None:
    for _ in range(2):
        store = await backend.open()
        await store.close()
    store = await backend.open()
    try:
        rows = await backend.fetch(store, "SELECT version FROM schema_migrations ORDER BY version")
    finally:
        await store.close()
    count = len(MIGRATIONS) if backend.name == "sqlite" else len(PG_MIGRATIONS)
    assert [row[0] for row in rows] == list(range(1, count + 1))


async def test_events_are_numbered_per_game_and_never_changed(
    backend: Backend, store: Store
) -> None:
    async with store.transaction() as repo:
        one = await repo.create_game(-1, 7, AT)
        two = await repo.create_game(-2, 7, AT)
        seqs = [
            (await repo.append(g.game_id, "deal", {"line": "x"}, 7, AT)).seq
            for g in (one, two, one)
        ]
    assert seqs == [1, 1, 2]
    for sql in ("UPDATE events SET kind = 'other'", "DELETE FROM events"):
        with pytest.raises(backend.integrity_error, match="append-only"):
            async with store.transaction() as repo:
                await backend.execute(repo, sql)
    async with store.reading() as repo:
        assert [e.kind for e in await repo.events(one.game_id)] == ["deal", "deal"]
        assert await repo.count_events() == 3


async def test_an_event_reads_back_as_it_was_written(store: Store) -> None:
    payload = {"line": "Анна 6♠ = vist:Борис", "z": 1, "a": [None, True, 2.5]}
    async with store.transaction() as repo:
        game = await repo.create_game(-100123456789012, 9_000_000_000, AT)
        written = await repo.append(game.game_id, "deal", payload, 9_000_000_000, AT)
        await repo.append(game.game_id, "deal_undone", {"target": 1}, None, AT)
    async with store.reading() as repo:
        events = await repo.events(game.game_id)
        later = await repo.events(game.game_id, after=1)
    assert events[0] == written
    assert list(events[0].payload) == ["line", "z", "a"]
    assert events[0].at == AT and events[0].at.utcoffset() is not None
    assert [(e.seq, e.kind, e.author) for e in later] == [(2, "deal_undone", None)]


async def test_a_failed_unit_of_work_leaves_nothing(store: Store) -> None:
    with pytest.raises(RuntimeError):
        async with store.transaction() as repo:
            game = await repo.create_game(-1, 7, AT)
            await repo.append(game.game_id, "deal", {}, 7, AT)
            await repo.mark_update(5, AT)
            await repo.set_chat_locale(-1, "en")
            raise RuntimeError("refused")
    async with store.reading() as repo:
        assert await repo.count_events() == 0
        assert not await repo.update_seen(5)
        assert await repo.live_game(-1) is None
        assert await repo.chat_locale(-1) is None


async def test_an_update_is_marked_once(backend: Backend, store: Store) -> None:
    async with store.transaction() as repo:
        await repo.mark_update(5, AT)
    with pytest.raises(backend.integrity_error):
        async with store.transaction() as repo:
            await repo.mark_update(5, AT)
    async with store.reading() as repo:
        assert await repo.update_seen(5)
        assert not await repo.update_seen(6)


async def test_a_chat_has_at_most_one_live_game(backend: Backend, store: Store) -> None:
    async with store.transaction() as repo:
        game = await repo.create_game(-1, 7, AT)
    with pytest.raises(backend.integrity_error):
        async with store.transaction() as repo:
            await repo.create_game(-1, 7, AT)
    async with store.transaction() as repo:
        await repo.set_status(game.game_id, GameStatus.ENDED)
        newer = await repo.create_game(-1, 7, AT)
    async with store.reading() as repo:
        last = await repo.last_game(-1)
        ended = await repo.game(game.game_id)
    assert last is not None and last.game_id == newer.game_id
    assert ended is not None and ended.status is GameStatus.ENDED


async def test_moving_a_chat_moves_its_games_and_language(store: Store) -> None:
    async with store.transaction() as repo:
        game = await repo.create_game(-400, 7, AT)
        await repo.set_chat_locale(-400, "en")
        await repo.set_chat_title(-400, "Friday")
        assert await repo.move_chat(-400, -100400) == 1
    async with store.reading() as repo:
        live = await repo.live_game(-100400)
        assert live is not None and live.game_id == game.game_id
        assert await repo.chat_locale(-100400) == "en"
        assert await repo.chat_title(-100400) == "Friday"
        assert await repo.live_game(-400) is None


async def test_live_games_lists_every_game_not_ended_oldest_first(store: Store) -> None:
    at = datetime(2026, 11, 29, tzinfo=UTC)
    async with store.transaction() as repo:
        first = await repo.create_game(-1, 1, at)
        ended = await repo.create_game(-2, 1, at)
        await repo.set_status(ended.game_id, GameStatus.ENDED)
        third = await repo.create_game(-3, 1, at)
    async with store.reading() as repo:
        live = await repo.live_games()
    assert [row.game_id for row in live] == [first.game_id, third.game_id]


async def test_members_list_a_users_live_games_newest_first(store: Store) -> None:
    async with store.transaction() as repo:
        old = await repo.create_game(-1, 1, AT)
        new = await repo.create_game(-2, 1, AT)
        ended = await repo.create_game(-3, 1, AT)
        for game in (old, new, ended):
            await repo.add_member(game.game_id, 50)
        await repo.add_member(old.game_id, 50)  # twice is once
        await repo.add_member(old.game_id, 51)
        await repo.set_status(ended.game_id, GameStatus.ENDED)
        await repo.remove_member(old.game_id, 51)
    async with store.reading() as repo:
        assert [g.game_id for g in await repo.games_of_user(50)] == [new.game_id, old.game_id]
        assert await repo.games_of_user(51) == []


async def test_the_sheet_message_and_chat_settings_are_kept(store: Store) -> None:
    async with store.transaction() as repo:
        game = await repo.create_game(-1, 1, AT)
        assert await repo.sheet_message(game.game_id) is None
        await repo.set_sheet_message(game.game_id, 4242)
        await repo.set_chat_title(-1, "One")
        await repo.set_chat_locale(-1, "ru")
        await repo.set_chat_locale(-1, "en")
    async with store.reading() as repo:
        assert await repo.sheet_message(game.game_id) == 4242
        assert (await repo.chat_locale(-1), await repo.chat_title(-1)) == ("en", "One")
        assert await repo.chat_locale(-2) is None
    async with store.transaction() as repo:
        await repo.set_sheet_message(game.game_id, None)
        assert await repo.sheet_message(game.game_id) is None


async def test_the_chat_lock_can_be_taken_in_any_unit_of_work(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.lock_chat(-1)
        await repo.lock_chat(-1)  # taken twice by the same unit: no deadlock
        game = await repo.create_game(-1, 1, AT)
    async with store.transaction() as repo:
        await repo.lock_chat(-1)
        assert (await repo.append(game.game_id, "deal", {}, 1, AT)).seq == 1


async def test_games_are_numbered_per_chat(store: Store) -> None:
    """Issue 13: "Game #1" in a group's first game, whatever other chats played before."""
    async with store.transaction() as repo:
        other = await repo.create_game(-500, 7, AT)
        first = await repo.create_game(-501, 7, AT)
        await repo.set_status(first.game_id, GameStatus.ENDED)
        second = await repo.create_game(-501, 7, AT)
    assert (other.number, first.number, second.number) == (1, 1, 2)
    async with store.reading() as repo:
        live = await repo.live_game(-501)
        assert live is not None and live.number == 2
        again = await repo.game(first.game_id)
        assert again is not None and again.number == 1
