"""A tournament's scoring (docs/rules.md "Tournaments"): whists summed over rounds by default,
3/2/1/0 by place at the table with `places`, ties sharing the points of the places they take."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from scoring.tournament import Line, Scoring, game_points, place_points, shown_places, standings


def test_places_give_three_two_one_zero_at_a_table_of_four() -> None:
    assert place_points([F(-10), F(25), F(5), F(-20)]) == [F(1), F(3), F(2), F(0)]


def test_places_at_a_table_of_three_give_three_two_one() -> None:
    assert place_points([F(12), F(-30), F(18)]) == [F(2), F(1), F(3)]


def test_two_tied_first_share_the_first_two_places() -> None:
    """(3 + 2) / 2 = 2½ each; the third keeps 1."""
    assert place_points([F(10), F(10), F(-20)]) == [F(5, 2), F(5, 2), F(1)]


def test_three_tied_in_the_middle_of_four_share_places_two_to_four() -> None:
    assert place_points([F(30), F(-10), F(-10), F(-10)]) == [F(3), F(1), F(1), F(1)]


def test_whists_scoring_is_the_game_balance_itself() -> None:
    balances = [F(41, 3), F(-20), F(19, 3)]
    assert game_points(Scoring.WHISTS, balances) == balances


def test_standings_sum_each_players_rounds_and_rank_by_total() -> None:
    anna, boris, clara, dima = "anna", "boris", "clara", "dima"
    results = [
        (1, {anna: F(10), boris: F(-4), clara: F(-6)}),
        (1, {dima: F(3)}),
        (2, {anna: F(-2), dima: F(8), boris: F(-6)}),
    ]
    lines = standings(2, results)
    assert [line.player for line in lines] == [dima, anna, clara, boris]
    dima_line = lines[0]
    assert dima_line.total == F(11) and dima_line.games == 2
    assert dima_line.rounds == (F(3), F(8))
    assert lines[2].rounds == (F(-6), None)  # clara played no game in round 2


def test_equal_totals_rank_the_player_with_fewer_games_first() -> None:
    lines = standings(2, [(1, {"a": F(5), "b": F(2)}), (2, {"b": F(3)})])
    assert [line.player for line in lines] == ["a", "b"]


@given(st.lists(st.integers(-200, 200), min_size=3, max_size=4))
def test_place_points_always_share_out_the_same_total(balances: list[int]) -> None:
    points = place_points([F(b) for b in balances])
    assert sum(points) == sum((3, 2, 1, 0)[: len(balances)])
    order = sorted(range(len(balances)), key=lambda s: balances[s])
    assert all(points[a] <= points[b] for a, b in pairwise(order))


def test_a_shared_total_shares_its_place_and_the_next_place_skips_it() -> None:
    lines = [Line(name, 1, F(total), (F(total),)) for name, total in
             (("a", 5), ("b", 3), ("c", 3), ("d", -8))]  # fmt: skip
    assert shown_places(lines) == [1, 2, 2, 4]
