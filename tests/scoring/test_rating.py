"""The Elo rating of tables of three and four (docs/rules.md "The rating")."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.stats import START, K, duel, expected, rate_table, ratings


def test_rules_md_worked_example_game_one_three_newcomers() -> None:
    """docs/rules.md "The rating", game 1: Anna +20, Boris −5, Clara −15, all at 1500. Every
    duel is expected even (E = ½); Anna wins both (+16 · (2 − 1)), Boris one of two (±0),
    Clara none (−16)."""
    after = rate_table([START] * 3, [Fraction(20), Fraction(-5), Fraction(-15)])
    assert after == (1516.0, 1500.0, 1484.0)


def test_rules_md_worked_example_game_two_the_favourite_loses() -> None:
    """Game 2, from 1516/1500/1484: Anna −10, Boris +25, Clara −15. Anna was expected to win
    0.5230 + 0.5459 = 1.0689 duels and won one: 16 · (1 − 1.0689) = −1.10. Boris expected
    0.4770 + 0.5230 = 1 and won two: +16. Clara expected 0.4541 + 0.4770 and won none: −14.90."""
    after = rate_table([1516.0, 1500.0, 1484.0], [Fraction(-10), Fraction(25), Fraction(-15)])
    assert [round(r, 2) for r in after] == [1514.90, 1516.00, 1469.10]
    assert round(expected(1516, 1500), 4) == 0.5230 and round(expected(1516, 1484), 4) == 0.5459


def test_rules_md_worked_example_four_players_a_shared_best_is_a_draw_between_them() -> None:
    """Four at 1500, Anna and Boris share the best balance: their duel is a draw; each wins two
    more of three duels, K / 3 per duel: 1500 + 32/3 · (2.5 − 1.5)."""
    after = rate_table([START] * 4, [Fraction(10), Fraction(10), Fraction(-5), Fraction(-15)])
    assert after[0] == after[1] == pytest.approx(1500 + K / 3)
    assert after[2] == pytest.approx(1500 - K / 3 * 0.5)  # won one duel of three, expected 1.5
    assert after[3] == pytest.approx(1500 - K / 3 * 1.5)


def test_ratings_follow_the_games_in_order_and_newcomers_start_at_1500() -> None:
    one = [("anna", Fraction(20)), ("boris", Fraction(-5)), ("clara", Fraction(-15))]
    two = [("boris", Fraction(25)), ("anna", Fraction(-10)), ("dima", Fraction(-15))]
    rated = ratings([one, two])
    first = rate_table([START] * 3, [Fraction(20), Fraction(-5), Fraction(-15)])
    second = rate_table([first[1], first[0], START], [Fraction(25), Fraction(-10), Fraction(-15)])
    assert rated == {"anna": second[1], "boris": second[0], "clara": first[2], "dima": second[2]}


def test_a_duel_is_won_by_the_better_balance() -> None:
    assert duel(Fraction(1), Fraction(-1)) == 1.0
    assert duel(Fraction(-1), Fraction(1)) == 0.0
    assert duel(Fraction(3, 2), Fraction(3, 2)) == 0.5


balances = st.lists(
    st.fractions(min_value=-500, max_value=500, max_denominator=6), min_size=3, max_size=4
)


@given(balances, st.lists(st.floats(1000, 2000), min_size=4, max_size=4))
def test_a_table_changes_its_ratings_by_zero_in_sum_and_at_most_k_each(
    balance: list[Fraction], before: list[float]
) -> None:
    before = before[: len(balance)]
    after = rate_table(before, balance)
    assert sum(after) == pytest.approx(sum(before), abs=1e-6)
    assert all(abs(a - b) <= K + 1e-9 for a, b in zip(after, before, strict=True))
    best = max(balance)
    for seat, (a, b) in enumerate(zip(after, before, strict=True)):
        if balance[seat] == best and balance.count(best) == 1 and b == min(before):
            assert a > b  # the lowest rated winning alone always gains
