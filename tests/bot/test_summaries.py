"""The kept summaries of ended games, and every statistic made from them, equal a recomputation
from the whole log — after any sequence of games, deals, undos, edits and corrections by vote,
with statistics asked for at any point (so that some summaries are kept early and read later),
over a new service each time (nothing but the database carries them). A summary another engine
made is made again."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import Caller, Core, looks, parse_newgame
from bot.core.errors import GameError
from bot.core.stats import (
    VERSION,
    Period,
    StatsFilter,
    chat_stats,
    in_order,
    standings,
    summaries,
    summarise,
)
from bot.core.zones import chat_zone
from bot.domain import GameStatus
from bot.storage import SqliteStore
from scoring.errors import ScoringError
from scoring.notation import format_record
from tests.bot.factories import Committing, FakeClock
from tests.scoring.strategies import deal_for

CHAT = -100888
PLAYERS = (
    Caller(CHAT, 1001, "Anna", "anna_p"),
    Caller(CHAT, 1002, "Boris", "boris_p"),
    Caller(CHAT, 1003, "Clara", "clara_p"),
)
ACTIONS = ("deal", "deal", "deal", "deal", "undo", "edit", "dispute", "wait", "look")
FILTERS = (
    StatsFilter(),
    StatsFilter(Period.MONTH),
    StatsFilter(Period.YEAR, "sochi"),
    StatsFilter(Period.ALL, "leningrad"),
)


async def check(store: SqliteStore, clock: FakeClock, filt: StatsFilter, playing: Core) -> int:
    """The kept statistics against a recomputation from every log, through a new service (a new
    process, as it were: only the database keeps anything) and through the one playing (its
    decoded summaries kept in memory too); how many games ended."""
    async with store.reading() as repo:
        rows = await repo.chat_games(CHAT)
        logs = {row.game_id: await repo.events(row.game_id) for row in rows}
    fresh = [summarise(row, logs[row.game_id]) for row in rows if row.status is GameStatus.ENDED]
    zone = chat_zone(None, "en")
    chosen = [s for s in in_order(fresh) if filt.keeps(s, clock(), zone)]
    for service in (Core(store, clock), playing):
        assert await summaries(service.store, rows) == fresh
        assert await summaries(service.store, rows) == fresh  # read back as kept
        kept = await chat_stats(service.store, CHAT, filt, clock(), "en")
        assert kept == standings(CHAT, chosen, filt, zone)
    return len(fresh)


async def act(service: Core, data: st.DataObject, clock: FakeClock, action: str) -> None:
    snap = await looks.snapshot(service, CHAT)
    state, sheet = snap.state, snap.sheet
    assert sheet is not None
    game = state.game()
    who = data.draw(st.sampled_from(PLAYERS), label="who")

    def line(dealer: int) -> str:
        return format_record(data.draw(deal_for(game, dealer), label="deal"), game.players)

    author = next(
        (p for p in PLAYERS if state.records and p.user_id == state.records[-1].author), who
    )
    if action == "deal":
        await Committing(service).record(who, line(sheet.next_dealer))
    elif action == "undo":
        await Committing(service).undo(author)
    elif action == "edit":
        await Committing(service).edit(
            author, line(sheet.records[-1].dealer or 0 if sheet.records else 0)
        )
    elif action == "wait":
        clock.now += timedelta(days=data.draw(st.integers(0, 40), label="days"))
    elif action == "dispute" and sheet.records:
        index = data.draw(st.integers(0, len(sheet.records) - 1), label="index")
        record = sheet.records[index]
        opened = await Committing(service).dispute(
            who, str(record.number or 1), line(record.dealer or 0)
        )
        yes = data.draw(st.booleans(), label="yes")
        for voter in PLAYERS:
            try:
                await Committing(service).vote(voter, state.game_id, opened.vote.seq, yes)
            except GameError as refused:
                assert refused.code in ("vote-same", "vote-closed"), refused.code


async def end(service: Core) -> None:
    """The end rule met ends the game at once; else every player agrees to end it."""
    result = await Committing(service).end_game(PLAYERS[0])
    vote = getattr(result, "vote", None)
    if vote is not None:
        for voter in PLAYERS[1:]:
            await Committing(service).vote(voter, result.state.game_id, vote.seq, True)


async def play(data: st.DataObject, path: Path) -> int:
    clock = FakeClock()
    store = await SqliteStore.open(path)
    try:
        service = Core(store, clock)
        anna = PLAYERS[0]
        for _ in range(data.draw(st.integers(1, 4), label="games")):
            convention = data.draw(st.sampled_from(("sochi", "leningrad")), label="convention")
            spec = parse_newgame(f"{convention} pool 4", anna.as_player())
            await Committing(service).new_game(anna, spec)
            if data.draw(st.booleans(), label="cancelled") and data.draw(st.booleans()):
                await Committing(service).end_game(
                    anna
                )  # the scorekeeper cancels it before its start
                continue
            for player in PLAYERS:
                await Committing(service).join(player)
            for _ in range(data.draw(st.integers(0, 14), label="steps")):
                action = data.draw(st.sampled_from(ACTIONS), label="action")
                if action == "look":
                    await check(store, clock, data.draw(st.sampled_from(FILTERS)), service)
                    continue
                with contextlib.suppress(ScoringError):  # refused: nothing changes
                    await act(service, data, clock, action)
            await end(service)
            await check(store, clock, data.draw(st.sampled_from(FILTERS)), service)
        return await check(store, clock, StatsFilter(), service)
    finally:
        await store.close()


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_kept_statistics_equal_a_recomputation_from_the_logs(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ended = asyncio.run(play(data, Path(folder) / "s.sqlite3"))
    assert ended >= 1


async def test_a_summary_made_by_another_engine_or_format_is_made_again(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "e.sqlite3")
    try:
        clock = FakeClock()
        service = Core(store, clock)
        anna = PLAYERS[0]
        await Committing(service).new_game(anna, parse_newgame("sochi pool 2", anna.as_player()))
        for player in PLAYERS:
            await Committing(service).join(player)
        for text in ("Anna 6♠ = vist:Boris pass:Clara", "Boris 6♠ = vist:Clara pass:Anna"):
            await Committing(service).record(anna, text)
        await Committing(service).record(anna, "Clara 6♠ = vist:Anna pass:Boris")
        await Committing(service).end_game(anna)
        async with store.reading() as repo:
            (row,) = await repo.chat_games(CHAT)
            expected = summarise(row, await repo.events(row.game_id))
        async with store.transaction() as repo:
            await repo.save_summaries([(row.game_id, "an older engine", {"stale": True})])
        assert await summaries(service.store, [row]) == [expected]
        async with store.reading() as repo:
            assert (await repo.summaries([row.game_id]))[row.game_id][0] == VERSION
    finally:
        await store.close()
