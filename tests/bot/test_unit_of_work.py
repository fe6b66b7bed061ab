"""The unit of work (docs/architecture.md "Storage invariants" 4): the store's one connection — a
lock every chat shares — is never held while a command folds and replays; one transaction writes
the update's mark, the command's events and the replies it owes at the commit, and nothing is said
before it; a transient database failure runs the work again with a fresh unit."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.core import (
    Caller,
    Core,
    Redeliver,
    UnitOfWork,
    Unsaved,
    attempts,
    looks,
    parse_newgame,
    records,
)
from bot.core.errors import AlreadyHandled, GameError
from bot.domain import Fault, Owed, OwedKind
from bot.storage import SqliteStore
from tests.bot.factories import Committing

CHAT = -100500
ANNA = Caller(CHAT, 1001, "Anna", "anna_p")
BORIS = Caller(CHAT, 1002, "Boris", "boris_p")
CLARA = Caller(CHAT, 1003, "Clara", "clara_p")
LINE = "Anna 6♠ = vist:Boris pass:Clara"


class Recorder:
    """The real repository, with the name of every call made in each unit of work."""

    def __init__(self, repo: Any, calls: list[str]) -> None:
        self._repo = repo
        self._calls = calls

    def __getattr__(self, name: str) -> Any:
        self._calls.append(name)
        return getattr(self._repo, name)


class RecordingStore:
    """A real SqliteStore whose units of work are logged as (kind, [calls]); `failures` makes the
    next transactions fail at their commit with these errors (after writing, when `lost`: the
    commit went through but its answer did not come back)."""

    serial = True

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.units: list[tuple[str, list[str]]] = []
        self.failures: list[Exception] = []
        self.lost = False

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Any]:
        calls: list[str] = []
        self.units.append(("write", calls))
        if self.failures and self.lost:
            failure = self.failures.pop(0)
            async with self.store.transaction() as repo:
                yield Recorder(repo, calls)
            raise failure
        async with self.store.transaction() as repo:
            yield Recorder(repo, calls)
            if self.failures:
                raise self.failures.pop(0)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Any]:
        calls: list[str] = []
        self.units.append(("read", calls))
        async with self.store.reading() as repo:
            yield Recorder(repo, calls)

    def fault(self, error: BaseException) -> Fault | None:
        return self.store.fault(error)

    async def close(self) -> None:
        await self.store.close()


@pytest.fixture
async def recording(tmp_path: Path) -> AsyncIterator[RecordingStore]:
    store = RecordingStore(await SqliteStore.open(tmp_path / "uow.sqlite3"))
    yield store
    await store.close()


def updated(caller: Caller, update_id: int) -> Caller:
    return Caller(caller.chat_id, caller.user_id, caller.first_name, caller.username, update_id)


async def started(recording: RecordingStore) -> Core:
    game = Core(recording)  # type: ignore[arg-type]  # a Store by its methods
    commands = Committing(game)
    await commands.new_game(ANNA, parse_newgame("sochi pool 10", ANNA.as_player()))
    for player in (ANNA, BORIS, CLARA):
        await commands.join(player)
    return game


async def counts(recording: RecordingStore) -> tuple[int, int]:
    """(events, owed rows) as committed."""
    async with recording.store.reading() as repo:
        return await repo.count_events(), await repo.owed_count()


def recording_deal(
    game: Core, caller: Caller, calls: list[str]
) -> Callable[[UnitOfWork], Awaitable[None]]:
    """An update's work as the middleware runs it: its arrival read, the deal, its reply owed and
    a toast after the commit."""

    async def work(uow: UnitOfWork) -> None:
        calls.append("work")
        if (await looks.arrival(game, caller)).seen:
            return
        await records.record(uow, caller, LINE)
        uow.owe(Owed(CHAT, OwedKind.TEXT, "recorded", "en"))

        async def toast() -> None:
            calls.append("toast")

        uow.then(toast)

    return work


async def test_a_deal_reads_the_log_then_writes_in_one_transaction_that_reads_no_log(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    recording.units.clear()
    caller = updated(ANNA, 77)
    await attempts.run(game, lambda uow: records.record(uow, caller, LINE), caller)
    assert [kind for kind, _ in recording.units] == ["read", "write"]
    read, write = (calls for _, calls in recording.units)
    # a game not kept yet: its whole log read
    assert read == ["update_seen", "live_game", "events"]
    assert write == ["update_seen", "mark_update", "append", "add_member"]
    snap = await looks.snapshot(game, CHAT)
    assert snap.sheet is not None and snap.sheet.deals == 1


async def test_a_command_its_replies_and_the_update_s_mark_commit_in_one_transaction(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    before = await counts(recording)
    caller = updated(ANNA, 80)
    uow = UnitOfWork(game, caller)
    await records.record(uow, caller, LINE)
    uow.owe(Owed(CHAT, OwedKind.TEXT, "recorded", "en"))
    assert await counts(recording) == before  # nothing is written before the commit
    recording.units.clear()
    await uow.commit()
    ((kind, write),) = recording.units
    assert kind == "write"
    assert write == ["update_seen", "mark_update", "append", "add_member", "owe"]
    assert await counts(recording) == (before[0] + 1, before[1] + 1)
    assert await looks.was_handled(game, 80)


async def test_a_rollback_writes_nothing_runs_no_hook_and_keeps_what_it_discarded(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    before = await counts(recording)
    caller = updated(ANNA, 81)
    uow = UnitOfWork(game, caller)
    await records.record(uow, caller, LINE)
    row = Owed(CHAT, OwedKind.TEXT, "recorded", "en")
    uow.owe(row)
    told: list[str] = []

    async def toast() -> None:
        told.append("toast")

    uow.then(toast)
    await uow.rollback()
    assert uow.discarded.owed == (row,) and uow.discarded.records
    await uow.commit()  # the unit is as new: its commit writes nothing
    assert told == [] and await counts(recording) == before
    assert not await looks.was_handled(game, 81)
    again = UnitOfWork(game, caller)  # the chat's lock was released: the same deal goes through
    await records.record(again, caller, LINE)
    await again.commit()
    assert (await counts(recording))[0] == before[0] + 1


async def test_follow_ups_run_after_the_commit_only_and_a_failing_one_is_not_raised(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    seen: list[int] = []
    caller = updated(ANNA, 82)
    uow = UnitOfWork(game, caller)
    await records.record(uow, caller, LINE)

    async def peek() -> None:  # the deal is in the log when a follow-up runs
        seen.append((await counts(recording))[0])

    async def broken() -> None:
        raise RuntimeError("Telegram refused the toast")

    uow.then(broken)
    uow.then(peek)
    events = (await counts(recording))[0]
    await uow.commit()
    assert seen == [events + 1]


async def test_a_transient_failure_at_the_commit_runs_the_work_again_in_a_fresh_unit(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    before = await counts(recording)
    recording.failures = [sqlite3.OperationalError("database is locked")] * 2
    calls: list[str] = []
    caller = updated(ANNA, 83)
    await attempts.run(game, recording_deal(game, caller, calls), caller)
    assert calls == ["work", "work", "work", "toast"]  # the toast once, after the commit
    assert await counts(recording) == (before[0] + 1, before[1] + 1)


async def test_a_commit_whose_answer_was_lost_is_not_written_again(
    recording: RecordingStore,
) -> None:
    """The connection drops after the COMMIT went through: the next attempt finds the update's
    mark and does nothing (the reply was committed with the deal; only the toast is lost)."""
    game = await started(recording)
    before = await counts(recording)
    recording.failures, recording.lost = [sqlite3.OperationalError("database is locked")], True
    calls: list[str] = []
    caller = updated(ANNA, 84)
    await attempts.run(game, recording_deal(game, caller, calls), caller)
    assert calls == ["work", "work"]
    assert await counts(recording) == (before[0] + 1, before[1] + 1)


async def test_a_transient_failure_on_every_attempt_is_left_to_come_again(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    before = await counts(recording)
    recording.failures = [sqlite3.OperationalError("database is locked")] * 10
    calls: list[str] = []
    caller = updated(ANNA, 85)
    with pytest.raises(Redeliver):
        await attempts.run(game, recording_deal(game, caller, calls), caller)
    assert calls == ["work"] * 5
    assert await counts(recording) == before and not await looks.was_handled(game, 85)


async def test_a_database_that_takes_no_writes_is_not_tried_again_and_says_what_was_owed(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    before = await counts(recording)
    recording.failures = [sqlite3.OperationalError("database or disk is full")]
    calls: list[str] = []
    caller = updated(ANNA, 86)
    with pytest.raises(Unsaved) as unsaved:
        await attempts.run(game, recording_deal(game, caller, calls), caller)
    assert calls == ["work"] and unsaved.value.records
    assert [row.text for row in unsaved.value.owed] == ["recorded"]
    assert await counts(recording) == before


async def test_a_bug_is_raised_as_it_is_and_not_tried_again(recording: RecordingStore) -> None:
    game = await started(recording)
    calls: list[str] = []

    async def work(uow: UnitOfWork) -> None:
        calls.append("work")
        await records.record(uow, ANNA, LINE)
        raise KeyError("a bug after the command")

    with pytest.raises(KeyError):
        await attempts.run(game, work)
    assert calls == ["work"]
    assert (await looks.snapshot(game, CHAT)).sheet.deals == 0  # type: ignore[union-attr]


async def test_a_refused_command_opens_no_transaction_and_writes_nothing(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    await Committing(game).record(ANNA, LINE)
    recording.units.clear()
    caller = updated(BORIS, 78)
    with pytest.raises(GameError) as refused:
        await attempts.run(game, lambda uow: records.undo(uow, caller), caller)
    assert refused.value.code == "not-author"
    assert [kind for kind, _ in recording.units] == ["read"]
    async with recording.store.reading() as repo:
        assert not await repo.update_seen(78)


async def test_an_update_seen_before_is_skipped_before_any_work(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    await Committing(game).record(updated(ANNA, 79), LINE)
    recording.units.clear()
    with pytest.raises(AlreadyHandled):
        await Committing(game).record(updated(ANNA, 79), LINE)
    assert recording.units == [("read", ["update_seen"])]
    assert (await looks.snapshot(game, CHAT)).sheet.deals == 1  # type: ignore[union-attr]


async def test_a_look_sees_the_seat_its_own_command_linked_before_anything_commits(
    recording: RecordingStore,
) -> None:
    """An `@username` seat is linked by the first look of its player, in the look's unit of
    work: the look shows the linked seat, and nothing is in the log until the unit commits."""
    game = Core(recording)  # type: ignore[arg-type]
    spec = parse_newgame("sochi pool 10 Anna @boris_p Clara", ANNA.as_player())
    await Committing(game).new_game(ANNA, spec)
    before = await counts(recording)
    uow = UnitOfWork(game, updated(BORIS, 90))
    snap = await looks.look(game, uow, BORIS)
    assert snap.state.seat_of(BORIS.user_id, None) == 1
    assert await counts(recording) == before
    await uow.commit()
    assert (await counts(recording))[0] == before[0] + 1


async def test_a_vote_closed_by_a_press_writes_the_ballot_the_close_and_the_change_together(
    recording: RecordingStore,
) -> None:
    game = await started(recording)
    await Committing(game).record(ANNA, LINE)
    opened = await Committing(game).dispute(BORIS, "1", "Anna 6♠ -1 vist:Boris pass:Clara")
    recording.units.clear()
    closed = await Committing(game).vote(CLARA, opened.state.game_id, opened.vote.seq, True)
    assert closed.passed is True and closed.applied is not None
    (_, read), (_, write) = recording.units
    assert "events" in read and "events" not in write
    assert write.count("append") == 3  # vote_cast, vote_closed, deal_edited
