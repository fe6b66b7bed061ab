"""Record penalties, Кодекс 4.2.7 (seed C) and spec/corrections.md."""

from fractions import Fraction

from scoring.corrections import record_penalty
from scoring.deal import Adjust, Column
from tests.scoring.engine import A, B, C, contract, make_game, pas, play, vist


def test_seed_c_4_2_7_example_1_over_written_whists_are_written_back_on_the_author() -> None:
    """Seed C 4.2.7 example 1: you wrote more whists on a partner; he writes as many on you."""
    game = make_game("russian")
    wrong = contract(C, 6, 0, vist(A, 3), vist(B, 1))  # A recorded 3 tricks for himself …
    right = contract(C, 6, 0, vist(A, 2), vist(B, 2))  # … he took 2
    penalty = record_penalty(game, [wrong], 0, right, author=A)
    assert penalty == (Adjust(C, Column.WHISTS, Fraction(2), A, "penalty"),)


def test_seed_c_4_2_7_example_2_over_written_pool_points_go_into_the_mountain() -> None:
    """Seed C 4.2.7 example 2: pool points over-recorded → as many into the author's mountain."""
    game = make_game("russian")
    wrong = contract(A, 8, 0, pas(B), pas(C))  # A recorded an eight …
    right = contract(A, 7, 0, pas(B), pas(C))  # … he played a seven
    penalty = record_penalty(game, [wrong], 0, right, author=A)
    assert penalty == (Adjust(A, Column.MOUNTAIN, Fraction(2), None, "penalty"),)


def test_a_wrong_record_against_its_author_draws_no_penalty() -> None:
    game = make_game("russian")
    wrong = contract(A, 7, 0, pas(B), pas(C))
    right = contract(A, 8, 0, pas(B), pas(C))
    assert record_penalty(game, [wrong], 0, right, author=A) == ()


def test_a_penalty_replays_as_a_plain_adjustment() -> None:
    game = make_game("russian")
    wrong = contract(A, 8, 0, pas(B), pas(C))
    right = contract(A, 7, 0, pas(B), pas(C))
    penalty = record_penalty(game, [wrong], 0, right, author=A)
    sheet = play(game, right, *penalty)
    assert sheet.totals.pool[A] == 4
    assert sheet.totals.mountain[A] == 2
