"""Record penalties, Кодекс 4.2.7 (seed C) and spec/corrections.md."""

from fractions import Fraction

from scoring.deal import Adjust, Column
from scoring.voting import Outcome, correction_outcome, record_penalty
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


def test_4_2_7_made_recorded_for_down_one_costs_the_pool_points_once_into_the_mountain() -> None:
    """corrections.md 4.2.7: "`7♠ =` recorded for `7♠ −1` costs the 4 pool points, once, as 4 into
    his mountain" — not mountain +8 plus the whists the defenders should have written."""
    game = make_game("russian")
    wrong = contract(A, 7, 0, vist(B), pas(C))
    right = contract(A, 7, -1, vist(B), pas(C))
    penalty = record_penalty(game, [wrong], 0, right, author=A)
    assert penalty == (Adjust(A, Column.MOUNTAIN, Fraction(4), None, "penalty"),)


def test_4_2_7_an_omitted_mountain_or_omitted_whists_on_the_author_are_not_fined() -> None:
    """corrections.md 4.2.7: "Nothing else is penalised (an omitted mountain or omitted whists on
    himself are corrected, not fined)" — `6 −1` recorded for `6 −2` by the declarer."""
    game = make_game("russian")
    wrong = contract(A, 6, -1, vist(B), pas(C))
    right = contract(A, 6, -2, vist(B), pas(C))
    assert record_penalty(game, [wrong], 0, right, author=A) == ()


def test_the_penalty_a_correction_would_bring_is_known_before_the_vote() -> None:
    """corrections.md 4.2.7: "the vote shows them before anyone votes": off without
    `record_penalties`, a warning for the author's first correction, the entries after that."""
    game = make_game("russian")
    wrong = contract(A, 7, 0, vist(B), pas(C))
    right = contract(A, 7, -1, vist(B), pas(C))
    assert (
        correction_outcome(game.rules.record_penalties, earlier_corrections=1) is Outcome.PENALTY
    )
    assert record_penalty(game, [wrong], 0, right, A) == (
        Adjust(A, Column.MOUNTAIN, Fraction(4), None, "penalty"),
    )
    assert (
        correction_outcome(game.rules.record_penalties, earlier_corrections=0) is Outcome.WARNING
    )
    sochi = make_game("sochi")
    assert correction_outcome(sochi.rules.record_penalties, earlier_corrections=3) is Outcome.FREE
