"""Sheet pictures waiting in one chat go out as one: the newest.

When deals come faster than a group may be sent messages (20 a minute), their sheets queue up in
the outbox. Each picture would show the game a deal later than the one before, so only the newest
is worth sending; what the skipped ones said, their captions, still reaches the chat: joined into
the newest picture's caption when they fit Telegram's 1,024 characters, else as one text message
(split only past Telegram's 4,096) just before the picture. A row of another kind (a text, a vote,
a document) ends the run, so the chat's order is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from bot.storage import Owed, OwedKind, OwedRow
from bot.texts.views import plain_text

SHEETS: Final = frozenset({OwedKind.SHEET, OwedKind.REDRAW})
BEHIND: Final = 50  # rows looked at behind the claimed one; a longer run goes on in the next round
JOIN: Final = "\n\n"


@dataclass(frozen=True, slots=True)
class Merge:
    """A run of waiting sheets as it goes out: the claimed row owes `first` instead, the rows
    `done` are marked sent (what they owed is in `first`), and when the skipped captions are
    too long for one caption, `first` is that text and `last` (a row id, what it owes) the
    picture that follows it."""

    first: Owed
    done: tuple[int, ...]
    last: tuple[int, Owed] | None = None


def run_of(first: OwedRow, behind: Sequence[OwedRow]) -> list[OwedRow]:
    """The claimed sheet row and the sheet rows of the same game right behind it in its chat."""
    if first.owed.kind not in SHEETS:
        return [first]
    run = [first]
    for row in behind:
        if row.owed.kind not in SHEETS or row.owed.game_id != first.owed.game_id:
            break
        run.append(row)
    return run


def merge(run: Sequence[OwedRow], caption_limit: int) -> Merge | None:
    """How a run of two or more sheets goes out (None: a run of one goes as it is).

    The newest row's picture (its game at its seq) is sent; it is a new photo if any row of the
    run asked for one, and a redraw in place only when every row did."""
    if len(run) < 2:
        return None
    first, newest = run[0].owed, run[-1].owed
    kinds = {row.owed.kind for row in run}
    sheet = replace(newest, kind=OwedKind.SHEET if OwedKind.SHEET in kinds else OwedKind.REDRAW)
    captions = [row.owed.text for row in run if row.owed.text]
    joined = JOIN.join(captions)
    if len(plain_text(joined)) <= caption_limit:
        return Merge(replace(sheet, text=joined), tuple(row.id for row in run[1:]))
    skipped = JOIN.join(row.owed.text for row in run[:-1] if row.owed.text)
    if not skipped:  # only the newest has a caption, too long by itself: the sender splits it
        return Merge(sheet, tuple(row.id for row in run[1:]))
    text = Owed(first.chat_id, OwedKind.TEXT, skipped, first.lang)
    return Merge(text, tuple(row.id for row in run[1:-1]), (run[-1].id, sheet))
