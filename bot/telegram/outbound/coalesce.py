"""Sheet pictures waiting in one chat go out as one: the newest."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from bot.domain import Owed, OwedKind, OwedRow
from bot.texts.views import MESSAGE_LIMIT, plain_text

SHEETS: Final = frozenset({OwedKind.SHEET, OwedKind.REDRAW})
BEHIND: Final = 50  # rows looked at behind the claimed one; a longer run goes on in the next round
JOIN: Final = "\n\n"


@dataclass(frozen=True, slots=True)
class Merge:
    """A run of waiting sheets as it goes out: `first` instead, `done` marked sent, `last` left."""

    first: Owed
    done: tuple[int, ...]
    last: tuple[int, Owed] | None = None


def run_of(first: OwedRow, behind: Sequence[OwedRow]) -> list[OwedRow]:
    """The claimed sheet row and the sheet rows of the same game right behind it in its chat."""
    run = [first]
    for row in behind:
        if row.owed.kind not in SHEETS or row.owed.game_id != first.owed.game_id:
            break
        run.append(row)
    return run


def merge(run: Sequence[OwedRow], caption_limit: int) -> Merge | None:
    """How a run of two or more sheets goes out (None: a run of one goes as it is)."""
    if len(run) < 2:
        return None
    joined = _captions(run)
    if len(plain_text(joined)) <= caption_limit:
        return Merge(replace(_picture(run), text=joined), tuple(row.id for row in run[1:]))
    skipped = _captions(run[:-1])
    while len(run) > 2 and len(skipped) > MESSAGE_LIMIT:  # one message, or a retry repeats
        run = run[:-1]
        skipped = _captions(run[:-1])
    if not skipped:  # only the newest has a caption, too long by itself: the sender splits it
        return Merge(_picture(run), tuple(row.id for row in run[1:]))
    first = run[0].owed
    text = Owed(first.chat_id, OwedKind.TEXT, skipped, first.lang, thread_id=first.thread_id)
    return Merge(text, tuple(row.id for row in run[1:-1]), (run[-1].id, _picture(run)))


def _captions(rows: Sequence[OwedRow]) -> str:
    return JOIN.join(row.owed.text for row in rows if row.owed.text)


def _picture(run: Sequence[OwedRow]) -> Owed:
    """The newest row's sheet: a new photo if any row of the run asked for one."""
    kinds = {row.owed.kind for row in run}
    kind = OwedKind.SHEET if OwedKind.SHEET in kinds else OwedKind.REDRAW
    return replace(run[-1].owed, kind=kind)
