"""Record penalties — Кодекс 4.2.7 (seed C), spec/corrections.md."""

from __future__ import annotations

from collections.abc import Sequence

from scoring.deal import Adjust, Column, Record
from scoring.replay import replay
from scoring.sheet import Game

PENALTY_NOTE = "penalty"


def record_penalty(
    game: Game, records: Sequence[Record], index: int, corrected: Record, author: int
) -> tuple[Adjust, ...]:
    """Entries mirroring what `records[index]` (by `author`) over-wrote in his favour vs `corrected`."""
    before = list(records[:index])
    wrong = replay(game, [*before, records[index]]).totals
    right = replay(game, [*before, corrected]).totals
    penalties: list[Adjust] = []
    for partner in range(len(wrong.pool)):
        extra = wrong.whists[author][partner] - right.whists[author][partner]
        if partner != author and extra > 0:
            penalties.append(Adjust(partner, Column.WHISTS, extra, author, PENALTY_NOTE))
    extra_pool = wrong.pool[author] - right.pool[author]
    if extra_pool > 0:
        penalties.append(Adjust(author, Column.MOUNTAIN, extra_pool, None, PENALTY_NOTE))
    return tuple(penalties)
