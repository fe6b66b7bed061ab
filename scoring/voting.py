"""Votes, correction windows and record penalties (Кодекс 4.2.7–4.2.10, seed C; corrections.md)."""

from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import NamedTuple

from scoring.deal import Adjust, Column, Record
from scoring.replay import replay
from scoring.sheet import Game


class Threshold(StrEnum):
    """How many ✅ a vote needs."""

    MAJORITY = "majority"  # a strict majority of the voters, either way
    ALL = "all"  # every voter's ✅; one ❌ rejects


class Outcome(StrEnum):
    """What an accepted correction costs its record's writer (Кодекс 4.2.7, 4.2.8)."""

    FREE = "free"  # no record penalties in these rules
    WARNING = "warning"  # the writer's first corrected error
    PENALTY = "penalty"  # later ones: the mirror of what the wrong record gave him


def majority(voters: int) -> int:
    """The strict majority of `voters`: 2 of 3, 3 of 4 (and 1 of 1)."""
    return voters // 2 + 1


def tally(
    threshold: Threshold, yes: int, no: int, voters: int, *, arbiter: bool = False
) -> bool | None:
    """A vote's result once it cannot change, else None."""
    if threshold is Threshold.ALL:
        if no:
            return False
        return True if yes == voters else None
    need = majority(voters)
    if yes >= need:
        return True
    if no >= need or (not arbiter and no > voters - need):
        return False
    return None


def tied(threshold: Threshold, yes: int, no: int, voters: int) -> bool:
    """Every voter has voted on a majority vote and it is even: the arbiter's to decide."""
    return threshold is Threshold.MAJORITY and yes + no == voters and yes == no


def pencil_holds(
    written_at: datetime, now: datetime, pencil_seconds: int, *, latest: bool
) -> bool:
    """Кодекс 4.2.8: the writer may fix his latest record within `pencil_seconds`."""
    return latest and now - written_at <= timedelta(seconds=pencil_seconds)


def dispute_window(next_deal_at: datetime | None, now: datetime, grace_seconds: int) -> bool:
    """Кодекс 4.2.9: disputable until the next deal is `grace_seconds` old."""
    return next_deal_at is None or now - next_deal_at < timedelta(seconds=grace_seconds)


class DisputeTerms(NamedTuple):
    """Who may propose a correction and how many must agree."""

    allowed: bool
    threshold: Threshold


def dispute_terms(inside_window: bool, *, by_writer: bool) -> DisputeTerms:
    """Кодекс 4.2.9: in the window a strict majority; after it the writer, and all agree."""
    if inside_window:
        return DisputeTerms(True, Threshold.MAJORITY)
    return DisputeTerms(by_writer, Threshold.ALL)


def late_window(latest_deal_at: datetime, now: datetime, grace_seconds: int) -> bool:
    """Кодекс 4.2.10: a late deal while the latest is younger than `grace_seconds`."""
    return now - latest_deal_at < timedelta(seconds=grace_seconds)


LATE_THRESHOLD = Threshold.ALL  # 4.2.10: "any one partner refusing ends it"
RULE_CHANGE_THRESHOLD = Threshold.ALL  # conventions.md §1.4: every player's consent
END_THRESHOLD = Threshold.ALL  # an early end: every player agrees
ARBITER_THRESHOLD = Threshold.ALL  # an arbiter named mid-game: every player agrees
PENALTY_NOTE = "penalty"  # the note on a record penalty's entries


def correction_outcome(record_penalties: bool, *, earlier_corrections: int) -> Outcome:
    """Кодекс 4.2.7: with `record_penalties`, a first correction warns, later ones cost."""
    if not record_penalties:
        return Outcome.FREE
    return Outcome.WARNING if earlier_corrections == 0 else Outcome.PENALTY


def record_penalty(
    game: Game, records: Sequence[Record], index: int, corrected: Record, author: int
) -> tuple[Adjust, ...]:
    """Entries mirroring what `records[index]` (by `author`) over-wrote in his favour vs `corrected`."""
    wrong = replay(game, records[: index + 1]).totals
    right = replay(game, [*records[:index], corrected]).totals
    penalties: list[Adjust] = []
    for partner in range(len(wrong.pool)):
        extra = wrong.whists[author][partner] - right.whists[author][partner]
        if partner != author and extra > 0:
            penalties.append(Adjust(partner, Column.WHISTS, extra, author, PENALTY_NOTE))
    extra_pool = wrong.pool[author] - right.pool[author]
    if extra_pool > 0:
        penalties.append(Adjust(author, Column.MOUNTAIN, extra_pool, None, PENALTY_NOTE))
    return tuple(penalties)
