"""The archive's storage on both backends: a chat's settings and time zone, every game of a chat
or an account, the kept summaries of ended games, the outbox's photos; and the migration that
brought them keeps an older database's outbox rows and ids."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from bot.domain import ChatSettings, GameStatus, Owed, OwedKind, Store
from bot.storage import SqliteStore
from bot.storage.migrations import MIGRATIONS

AT = datetime(2026, 3, 1, 19, 30, tzinfo=UTC)


async def test_a_chat_never_seen_has_no_settings_and_a_chosen_zone_reads_back(
    store: Store,
) -> None:
    async with store.reading() as repo:
        assert await repo.chat_settings(-5) == ChatSettings()
    async with store.transaction() as repo:
        await repo.set_chat_locale(-5, "ru")
        await repo.set_chat_title(-5, "Pulka")
        await repo.set_chat_time_zone(-5, "Asia/Almaty")
    async with store.reading() as repo:
        assert await repo.chat_settings(-5) == ChatSettings("ru", "Pulka", "Asia/Almaty")


async def test_a_moved_chat_keeps_its_time_zone(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.set_chat_time_zone(-400, "Europe/Berlin")
        await repo.create_game(-400, 7, AT)
        assert await repo.move_chat(-400, -100400) == 1
    async with store.reading() as repo:
        assert (await repo.chat_settings(-100400)).time_zone == "Europe/Berlin"


async def test_a_chat_s_games_come_newest_first_and_each_by_its_number(store: Store) -> None:
    async with store.transaction() as repo:
        first = await repo.create_game(-1, 7, AT)
        await repo.set_status(first.game_id, GameStatus.ENDED)
        other = await repo.create_game(-2, 7, AT)
        second = await repo.create_game(-1, 7, AT)
    async with store.reading() as repo:
        games = await repo.chat_games(-1)
        assert [(g.game_id, g.chat_number, g.status) for g in games] == [
            (second.game_id, 2, GameStatus.FORMING),
            (first.game_id, 1, GameStatus.ENDED),
        ]
        found = await repo.chat_game(-1, 2)
        assert found is not None and found.game_id == second.game_id
        assert await repo.chat_game(-1, 3) is None
        assert (await repo.chat_game(-2, 1)) == (await repo.game(other.game_id))


async def test_an_account_s_games_are_every_game_it_is_a_member_of(store: Store) -> None:
    async with store.transaction() as repo:
        one = await repo.create_game(-1, 7, AT)
        two = await repo.create_game(-2, 8, AT)
        await repo.set_status(one.game_id, GameStatus.ENDED)
        for game in (one, two):
            await repo.add_member(game.game_id, 1001)
        await repo.add_member(two.game_id, 1002)
    async with store.reading() as repo:
        assert [g.game_id for g in await repo.account_games(1001)] == [two.game_id, one.game_id]
        assert [g.game_id for g in await repo.account_games(1002)] == [two.game_id]
        assert await repo.account_games(1003) == []


async def test_a_summary_is_kept_replaced_and_read_back_by_game(store: Store) -> None:
    async with store.transaction() as repo:
        games = [await repo.create_game(-chat, 7, AT) for chat in (1, 2, 3)]
        await repo.save_summaries(
            [(games[0].game_id, "e1", {"a": 1, "z": [1, "½"]}), (games[1].game_id, "e1", {})]
        )
    async with store.transaction() as repo:
        await repo.save_summaries([(games[0].game_id, "e2", {"b": None})])
    async with store.reading() as repo:
        kept = await repo.summaries([g.game_id for g in games])
    assert kept == {games[0].game_id: ("e2", {"b": None}), games[1].game_id: ("e1", {})}


async def test_the_outbox_owes_a_photo_with_its_picture(store: Store) -> None:
    photo = Owed(-1, OwedKind.PHOTO, "<b>Top</b>", "en", body=b"\x89PNG", filename="top.png")
    async with store.transaction() as repo:
        await repo.owe([photo])
        (row,) = await repo.claim_owed("s1", 1.0, 30.0)
    assert row.owed == photo


async def test_the_migration_keeps_the_outbox_rows_and_its_ids(tmp_path: Path) -> None:
    """A database of the schema before photos: its outbox rows survive the rebuild, and a new
    row never takes the id of one sent and pruned before."""
    path = tmp_path / "old.sqlite3"
    before = len(MIGRATIONS) - 1
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        for number, script in enumerate(MIGRATIONS[:before], start=1):
            db.executescript(script)
            db.execute("INSERT INTO schema_migrations VALUES (?, '')", (number,))
        db.execute(
            "INSERT INTO outbox (chat_id, kind, text, lang) VALUES (-1, 'text', 'kept', 'en')"
        )
        db.execute(
            "INSERT INTO outbox (chat_id, kind, text, lang) VALUES (-1, 'text', 'pruned', 'en')"
        )
        db.execute("DELETE FROM outbox WHERE text = 'pruned'")
    store = await SqliteStore.open(path)
    try:
        async with store.transaction() as repo:
            await repo.owe([Owed(-1, OwedKind.TEXT, "new", "en")])
            rows = await repo.claim_owed("s1", 1.0, 30.0)
            assert [(r.id, r.owed.text) for r in rows] == [(1, "kept")]
            assert await repo.owed_sent(1, "s1", None, 2.0)
            (new,) = await repo.claim_owed("s1", 3.0, 30.0)
        assert (new.id, new.owed.text) == (3, "new")
    finally:
        await store.close()
