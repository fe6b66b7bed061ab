"""Invariants of the replay over random valid games of every convention, 3 and 4 players: with
preset rules, and with random option sets changed mid-game."""

from fractions import Fraction

from hypothesis import given, settings

from scoring.deal import Column, Raspasy, Record, RuleChange
from scoring.entries import Reason
from scoring.options import RaspasyFamily
from scoring.replay import replay
from scoring.rules import OPTION_NAMES, with_option
from scoring.score import score_deal
from scoring.settle import settle
from scoring.sheet import Game
from tests.scoring.strategies import OPTION_VALUES, option_played_games, played_games


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


# -- random option sets (every §2.1 option drawn from its values, mid-game `option` lines) -------


def test_the_option_strategy_draws_every_option_of_section_2_1() -> None:
    assert sorted(OPTION_VALUES) == sorted(OPTION_NAMES)


@settings(max_examples=60, deadline=None)
@given(option_played_games())
def test_any_option_set_replays_deterministically_and_settles_to_zero(
    case: tuple[Game, list[Record]],
) -> None:
    """settlement.md step 5 under any rules §2.1 allows, changed mid-game or not."""
    game, records = case
    sheet = replay(game, records)
    assert sheet == replay(game, records)
    settlement = settle(sheet.rules, sheet.totals, Fraction(1, 10))
    assert sum(settlement.balances) == 0
    assert settlement.money is not None and sum(settlement.money) == 0


@settings(max_examples=60, deadline=None)
@given(option_played_games())
def test_any_option_set_keeps_totals_the_sum_of_the_entries(
    case: tuple[Game, list[Record]],
) -> None:
    game, records = case
    sheet = replay(game, records)
    pool = [Fraction(0)] * game.size
    mountain = [Fraction(game.rules.start_mountain)] * game.size
    whists = [[Fraction(0)] * game.size for _ in range(game.size)]
    for scored in sheet.records:
        for entry in scored.entries:
            if entry.column is Column.POOL:
                pool[entry.player] += entry.amount
            elif entry.column is Column.MOUNTAIN:
                mountain[entry.player] += entry.amount
            else:
                assert entry.target is not None
                whists[entry.player][entry.target] += entry.amount
    assert tuple(pool) == sheet.totals.pool
    assert tuple(mountain) == sheet.totals.mountain
    assert [list(row) for row in sheet.totals.whists] == whists


@settings(max_examples=60, deadline=None)
@given(option_played_games())
def test_odessa_mountains_never_go_below_zero_whatever_the_options(
    case: tuple[Game, list[Record]],
) -> None:
    """§2.2: "Odessa's own rules stay on in `odessa`, whatever the options say: the mountain never
    goes below 0"."""
    game, records = case
    sheet = replay(game, records)
    if game.rules.odessa_rules and game.rules.start_mountain >= 0:
        assert all(m >= 0 for m in sheet.totals.mountain)


@settings(max_examples=60, deadline=None)
@given(option_played_games())
def test_every_help_names_its_helper_who_pays_for_it_in_whists(
    case: tuple[Game, list[Record]],
) -> None:
    """§1.3 and §2.2: pool help pays `10 × pool_to_mountain` whists a point, mountain help always
    10; the help entry is written on the player helped and names the helper."""
    game, records = case
    for scored in replay(game, records).records:
        entries = list(scored.entries)
        for k, entry in enumerate(entries):
            if entry.reason is not Reason.HELP:
                continue
            assert entry.source is not None and entry.source != entry.player
            paid = entries[k + 1]
            assert paid.reason is Reason.HELP_WHISTS
            assert (paid.player, paid.target) == (entry.source, entry.player)
            if entry.column is Column.MOUNTAIN:
                assert paid.amount == 10 * -entry.amount
            else:
                assert paid.amount in (10 * entry.amount, 20 * entry.amount)


@settings(max_examples=60, deadline=None)
@given(option_played_games())
def test_whists_family_raspasy_never_depends_on_the_series(
    case: tuple[Game, list[Record]],
) -> None:
    """§2.2: "Whists-family raspasy has no progression … the whists family's zero bonus is never
    multiplied": replaying each whists-family raspasy as the first of a series changes nothing."""
    game, records = case
    sheet = replay(game, records)
    rules = game.rules
    for index, scored in enumerate(sheet.records):
        record = records[index]
        if isinstance(record, RuleChange):
            rules = with_option(rules, record.option, record.value)
        if not isinstance(record, Raspasy) or rules.raspasy is not RaspasyFamily.WHISTS:
            continue
        dealer = scored.dealer
        first = score_deal(rules, game.size, dealer, record, 1)
        assert score_deal(rules, game.size, dealer, record, scored.raspasy_step) == first
