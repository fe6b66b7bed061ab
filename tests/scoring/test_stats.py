"""Statistics of one game and tallies over many (docs/rules.md "Statistics")."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.deal import Contract, Record
from scoring.settle import settle
from scoring.sheet import Game
from scoring.stats import LEVELS, Play, Tally, above, plays, same, tally_games, winners
from tests.scoring.engine import A, B, C, D, contract, make_game, misere, pas, play, raspasy, vist
from tests.scoring.strategies import played_games


def test_a_game_counts_contracts_by_level_misere_and_raspasy_per_seat() -> None:
    """Sochi, three players: Anna makes 6♠ and goes one down on 7♠, Boris concedes «three
    down» on 8, Clara's misère is clean and Boris's catches two tricks; one raspasy."""
    game = make_game("sochi")
    sheet = play(
        game,
        contract(A, 6, 0, vist(B), pas(C)),
        contract(A, 7, -1, vist(B), pas(C)),
        contract(B, 8, 0, three_down=True),
        misere(C, 0),
        misere(B, 2),
        raspasy((A, 2), (B, 3), (C, 5)),
    )
    seats = plays(sheet, settle(sheet.rules, sheet.totals))
    anna, boris, clara = seats
    assert anna.declared == (1, 1, 0, 0, 0) and anna.made == (1, 0, 0, 0, 0)
    assert boris.declared == (0, 0, 1, 0, 0) and boris.made == (0, 0, 0, 0, 0)
    assert (clara.miseres, clara.miseres_made) == (1, 1)
    assert (boris.miseres, boris.miseres_made) == (1, 0)
    assert [(s.raspasy, s.raspasy_tricks) for s in seats] == [(1, 2), (1, 3), (1, 5)]
    assert all(s.deals == 6 for s in seats)
    assert [s.balance for s in seats] == list(settle(sheet.rules, sheet.totals).balances)


def test_whists_per_deal_are_what_the_deals_wrote_into_each_players_whists() -> None:
    """Anna 6♠ made, Boris whists alone and takes the defence's 4 tricks at 2 whists each: 8."""
    sheet = play(make_game("sochi"), contract(A, 6, 0, vist(B), pas(C)))
    boris = plays(sheet, settle(sheet.rules, sheet.totals))[B]
    assert boris.whists == 8


def test_at_a_table_of_four_the_dealer_sits_the_deal_out() -> None:
    game = make_game("sochi", size=4)  # Anna deals first: Boris, Clara and Dima play
    sheet = play(game, contract(B, 6, 0, vist(C), pas(D), size=4))
    seats = plays(sheet, settle(sheet.rules, sheet.totals))
    assert [s.deals for s in seats] == [0, 1, 1, 1]


def test_a_shared_best_balance_wins_for_each() -> None:
    assert winners([Fraction(5), Fraction(5), Fraction(-10)]) == {0, 1}


def test_a_tally_adds_games_wins_totals_best_and_worst() -> None:
    one = Play(Fraction(12), Decimal("1.20"), deals=10, declared=(2, 0, 0, 0, 0))
    two = Play(Fraction(-4), None, deals=5, declared=(1, 0, 0, 0, 0), made=(1, 0, 0, 0, 0))
    three = Play(Fraction(30), Decimal("3.00"), deals=5)
    tally = Tally()
    tally.add(one, True, 1)
    tally.add(two, False, 2)
    tally.add(three, True, 3)
    assert (tally.games, tally.wins, tally.total) == (3, 2, 38)
    assert tally.average == Fraction(38, 3)
    assert tally.money == Decimal("4.20")  # the games that had a stake
    assert tally.best == (30, 3) and tally.worst == (-4, 2)
    assert tally.contracts == 3 and tally.contracts_made == 1
    assert Tally().whists_per_deal is None and Tally().average == 0


@settings(max_examples=60, deadline=None)
@given(played_games(max_deals=25))
def test_tallies_sum_to_the_balances_and_count_every_deal(
    played: tuple[Game, list[Record]],
) -> None:
    game, records = played
    sheet = play(game, *records)
    settled = settle(sheet.rules, sheet.totals, game.stake)
    seats = plays(sheet, settled)
    tallies = tally_games([(1, [(seat, p) for seat, p in enumerate(seats)])])
    assert sum(t.total for t in tallies.values()) == 0  # balances are zero-sum
    assert sum(t.wins for t in tallies.values()) >= 1
    active = 3 * sheet.deals  # three players play each deal, at a table of three or four
    assert sum(t.deals for t in tallies.values()) == active
    assert all(len(p.declared) == len(LEVELS) for p in seats)
    declared = sum(t.contracts for t in tallies.values())
    assert declared == sum(1 for r in sheet.records if isinstance(r.record, Contract))


fractions = st.fractions(max_denominator=10**6) | st.integers(-(10**12), 10**12).map(Fraction)


@given(fractions, fractions)
def test_balances_compare_as_fractions_do(a: Fraction, b: Fraction) -> None:
    assert above(a, b) == (a > b) and same(a, b) == (a == b)
    near = a + Fraction(1, 10**15)  # rounds like `a`: compared exactly
    assert above(near, a) and not above(a, near)
