"""Invariants of the replay over random valid games of every convention, 3 and 4 players."""

from fractions import Fraction

from hypothesis import given, settings

from scoring.deal import Column, Record
from scoring.replay import replay
from scoring.settle import settle
from scoring.sheet import Game
from tests.scoring.strategies import played_games


@settings(max_examples=80, deadline=None)
@given(played_games())
def test_replay_is_deterministic(case: tuple[Game, list[Record]]) -> None:
    game, records = case
    assert replay(game, records) == replay(game, records)


@settings(max_examples=80, deadline=None)
@given(played_games())
def test_totals_are_the_sum_of_the_entries_and_the_start(case: tuple[Game, list[Record]]) -> None:
    game, records = case
    sheet = replay(game, records)
    start = Fraction(game.rules.start_mountain)
    pool = [Fraction(0)] * game.size
    mountain = [start] * game.size
    for scored in sheet.records:
        for entry in scored.entries:
            if entry.column is Column.POOL:
                pool[entry.player] += entry.amount
            elif entry.column is Column.MOUNTAIN:
                mountain[entry.player] += entry.amount
    assert tuple(pool) == sheet.totals.pool
    assert tuple(mountain) == sheet.totals.mountain


@settings(max_examples=80, deadline=None)
@given(played_games())
def test_the_last_running_total_of_every_band_is_its_total(
    case: tuple[Game, list[Record]],
) -> None:
    game, records = case
    sheet = replay(game, records)
    for band, values in sheet.history.items():
        if band.column is Column.POOL:
            assert values[-1][1] == sheet.totals.pool[band.player]
        elif band.column is Column.MOUNTAIN:
            assert values[-1][1] == sheet.totals.mountain[band.player]
        else:
            assert band.target is not None
            assert values[-1][1] == sheet.totals.whists[band.player][band.target]


@settings(max_examples=80, deadline=None)
@given(played_games())
def test_pools_never_pass_the_target_unless_the_convention_keeps_them(
    case: tuple[Game, list[Record]],
) -> None:
    game, records = case
    sheet = replay(game, records)
    if game.rules.overflow.value != "keep":
        assert all(p <= game.rules.pool_target for p in sheet.totals.pool)
    if game.rules.made_lowers_mountain:
        assert all(m >= 0 for m in sheet.totals.mountain)


@settings(max_examples=80, deadline=None)
@given(played_games())
def test_balances_of_any_random_game_sum_to_exactly_zero(case: tuple[Game, list[Record]]) -> None:
    """settlement.md step 5, over every convention and both table sizes."""
    game, records = case
    sheet = replay(game, records)
    settlement = settle(game.rules, sheet.totals, Fraction(1, 10))
    assert sum(settlement.balances) == 0
    assert settlement.money is not None
    assert sum(settlement.money) == 0
