"""The domain's rows: games, their logs, tournaments, what the bot owes a chat (docs/architecture.md
"Delivery"), and which update is the same update again."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Final

log = logging.getLogger(__name__)

# Telegram keeps an unconfirmed update for 24 hours; a processed update older than twice that can
# never come back, so its row may go (in batches of PRUNE_BATCH, to keep each transaction short).
REDELIVERY_HORIZON: Final = timedelta(hours=48)
PRUNE_BATCH: Final = 500


def same_update(
    update_id: int,
    kept: tuple[int | None, int | None],
    chat_id: int | None,
    message_id: int | None,
) -> bool:
    """Whether a processed update's row is this update again: the same unless both know the chat
    and they differ in chat or message (a new Bot API server, an old database; logged)."""
    if kept[0] is None or chat_id is None or kept == (chat_id, message_id):
        return True
    log.warning(
        "update_id %s came back for chat %s message %s (kept: chat %s message %s): a new update,"
        " handled",
        update_id,
        chat_id,
        message_id,
        *kept,
    )
    return False


class GameStatus(StrEnum):
    """An index over the log (the log says the same): which game of a chat is live."""

    FORMING = "forming"  # created, players joining
    PLAYING = "playing"  # started: deals may be recorded
    ENDED = "ended"  # finished or cancelled; read-only


@dataclass(frozen=True, slots=True)
class GameRow:
    game_id: int
    chat_id: int
    status: GameStatus
    created_by: int | None
    created_at: datetime
    number: int | None = None  # the game's number in its chat (1 for a group's first game)
    thread_id: int = 0  # its forum topic (a table of its own); 0: the General topic, any group

    @property
    def chat_number(self) -> int:
        """Its number in its chat ("Game #1"); a row older than that number shows its global id."""
        return self.number or self.game_id


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """What a chat chose: its language and time zone (None: not chosen), and its title."""

    locale: str | None = None
    title: str | None = None
    time_zone: str | None = None  # an IANA name such as Europe/Moscow


@dataclass(frozen=True, slots=True)
class EventRow:
    """One line of a game's append-only log; `seq` numbers a game's events 1, 2, …"""

    game_id: int
    seq: int
    kind: str
    payload: dict[str, Any]
    author: int | None  # Telegram user id; None for the bot itself
    at: datetime
    schema_version: int


@dataclass(frozen=True, slots=True)
class Reminder:
    """A chat's reminder, every `every` seconds, of debts older than that; `last_at`: its last."""

    chat_id: int
    every: int
    last_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Account:
    """An account that started the bot in private (the bot may write there), as it was then."""

    user_id: int
    lang: str
    username: str | None = None


DebtLog = list[tuple[GameRow, list[EventRow]]]  # debt events, game by game (`Repo.debt_events`)


@dataclass(frozen=True, slots=True)
class TournamentRow:
    tournament_id: int
    code: str  # what a table types to join it
    home_chat_id: int  # where it was created: its standings are posted there
    home_thread_id: int  # the home's forum topic (0: the chat itself)
    created_by: int | None
    created_at: datetime


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
