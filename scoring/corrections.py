"""Record penalties — Кодекс 4.2.7 (seed C), spec/corrections.md.

"An error in the record may be corrected by the partners, but without penalty only the first time, as
a warning … the penalty for an over-recording equals the over-recording": whists over-written on a
partner — the partner writes as many on the author; pool points over-written — as many into the
author's mountain. We also count whists under-written on the author and a mountain under-written for
him as in his favour (the same rule, "за равное — равным"). The amounts come from replaying the log both ways up to the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from scoring.deal import Adjust, Column, Record
from scoring.replay import replay
from scoring.sheet import Game, Totals

PENALTY_NOTE = "penalty"


def favour(author: int, wrong: Totals, right: Totals) -> list[Adjust]:
    """The mirror entries of what the wrong record gave its author over the right one."""
    penalties: list[Adjust] = []
    for partner in range(len(wrong.pool)):
        if partner == author:
            continue
        extra = wrong.whists[author][partner] - right.whists[author][partner]
        extra += right.whists[partner][author] - wrong.whists[partner][author]
        if extra > 0:
            penalties.append(Adjust(partner, Column.WHISTS, extra, author, PENALTY_NOTE))
    extra_pool = wrong.pool[author] - right.pool[author]
    missing_mountain = right.mountain[author] - wrong.mountain[author]
    points = max(Fraction(0), extra_pool) + max(Fraction(0), missing_mountain)
    if points > 0:
        penalties.append(Adjust(author, Column.MOUNTAIN, points, None, PENALTY_NOTE))
    return penalties


def record_penalty(
    game: Game, records: Sequence[Record], index: int, corrected: Record, author: int
) -> tuple[Adjust, ...]:
    """Penalty entries for replacing `records[index]` (written by `author`) with `corrected`.

    Compared right after the record: what came later may depend on it, but the over-recording is
    what the author wrote then. Whether this correction is the author's first (a warning, no
    penalty) is the caller's count of accepted corrections.
    """
    before = list(records[:index])
    wrong = replay(game, [*before, records[index]]).totals
    right = replay(game, [*before, corrected]).totals
    return tuple(favour(author, wrong, right))
