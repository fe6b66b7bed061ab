"""The fold of a game's log: frozen rules, records in force, votes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.core import Kind, Player, tally
from bot.core import events as ev
from bot.core.state import Vote, fold, rules_from_snapshot, rules_snapshot
from bot.domain import EventRow
from scoring.rules import PRESETS, rules_for
from scoring.voting import Threshold

AT = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("convention", sorted(PRESETS))
def test_frozen_rules_come_back_from_their_snapshot(convention: str, seats: int) -> None:
    rules = rules_for(convention, seats, {"pool_target": "7", "whist_split": "gentleman"})
    snapshot = {"convention": convention, "rules": rules_snapshot(rules)}
    assert rules_from_snapshot(snapshot, seats) == rules


def test_an_odessa_game_frozen_under_rules_version_1_still_reads_back() -> None:
    """Rules version 1 stored `dealer_whist` and `raspasy_zero=pool_then_mountain` (now Odessa's
    own rules, conventions.md §2.2); a game started then keeps its frozen rules."""
    rules = rules_snapshot(rules_for("odessa", 4))
    old = {**rules, "dealer_whist": "true", "raspasy_zero": "pool_then_mountain"}
    assert rules_from_snapshot({"convention": "odessa", "rules": old}, 4) == rules_for("odessa", 4)


def event(seq: int, kind: Kind, payload: dict[str, object], author: int | None = 1) -> EventRow:
    return EventRow(1, seq, kind.value, dict(payload), author, AT + timedelta(seconds=seq), 1)


def test_undone_records_leave_the_records_in_force_and_edits_replace_the_line() -> None:
    state = fold(
        1,
        [
            event(1, Kind.DEAL, {"line": "one"}),
            event(2, Kind.DEAL, {"line": "two"}),
            event(3, Kind.DEAL_UNDONE, {"target": 2, "line": "two"}),
            event(4, Kind.DEAL, {"line": "three"}),
            event(5, Kind.DEAL_EDITED, {"target": 4, "line": "four", "old": "three"}),
            event(6, Kind.DEAL, {"line": "late", "before": 4}),
        ],
    )
    assert [r.line for r in state.records] == ["one", "late", "four"]
    assert [r.line for r in state.items if r.undone] == ["two"]
    assert state.item(4).old_lines == ("three",)


def vote_of(threshold: str, ballots: dict[int, bool]) -> Vote:
    vote = Vote(1, ev.EndProposed(Threshold(threshold), AT.isoformat()), 1, AT)
    vote.ballots.update(ballots)
    return vote


VOTERS = [Player("Anna", 1), Player("Boris", 2), Player("Clara", 3)]


def test_a_unanimous_vote_is_rejected_by_one_no_and_passed_by_all() -> None:
    assert tally(vote_of("all", {1: True, 2: True}), VOTERS) is None
    assert tally(vote_of("all", {1: True, 2: False}), VOTERS) is False
    assert tally(vote_of("all", {1: True, 2: True, 3: True}), VOTERS) is True


def test_a_majority_vote_closes_as_soon_as_its_result_is_certain() -> None:
    """corrections.md "A vote": 2 of 3 pass; it closes once the result cannot change."""
    assert tally(vote_of("majority", {1: True}), VOTERS) is None
    assert tally(vote_of("majority", {1: True, 2: True}), VOTERS) is True
    assert tally(vote_of("majority", {1: False, 2: False}), VOTERS) is False
    four = [*VOTERS, Player("Dmitry", 4)]
    assert tally(vote_of("majority", {1: True, 2: True}), four) is None
    assert tally(vote_of("majority", {1: False, 2: False}), four) is False
