"""What the core keeps of a live game (its folded state, its replay, advanced by the log's tail)
always equals a full fold of the log and a full replay — on random games with deals, undos, edits,
corrections, late deals, rule changes, refused commands and restarts (a new core over the same
database)."""

from __future__ import annotations

import asyncio
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import Caller, Core, looks, parse_newgame
from bot.core.base import records_of
from bot.core.errors import GameError
from bot.core.state import GameState, fold
from bot.storage import SqliteStore
from scoring.errors import ScoringError
from scoring.notation import format_record
from scoring.replay import replay
from scoring.sheet import Game, Sheet
from tests.bot.factories import Committing, FakeClock
from tests.scoring.strategies import deal_for

CHAT = -100777
PLAYERS = (
    Caller(CHAT, 1001, "Anna", "anna_p"),
    Caller(CHAT, 1002, "Boris", "boris_p"),
    Caller(CHAT, 1003, "Clara", "clara_p"),
)
ACTIONS = (
    "deal",
    "deal",
    "deal",
    "deal",
    "undo",
    "edit",
    "dispute",
    "late",
    "rule",
    "wait",
    "restart",
)
RULES = ("whist_split=gentleman", "whist_split=greedy", "pool_target=12", "misere_price=12")


async def full(store: SqliteStore, game_id: int) -> tuple[GameState, Sheet | None]:
    """The reference: the whole log folded afresh and every record in force replayed afresh."""
    async with store.reading() as repo:
        row = await repo.game(game_id)
        assert row is not None
        state = fold(game_id, await repo.events(game_id))
    state.chat_id = row.chat_id
    state.number = row.chat_number
    if state.rules is None:
        return state, None
    return state, replay(state.game(), records_of(state))


async def play(data: st.DataObject, path: Path) -> tuple[int, int]:
    clock = FakeClock()
    store = await SqliteStore.open(path)
    try:
        service = Core(store, clock)
        anna = PLAYERS[0]
        await Committing(service).new_game(anna, parse_newgame("sochi pool 10", anna.as_player()))
        for player in PLAYERS:
            await Committing(service).join(player)
        steps = data.draw(st.integers(5, 40), label="steps")
        refused = 0
        for _ in range(steps):
            snap = await looks.snapshot(service, CHAT)
            state, sheet = snap.state, snap.sheet
            assert sheet is not None
            game = state.game()
            who = data.draw(st.sampled_from(PLAYERS), label="who")
            action = data.draw(st.sampled_from(ACTIONS), label="action")
            try:
                await act(service, data, clock, action, who, game, sheet, state)
            except ScoringError:
                refused += 1  # refused commands change nothing, and must leave nothing kept wrong
            if action == "restart":  # a fresh process: the whole log folded again
                service = Core(store, clock)
            snap = await looks.snapshot(service, CHAT)
            expected_state, expected_sheet = await full(store, state.game_id)
            assert snap.state == expected_state
            assert snap.sheet == expected_sheet
            games = service.games
            assert games.folds == 1  # the log whole once, then only its tail
        return steps, refused
    finally:
        await store.close()


async def act(
    service: Core,
    data: st.DataObject,
    clock: FakeClock,
    action: str,
    who: Caller,
    game: Game,
    sheet: Sheet,
    state: GameState,
) -> Any:
    names = game.players

    def line(dealer: int) -> str:
        return format_record(data.draw(deal_for(game, dealer), label="deal"), names)

    if action == "deal":
        return await Committing(service).record(who, line(sheet.next_dealer))
    if action == "undo":
        last = state.records[-1].author if state.records else who.user_id
        return await Committing(service).undo(next((p for p in PLAYERS if p.user_id == last), who))
    if action == "edit":
        last = state.records[-1].author if state.records else who.user_id
        dealer = sheet.records[-1].dealer if sheet.records else 0
        author = next((p for p in PLAYERS if p.user_id == last), who)
        return await Committing(service).edit(author, line(dealer or 0))
    if action == "wait":
        clock.now += timedelta(seconds=data.draw(st.integers(1, 400), label="seconds"))
        return None
    if action == "restart":
        return None
    if action == "dispute":
        if not sheet.records:
            raise GameError("nothing-to-undo", "", {}, "")
        index = data.draw(st.integers(0, len(sheet.records) - 1), label="index")
        number = sheet.records[index].number or 1
        opened = await Committing(service).dispute(
            who, str(number), line(sheet.records[index].dealer or 0)
        )
    elif action == "late":
        dealer = sheet.records[-1].dealer if sheet.records else 0
        opened = await Committing(service).propose_late(who, line(dealer or 0) + " late")
    else:
        opened = await Committing(service).propose_rule(
            who, data.draw(st.sampled_from(RULES), label="rule")
        )
    yes = data.draw(st.booleans(), label="yes")
    closed = 0
    for voter in PLAYERS:
        try:
            await Committing(service).vote(voter, opened.state.game_id, opened.vote.seq, yes)
        except GameError as refused:  # his ballot stands already, or the vote has closed
            assert refused.code in ("vote-same", "vote-closed"), refused.code
            closed += refused.code == "vote-closed"
    return closed


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_the_kept_state_and_replay_equal_a_full_fold_and_replay(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        steps, refused = asyncio.run(play(data, Path(folder) / "g.sqlite3"))
    assert refused <= steps


async def test_a_deal_late_in_a_long_game_replays_and_reads_only_what_is_new(
    tmp_path: Path,
) -> None:
    store = await SqliteStore.open(tmp_path / "long.sqlite3")
    try:
        service = Core(store, FakeClock())
        anna = PLAYERS[0]
        await Committing(service).new_game(anna, parse_newgame("sochi pool 500", anna.as_player()))
        for player in PLAYERS:
            await Committing(service).join(player)
        lines = ("Anna 6♠ = vist:Boris pass:Clara", "Boris 6♠ = vist:Clara pass:Anna")
        lines += ("Clara 6♠ = vist:Anna pass:Boris",)
        for n in range(150):
            await Committing(service).record(PLAYERS[n % 3], lines[n % 3])
        games = service.games
        folds, replayed = games.folds, games.replayed
        await Committing(service).record(anna, lines[0])
        assert (games.folds, games.replayed - replayed) == (folds, 1)
        # back to the checkpoint kept before the deal: nothing replayed
        await Committing(service).undo(anna)
        assert (games.folds, games.replayed - replayed) == (folds, 1)
        snap = await looks.snapshot(service, CHAT)
        assert snap.sheet is not None and snap.sheet.deals == 150
        assert (snap.state, snap.sheet) == await full(store, snap.state.game_id)
    finally:
        await store.close()
