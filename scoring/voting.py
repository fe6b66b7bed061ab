"""Votes and the time windows of corrections — Кодекс 4.2.7–4.2.10 (seed C), spec/corrections.md.

The bot keeps the log and asks these functions what it may do; nothing here knows a chat or a
database. Times are aware datetimes and seconds come from the rules in force (`pencil_seconds`,
`dispute_grace_seconds`).

- 4.2.8 "while the pen is still in the writer's hand he may fix the record freely": `pencil_holds`
  — the author's own `/undo` or `/edit`; a `/dispute` is never under it, however soon it follows.
- 4.2.9 "an error may be pointed out and corrected only until the next game is ordered": any player
  while the deal is the latest or the next one is younger than the grace (`dispute_window`), decided
  by a strict majority; after it "only by the recorder's good will": the writer alone proposes and
  every player must agree (`dispute_terms`).
- 4.2.10 "a forgotten record may be made until the end of bidding of the next deal; any one partner
  refusing ends it": `late_window`, threshold "all".
- 4.2.7 "first error corrected free, as a warning; after that the penalty equals the over-recorded
  amount": `correction_outcome` (the amounts are `scoring.corrections.record_penalty`).
- A vote (corrections.md "A vote"): "a strict majority of the players (2 of 3, 3 of 4)", "the cases
  above that need everyone say so"; it closes as soon as its result cannot change; a tied vote goes
  to the arbiter when there is one: `tally`, `tied`, `majority`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum


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
    """A vote's result once it cannot change, else None.

    "all": one ❌ rejects, every voter's ✅ passes. "majority": a strict majority of ✅ passes and
    one of ❌ rejects; without an arbiter a vote whose ✅ can no longer reach the majority is
    rejected at once, with one (`arbiter`) a tie is his to decide, so it waits."""
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
    """Кодекс 4.2.8: the writer may still fix his record freely — it is the latest record and is
    at most `pencil_seconds` old."""
    return latest and now - written_at <= timedelta(seconds=pencil_seconds)


def dispute_window(next_deal_at: datetime | None, now: datetime, grace_seconds: int) -> bool:
    """Кодекс 4.2.9: a record may be disputed while no deal follows it (`next_deal_at` None), or
    while the deal after it is younger than `grace_seconds` — the bot cannot see the end of the
    next bidding, so the next record marks it."""
    return next_deal_at is None or now - next_deal_at < timedelta(seconds=grace_seconds)


@dataclass(frozen=True, slots=True)
class DisputeTerms:
    """Who may propose a correction and how many must agree."""

    allowed: bool
    threshold: Threshold


def dispute_terms(inside_window: bool, *, by_writer: bool) -> DisputeTerms:
    """Кодекс 4.2.9: inside the window any player proposes and a strict majority decides; after it
    only the record's writer may ("by the recorder's good will") and every player must agree."""
    if inside_window:
        return DisputeTerms(True, Threshold.MAJORITY)
    return DisputeTerms(by_writer, Threshold.ALL)


def late_window(latest_deal_at: datetime, now: datetime, grace_seconds: int) -> bool:
    """Кодекс 4.2.10: a forgotten deal may still be inserted before the latest deal while that one
    is younger than `grace_seconds`; every player must agree (`LATE_THRESHOLD`)."""
    return now - latest_deal_at < timedelta(seconds=grace_seconds)


LATE_THRESHOLD = Threshold.ALL  # 4.2.10: "any one partner refusing ends it"
RULE_CHANGE_THRESHOLD = Threshold.ALL  # conventions.md §1.4: every player's consent
END_THRESHOLD = Threshold.ALL  # an early end: every player agrees
ARBITER_THRESHOLD = Threshold.ALL  # an arbiter named mid-game: every player agrees


def correction_outcome(record_penalties: bool, *, earlier_corrections: int) -> Outcome:
    """Кодекс 4.2.7: with `record_penalties`, a writer's first accepted correction is a warning and
    later ones are penalised. A correction by vote (`/dispute`) is never under the pencil rule,
    however soon after the record it was proposed (corrections.md 4.2.8): only the author's own
    `/undo` or `/edit` is free, and that is no correction by vote. `earlier_corrections`: his
    accepted corrections by vote before this one."""
    if not record_penalties:
        return Outcome.FREE
    return Outcome.WARNING if earlier_corrections == 0 else Outcome.PENALTY
