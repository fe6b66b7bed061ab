"""What the bot owes a chat (docs/architecture.md "Delivery"), delivered by the sender."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class OwedKind(StrEnum):
    """What an owed row asks the sender to do."""

    TEXT = "text"  # send `text` (or edit `target` when set) with `markup`
    SHEET = "sheet"  # draw game `game_id` as of event `seq`, send it with `text` as caption
    REDRAW = "redraw"  # the same, redrawn in place of the live sheet when it is near `reply_to`
    VOTE = "vote"  # edit vote `seq`'s message `target`, or post it anew and remember it
    DOCUMENT = "document"  # send `body` as the file `filename` with `text` as caption
    PHOTO = "photo"  # send `body` (a PNG drawn by the command: /top) with `text` as caption


@dataclass(frozen=True, slots=True)
class Owed:
    """One message the bot owes a chat, written in the transaction of the command that owes it."""

    chat_id: int
    kind: OwedKind
    text: str = ""  # rendered HTML: the message, the caption
    lang: str = "en"  # the picture's language
    markup: str | None = None  # the inline keyboard as JSON
    game_id: int | None = None  # the game whose sheet (SHEET, REDRAW) or vote (VOTE) this is
    seq: int | None = None  # the event seq the sheet is drawn at; the vote's seq
    target: int | None = None  # the message to edit (a vote's, a button's)
    reply_to: int | None = None  # the command's message
    body: bytes | None = None  # a document's content
    filename: str | None = None
    thread_id: int | None = None  # the forum topic it goes to (None: the chat itself)


@dataclass(frozen=True, slots=True)
class OwedRow:
    """An owed row claimed by one sender; `attempts` failed before."""

    id: int
    owed: Owed
    attempts: int
