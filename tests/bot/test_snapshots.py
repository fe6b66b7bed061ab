"""A game not kept in memory resumes from its snapshot (the fold and the replay as they stood at one
event, in the database) and the log's tail, never from its first event; the snapshot is a cache:
of another engine it is ignored and written again, and one that cannot be written loses nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.core import Caller, GameService, parse_newgame
from bot.core.cache import Games
from bot.core.snapshots import VERSION
from bot.core.state import GameState, fold
from bot.core.uow import records_of
from bot.storage import SqliteStore
from scoring.replay import replay
from scoring.sheet import Sheet
from tests.bot.factories import Committing, FakeClock

CHATS = (-100801, -100802)
LINES = (
    "Anna 6♠ = vist:Boris pass:Clara",
    "Boris 7♥ -1 vist:Clara pass:Anna",
    "Clara 6♣ = vist:Anna pass:Boris",
)


def players(chat: int) -> tuple[Caller, ...]:
    return (
        Caller(chat, 1001, "Anna", "anna_p"),
        Caller(chat, 1002, "Boris", "boris_p"),
        Caller(chat, 1003, "Clara", "clara_p"),
    )


async def full(store: SqliteStore, game_id: int) -> tuple[GameState, Sheet]:
    async with store.reading() as repo:
        row = await repo.game(game_id)
        assert row is not None
        state = fold(game_id, await repo.events(game_id))
    state.chat_id, state.number = row.chat_id, row.chat_number
    return state, replay(state.game(), records_of(state))


async def started(service: GameService, chat: int) -> None:
    anna = players(chat)[0]
    await Committing(service).new_game(anna, parse_newgame("sochi pool 500", anna.as_player()))
    for player in players(chat):
        await Committing(service).join(player)


async def deals(service: GameService, chat: int, count: int, start: int = 0) -> None:
    table = players(chat)
    for n in range(start, start + count):
        await Committing(service).record(table[n % 3], LINES[n % 3])


@pytest.fixture
async def store(tmp_path: Path) -> Any:
    store = await SqliteStore.open(tmp_path / "snapshots.sqlite3")
    yield store
    await store.close()


async def test_a_restarted_bot_resumes_a_long_game_from_its_snapshot_and_tail_as_a_full_replay(
    store: SqliteStore,
) -> None:
    clock = FakeClock()
    service = GameService(store, clock, snapshot_every=16)
    await started(service, CHATS[0])
    await deals(service, CHATS[0], 60)
    await Committing(service).undo(players(CHATS[0])[2])
    async with store.reading() as repo:
        row = await repo.live_game(CHATS[0])
        assert row is not None
        stored = await repo.snapshot(row.game_id)
    assert stored is not None and stored[1] == VERSION
    last_seq = (await service.snapshot(CHATS[0])).state.last_seq
    assert last_seq - 16 < stored[0] <= last_seq

    cold = GameService(store, clock, snapshot_every=16)  # a restart: nothing kept in memory
    snap = await cold.snapshot(CHATS[0])
    assert (snap.state, snap.sheet) == await full(store, row.game_id)
    games = cold.core.games
    assert (games.folds, games.resumed) == (0, 1)  # never refolded from its first event
    assert games.replayed <= last_seq - stored[0]  # only the tail's records replayed
    await deals(cold, CHATS[0], 1, start=60)  # and it goes on from there
    snap = await cold.snapshot(CHATS[0])
    assert (snap.state, snap.sheet) == await full(store, row.game_id)
    assert snap.sheet is not None and snap.sheet.deals == 60


async def test_a_game_pushed_out_of_the_caches_is_not_refolded_from_its_first_event(
    store: SqliteStore,
) -> None:
    service = GameService(store, FakeClock())
    service.core.games = Games(budget=2)  # room for one game's state at a time
    for chat in CHATS:
        await started(service, chat)
    for round_ in range(6):
        for chat in CHATS:
            await deals(service, chat, 8, start=8 * round_)
    games = service.core.games
    folds = games.folds  # each game was folded whole before its first snapshot, not since
    for chat in CHATS:
        await deals(service, chat, 3, start=48)
        snap = await service.snapshot(chat)
        assert (snap.state, snap.sheet) == await full(store, snap.state.game_id)
    assert games.folds == folds <= 2 * len(CHATS)
    assert games.resumed >= 2 * len(CHATS)


async def test_a_snapshot_of_another_engine_is_ignored_and_written_again(
    store: SqliteStore,
) -> None:
    clock = FakeClock()
    service = GameService(store, clock, snapshot_every=4)
    await started(service, CHATS[0])
    await deals(service, CHATS[0], 12)
    game_id = (await service.snapshot(CHATS[0])).state.game_id
    async with store.transaction() as repo:
        stored = await repo.snapshot(game_id)
        assert stored is not None
        await repo.put_snapshot(game_id, stored[0], "0.old-engine", stored[2], clock())
    cold = GameService(store, clock, snapshot_every=4)
    await deals(cold, CHATS[0], 1, start=12)
    assert (cold.core.games.folds, cold.core.games.resumed) == (1, 0)  # the log read whole
    async with store.reading() as repo:
        again = await repo.snapshot(game_id)
    assert again is not None and again[1] == VERSION and again[0] > stored[0]


async def test_a_snapshot_that_cannot_be_written_loses_no_deal(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    service = GameService(store, FakeClock(), snapshot_every=1)
    await started(service, CHATS[0])

    async def broken(*args: Any) -> None:
        raise OSError("disk full")

    from bot.storage import sqlite

    monkeypatch.setattr(sqlite.SqliteRepo, "put_snapshot", broken)
    await deals(service, CHATS[0], 5)
    snap = await service.snapshot(CHATS[0])
    assert snap.sheet is not None and snap.sheet.deals == 5
    assert (snap.state, snap.sheet) == await full(store, snap.state.game_id)
    assert "snapshot(s) not written" in caplog.text


async def test_an_instance_a_deal_behind_reads_and_replays_only_the_other_ones_deal(
    store: SqliteStore,
) -> None:
    """Two instances behind a round-robin proxy: each sees every other deal of the chat, and the
    one a deal behind advances its kept state and replay by that deal alone."""
    one, two = GameService(store, FakeClock()), GameService(store, FakeClock())
    await started(one, CHATS[0])
    await deals(one, CHATS[0], 30)
    await deals(two, CHATS[0], 1, start=30)  # the second instance's first look at the game
    await deals(one, CHATS[0], 1, start=31)
    games = one.core.games
    folds, replayed = games.folds, games.replayed
    for n in range(32, 38, 2):
        await deals(two, CHATS[0], 1, start=n)
        await deals(one, CHATS[0], 1, start=n + 1)  # one deal behind: that deal, then its own
    assert games.folds == folds
    assert games.replayed - replayed == 6  # per turn: the other's deal and its own
    snap = await one.snapshot(CHATS[0])
    assert (snap.state, snap.sheet) == await full(store, snap.state.game_id)
