"""Forum topics and tournaments in the repository, on both backends: one live game per chat and
topic, owed rows that keep their topic, a tournament's append-only log and its tables."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.domain import GameStatus, Owed, OwedKind, Store
from tests.storage.conftest import Backend

AT = datetime(2026, 1, 1, tzinfo=UTC)


async def test_each_topic_of_a_chat_has_a_live_game_of_its_own(
    backend: Backend, store: Store
) -> None:
    async with store.transaction() as repo:
        general = await repo.create_game(-1, 7, AT)
        topic = await repo.create_game(-1, 7, AT, thread_id=12)
        other = await repo.create_game(-1, 7, AT, thread_id=14)
    assert (general.number, topic.number, other.number) == (1, 2, 3)  # numbered in the chat
    with pytest.raises(backend.integrity_error):
        async with store.transaction() as repo:
            await repo.create_game(-1, 7, AT, thread_id=12)
    async with store.transaction() as repo:
        await repo.set_status(topic.game_id, GameStatus.ENDED)
    async with store.reading() as repo:
        live_general = await repo.live_game(-1)
        live_topic = await repo.live_game(-1, 12)
        live_other = await repo.live_game(-1, 14)
        last_topic = await repo.last_game(-1, 12)
        last_chat = await repo.last_game(-1)
    assert live_general is not None and live_general.game_id == general.game_id
    assert live_topic is None
    assert live_other is not None and live_other.thread_id == 14
    assert last_topic is not None and last_topic.game_id == topic.game_id
    assert last_chat is not None and last_chat.game_id == other.game_id


async def test_an_owed_row_keeps_its_topic(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.owe(
            [Owed(-1, OwedKind.TEXT, "in a topic", thread_id=12), Owed(-2, OwedKind.TEXT, "x")]
        )
    async with store.transaction() as repo:
        claimed = await repo.claim_owed("s", 0.0, 60.0)
    assert {(r.owed.chat_id, r.owed.thread_id) for r in claimed} == {(-1, 12), (-2, None)}


async def test_a_tournaments_log_is_numbered_and_never_changed(
    backend: Backend, store: Store
) -> None:
    async with store.transaction() as repo:
        made = await repo.create_tournament("K7M2QX", (-1, 0), 7, AT)
        one = await repo.append_tournament(made.tournament_id, "created", {"name": "Cup"}, 7, AT)
        two = await repo.append_tournament(made.tournament_id, "table_joined", {"x": 1}, 8, AT)
        await repo.set_table_tournament(-5, 3, made.tournament_id)
    assert (one.seq, two.seq) == (1, 2)
    for sql in ("UPDATE tournament_events SET kind = 'x'", "DELETE FROM tournament_events"):
        with pytest.raises(backend.integrity_error, match="append-only"):
            async with store.transaction() as repo:
                await backend.execute(repo, sql)
    async with store.reading() as repo:
        by_code = await repo.tournament_by_code("K7M2QX")
        home = await repo.home_tournament(-1, 0)
        table = await repo.table_tournament(-5, 3)
        none = await repo.table_tournament(-5, 0)
        events = await repo.tournament_events(made.tournament_id)
    assert by_code == made and home == made
    assert table == made.tournament_id and none is None
    assert [(e.seq, e.kind, e.payload) for e in events] == [
        (1, "created", {"name": "Cup"}),
        (2, "table_joined", {"x": 1}),
    ]


async def test_moving_a_chat_moves_its_tournament_tables_and_homes(store: Store) -> None:
    async with store.transaction() as repo:
        home = await repo.create_tournament("HOME22", (-7, 0), 7, AT)
        other = await repo.create_tournament("OTHR33", (-8, 0), 7, AT)
        await repo.set_table_tournament(-7, 0, other.tournament_id)
        moved = await repo.move_tournament_chat(-7, -1007)
    assert moved == [other.tournament_id]
    async with store.reading() as repo:
        assert await repo.table_tournament(-1007, 0) == other.tournament_id
        assert await repo.table_tournament(-7, 0) is None
        found = await repo.home_tournament(-1007, 0)
    assert found is not None and found.tournament_id == home.tournament_id
