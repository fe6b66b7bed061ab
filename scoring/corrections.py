"""Record penalties — Кодекс 4.2.7 (seed C), spec/corrections.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.deal import Adjust, Column, Record
from scoring.replay import replay
from scoring.rules import Rules
from scoring.sheet import Game, Totals
from scoring.voting import Outcome, correction_outcome

PENALTY_NOTE = "penalty"


def favour(author: int, wrong: Totals, right: Totals) -> list[Adjust]:
    """The penalty entries for what the wrong record over-wrote in its author's favour (4.2.7)."""
    penalties: list[Adjust] = []
    for partner in range(len(wrong.pool)):
        if partner == author:
            continue
        extra = wrong.whists[author][partner] - right.whists[author][partner]
        if extra > 0:
            penalties.append(Adjust(partner, Column.WHISTS, extra, author, PENALTY_NOTE))
    extra_pool = wrong.pool[author] - right.pool[author]
    if extra_pool > 0:
        penalties.append(Adjust(author, Column.MOUNTAIN, extra_pool, None, PENALTY_NOTE))
    return penalties


def record_penalty(
    game: Game, records: Sequence[Record], index: int, corrected: Record, author: int
) -> tuple[Adjust, ...]:
    """Penalty entries for replacing `records[index]` (written by `author`) with `corrected`."""
    before = list(records[:index])
    wrong = replay(game, [*before, records[index]]).totals
    right = replay(game, [*before, corrected]).totals
    return tuple(favour(author, wrong, right))


@dataclass(frozen=True, slots=True)
class PenaltyOutlook:
    """What accepting a correction would cost the record's author (corrections.md 4.2.7)."""

    warning: bool  # his first corrected error: free, as a warning
    entries: tuple[Adjust, ...]  # the penalty entries (none when free or nothing favoured him)


NO_PENALTY = PenaltyOutlook(False, ())


def correction_penalty(
    rules: Rules,
    game: Game,
    records: Sequence[Record],
    index: int,
    corrected: Record,
    author: int | None,
    earlier_corrections: int,
) -> PenaltyOutlook:
    """The penalty a proposed correction would bring, to show before anyone votes."""
    outcome = correction_outcome(rules.record_penalties, earlier_corrections=earlier_corrections)
    if author is None or outcome is Outcome.FREE:
        return NO_PENALTY
    if outcome is Outcome.WARNING:
        return PenaltyOutlook(True, ())
    return PenaltyOutlook(False, record_penalty(game, records, index, corrected, author))
