"""The unit of work (issue 10): the store's one connection — a lock every chat shares — is never
held while a command folds and replays; the chat's lock is, and one transaction writes it all."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.core import Caller, GameService, parse_newgame
from bot.core.errors import AlreadyHandled, GameError
from bot.storage import SqliteStore

CHAT = -100500
ANNA = Caller(CHAT, 1001, "Anna", "anna_p")
BORIS = Caller(CHAT, 1002, "Boris", "boris_p")
CLARA = Caller(CHAT, 1003, "Clara", "clara_p")


class Recorder:
    """The real repository, with the name of every call made in each unit of work."""

    def __init__(self, repo: Any, calls: list[str]) -> None:
        self._repo = repo
        self._calls = calls

    def __getattr__(self, name: str) -> Any:
        self._calls.append(name)
        return getattr(self._repo, name)


class RecordingStore:
    """A real SqliteStore whose units of work are logged as (kind, [calls])."""

    serial = True

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.units: list[tuple[str, list[str]]] = []

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Any]:
        calls: list[str] = []
        self.units.append(("write", calls))
        async with self.store.transaction() as repo:
            yield Recorder(repo, calls)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Any]:
        calls: list[str] = []
        self.units.append(("read", calls))
        async with self.store.reading() as repo:
            yield Recorder(repo, calls)

    async def close(self) -> None:
        await self.store.close()


@pytest.fixture
async def recording(tmp_path: Path) -> AsyncIterator[RecordingStore]:
    store = RecordingStore(await SqliteStore.open(tmp_path / "uow.sqlite3"))
    yield store
    await store.close()


def updated(caller: Caller, update_id: int) -> Caller:
    return Caller(caller.chat_id, caller.user_id, caller.first_name, caller.username, update_id)


async def started(recording: RecordingStore) -> GameService:
    game = GameService(recording)  # type: ignore[arg-type]  # a Store by its methods
    await game.new_game(ANNA, parse_newgame("sochi pool 10", ANNA.as_player()))
    for player in (ANNA, BORIS, CLARA):
        await game.join(player)
    return game


async def test_a_deal_reads_the_log_then_writes_in_one_transaction_that_reads_no_log(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    recording.units.clear()
    await game.record(updated(ANNA, 77), "Anna 6♠ = vist:Boris pass:Clara")
    assert [kind for kind, _ in recording.units] == ["read", "write"]
    read, write = (calls for _, calls in recording.units)
    assert read == ["update_seen", "live_game", "events"]
    assert write == ["update_seen", "mark_update", "append", "add_member"]
    snap = await game.snapshot(CHAT)
    assert snap.sheet is not None and snap.sheet.deals == 1


async def test_a_refused_command_opens_no_transaction_and_writes_nothing(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    await game.record(ANNA, "Anna 6♠ = vist:Boris pass:Clara")
    recording.units.clear()
    with pytest.raises(GameError) as refused:
        await game.undo(updated(BORIS, 78))
    assert refused.value.code == "not-author"
    assert [kind for kind, _ in recording.units] == ["read"]
    async with recording.store.reading() as repo:
        assert not await repo.update_seen(78)


async def test_an_update_seen_before_is_skipped_before_any_work(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    await game.record(updated(ANNA, 79), "Anna 6♠ = vist:Boris pass:Clara")
    recording.units.clear()
    with pytest.raises(AlreadyHandled):
        await game.record(updated(ANNA, 79), "Anna 6♠ = vist:Boris pass:Clara")
    assert recording.units == [("read", ["update_seen"])]
    assert (await game.snapshot(CHAT)).sheet.deals == 1  # type: ignore[union-attr]


async def test_a_vote_closed_by_a_press_writes_the_ballot_the_close_and_the_change_together(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    await game.record(ANNA, "Anna 6♠ = vist:Boris pass:Clara")
    opened = await game.dispute(BORIS, "1", "Anna 6♠ -1 vist:Boris pass:Clara")
    recording.units.clear()
    closed = await game.vote(CLARA, opened.state.game_id, opened.vote.seq, True)
    assert closed.passed is True and closed.applied is not None
    (_, read), (_, write) = recording.units
    assert "events" in read and "events" not in write
    assert write.count("append") == 3  # vote_cast, vote_closed, deal_edited
