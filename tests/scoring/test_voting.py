"""Votes and correction windows, Кодекс 4.2.7–4.2.10 (seed C) and spec/corrections.md."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scoring.voting import (
    LATE_THRESHOLD,
    Outcome,
    Threshold,
    correction_outcome,
    dispute_terms,
    dispute_window,
    late_window,
    majority,
    pencil_holds,
    tally,
    tied,
)

NOW = datetime(2026, 1, 1, 18, 0, tzinfo=UTC)


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


@pytest.mark.parametrize(("voters", "need"), [(1, 1), (2, 2), (3, 2), (4, 3)])
def test_a_vote_a_strict_majority_of_the_players_2_of_3_3_of_4(voters: int, need: int) -> None:
    """corrections.md "A vote": "a strict majority of the players (2 of 3, 3 of 4)"."""
    assert majority(voters) == need


def test_a_vote_closes_as_soon_as_its_result_cannot_change() -> None:
    """corrections.md "A vote": it closes as soon as its result cannot change."""
    assert tally(Threshold.MAJORITY, 1, 0, 3) is None
    assert tally(Threshold.MAJORITY, 2, 0, 3) is True
    assert tally(Threshold.MAJORITY, 0, 2, 3) is False
    assert tally(Threshold.MAJORITY, 2, 0, 4) is None  # 2 of 4 is no majority yet
    assert tally(Threshold.MAJORITY, 0, 2, 4) is False  # ✅ can reach 2 at most
    assert tally(Threshold.MAJORITY, 3, 1, 4) is True


def test_a_vote_the_cases_that_need_everyone_one_no_rejects() -> None:
    """4.2.10 "any one partner refusing ends it"; 4.2.9 after the window, "all"."""
    assert tally(Threshold.ALL, 2, 0, 3) is None
    assert tally(Threshold.ALL, 2, 1, 3) is False
    assert tally(Threshold.ALL, 0, 1, 3) is False
    assert tally(Threshold.ALL, 3, 0, 3) is True


def test_a_vote_a_tie_goes_to_the_arbiter_whose_decision_is_final() -> None:
    """corrections.md "A vote": a tied vote goes to the arbiter — with one, 2 ❌ of 4 wait."""
    assert tally(Threshold.MAJORITY, 0, 2, 4, arbiter=True) is None
    assert tied(Threshold.MAJORITY, 2, 2, 4)
    assert not tied(Threshold.MAJORITY, 2, 1, 4)  # someone has not voted
    assert not tied(Threshold.ALL, 2, 2, 4)  # "all" is rejected by the first ❌, never tied
    assert tally(Threshold.MAJORITY, 0, 3, 4, arbiter=True) is False


def test_kodeks_4_2_8_the_pencil_rule_holds_for_the_latest_record_within_pencil_seconds() -> None:
    """4.2.8: "while the pen is still in the writer's hand he may fix the record freely"."""
    assert pencil_holds(ago(120), NOW, 120, latest=True)
    assert not pencil_holds(ago(121), NOW, 120, latest=True)
    assert not pencil_holds(ago(1), NOW, 120, latest=False)  # a later deal exists


def test_kodeks_4_2_9_an_error_may_be_pointed_out_until_the_next_game_is_ordered() -> None:
    """4.2.9: while the deal is the latest, or the next is under dispute_grace_seconds old."""
    assert dispute_window(None, NOW, 300)
    assert dispute_window(ago(299), NOW, 300)
    assert not dispute_window(ago(300), NOW, 300)


def test_kodeks_4_2_9_inside_the_window_any_player_and_a_majority() -> None:
    terms = dispute_terms(True, by_writer=False)
    assert terms.allowed and terms.threshold is Threshold.MAJORITY


def test_kodeks_4_2_9_after_it_only_by_the_recorders_good_will_and_everyone_agrees() -> None:
    assert not dispute_terms(False, by_writer=False).allowed
    terms = dispute_terms(False, by_writer=True)
    assert terms.allowed and terms.threshold is Threshold.ALL


def test_kodeks_4_2_10_a_forgotten_record_until_the_next_bidding_any_partner_refusing() -> None:
    """4.2.10: before the latest deal while it is younger than the grace; every player agrees."""
    assert late_window(ago(299), NOW, 300)
    assert not late_window(ago(300), NOW, 300)
    assert LATE_THRESHOLD is Threshold.ALL


def test_kodeks_4_2_7_first_error_corrected_free_as_a_warning_then_the_penalty() -> None:
    """4.2.7: "first error corrected free, as a warning; after that the penalty equals the
    over-recorded amount"."""
    assert correction_outcome(True, earlier_corrections=0) is Outcome.WARNING
    assert correction_outcome(True, earlier_corrections=1) is Outcome.PENALTY
    assert correction_outcome(True, earlier_corrections=5) is Outcome.PENALTY


def test_without_record_penalties_a_correction_is_always_free() -> None:
    assert correction_outcome(False, earlier_corrections=0) is Outcome.FREE
    assert correction_outcome(False, earlier_corrections=2) is Outcome.FREE
