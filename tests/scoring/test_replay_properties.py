"""Invariants of the replay over random valid games of every convention, 3 and 4 players: with
preset rules, and with random option sets changed mid-game. Each example checks every invariant."""

from fractions import Fraction

from hypothesis import given, settings

from scoring.deal import Column, Raspasy, Record, RuleChange
from scoring.replay import replay
from scoring.rules import OPTION_NAMES, Overflow, RaspasyFamily, with_option
from scoring.score import score_deal
from scoring.settle import settle
from scoring.sheet import Game, Reason, Sheet
from tests.scoring.strategies import OPTION_VALUES, option_played_games, played_games


def check_invariants(game: Game, records: list[Record]) -> Sheet:
    """Every invariant that holds under any rules §2.1 allows; the sheet, for more."""
    sheet = replay(game, records)
    assert sheet == replay(game, records)  # deterministic
    # The totals are the start plus every entry, and every band's last running total its total.
    size = game.size
    pool = [Fraction(0)] * size
    mountain = [Fraction(game.rules.start_mountain)] * size
    whists = [[Fraction(0)] * size for _ in range(size)]
    for scored in sheet.records:
        for entry in scored.entries:
            if entry.column is Column.POOL:
                pool[entry.player] += entry.amount
            elif entry.column is Column.MOUNTAIN:
                mountain[entry.player] += entry.amount
            else:
                assert entry.target is not None
                whists[entry.player][entry.target] += entry.amount
    totals = sheet.totals
    assert (tuple(pool), tuple(mountain)) == (totals.pool, totals.mountain)
    assert [list(row) for row in totals.whists] == whists
    for band, values in sheet.history.items():
        column = {Column.POOL: totals.pool, Column.MOUNTAIN: totals.mountain}.get(band.column)
        if column is None:
            assert band.target is not None
            column = totals.whists[band.player]
        assert values[-1][1] == column[band.player if band.target is None else band.target]
    # settlement.md step 5: balances and money sum to exactly zero.
    settlement = settle(sheet.rules, totals, Fraction(1, 10))
    assert sum(settlement.balances) == 0
    assert settlement.money is not None and sum(settlement.money) == 0
    # §2.2: Odessa's mountain never goes below 0, whatever the options say.
    if game.rules.odessa_rules and game.rules.start_mountain >= 0:
        assert all(m >= 0 for m in totals.mountain)
    # §1.3, §2.2: pool help pays `10 × pool_to_mountain` whists a point, mountain help always 10;
    # the help entry is written on the player helped and names the helper.
    for scored in sheet.records:
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
    # §2.2: whists-family raspasy has no progression, and its zero bonus is never multiplied.
    rules = game.rules
    for scored, record in zip(sheet.records, records, strict=True):
        if isinstance(record, RuleChange):
            rules = with_option(rules, record.option, record.value)
        if isinstance(record, Raspasy) and rules.raspasy is RaspasyFamily.WHISTS:
            first = score_deal(rules, size, scored.dealer, record, 1)
            assert score_deal(rules, size, scored.dealer, record, scored.raspasy_step) == first
    return sheet


@settings(max_examples=150, deadline=None)
@given(played_games())
def test_every_invariant_holds_in_random_games_of_every_preset(
    case: tuple[Game, list[Record]],
) -> None:
    game, records = case
    sheet = check_invariants(game, records)
    if game.rules.overflow is not Overflow.KEEP:
        assert all(p <= game.rules.pool_target for p in sheet.totals.pool)
    if game.rules.made_lowers_mountain:
        assert all(m >= 0 for m in sheet.totals.mountain)


def test_the_option_strategy_draws_every_option_of_section_2_1() -> None:
    assert sorted(OPTION_VALUES) == sorted(OPTION_NAMES)


@settings(max_examples=200, deadline=None)
@given(option_played_games())
def test_every_invariant_holds_under_any_option_set_changed_mid_game_or_not(
    case: tuple[Game, list[Record]],
) -> None:
    check_invariants(*case)
