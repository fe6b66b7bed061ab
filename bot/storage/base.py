"""The repository interface in front of the database.

The service opens a unit of work with `store.transaction()` (or `store.reading()` to only look) and calls
the repository methods of `Repo` inside it; the unit commits when the block ends and rolls back on an
exception. Repository methods never commit. Another database replaces SQLite by implementing these two
Protocols.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Final, Protocol

log = logging.getLogger(__name__)

# Telegram keeps an unconfirmed update for 24 hours; a processed update older than twice that can
# never come back, so its row may go (in batches of PRUNE_BATCH, to keep each transaction short).
REDELIVERY_HORIZON: Final = timedelta(hours=48)
PRUNE_BATCH: Final = 500


class StoreBroken(Exception):
    """The start-up check found the database unusable (corrupted, read-only, unreachable); the
    message is the one line to show."""


def same_update(
    update_id: int,
    kept: tuple[int | None, int | None],
    chat_id: int | None,
    message_id: int | None,
) -> bool:
    """Whether a processed update's row (its chat and message) is this update again. A row or a
    caller that does not know them (an old row, a button without a message) counts as the same; an
    update_id that comes back with another chat or message is a new update (a new Bot API server,
    an old database): it is logged and handled."""
    kept_chat, kept_message = kept
    if kept_chat is None or chat_id is None:
        return True
    if (kept_chat, kept_message) == (chat_id, message_id):
        return True
    log.warning(
        "update_id %s came back for chat %s message %s (kept: chat %s message %s): a new update,"
        " handled",
        update_id,
        chat_id,
        message_id,
        kept_chat,
        kept_message,
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

    @property
    def chat_number(self) -> int:
        """The number its chat knows it by ("Game #1"); a row from before the per-chat number
        has its global id."""
        return self.number or self.game_id


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


class OwedKind(StrEnum):
    """What an owed row asks the sender to do (docs/architecture.md "Delivery")."""

    TEXT = "text"  # send `text` (or edit `target` when set) with `markup`
    SHEET = "sheet"  # draw game `game_id` as of event `seq`, send it with `text` as caption
    REDRAW = "redraw"  # the same, redrawn in place of the live sheet when it is near `reply_to`
    VOTE = "vote"  # edit vote `seq`'s message `target`, or post it anew and remember it
    DOCUMENT = "document"  # send `body` as the file `filename` with `text` as caption


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


@dataclass(frozen=True, slots=True)
class OwedRow:
    """An owed row claimed by one sender; `attempts` failed before."""

    id: int
    owed: Owed
    attempts: int


OWED_COLUMNS = "chat_id, kind, text, lang, markup, game_id, seq, target, reply_to, body, filename"
# What a row owes, its chat aside: the columns `Repo.owed_replace` rewrites, in `owed_values` order.
OWED_CONTENT = tuple(OWED_COLUMNS.split(", ")[1:])


def owed_values(owed: Owed) -> tuple[Any, ...]:
    """The values of `OWED_COLUMNS`, in order."""
    o = owed
    head = (o.chat_id, o.kind.value, o.text, o.lang, o.markup, o.game_id, o.seq)
    return (*head, o.target, o.reply_to, o.body, o.filename)


def owed_row(row: Any) -> OwedRow:
    """An `OwedRow` from `id, attempts, <OWED_COLUMNS>` (either backend's row)."""
    body = row[11]
    owed = Owed(
        row[2],
        OwedKind(row[3]),
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        bytes(body) if body is not None else None,
        row[12],
    )
    return OwedRow(row[0], owed, row[1])


class Repo(Protocol):
    """What the service may read and write inside one unit of work."""

    async def lock_chat(self, chat_id: int) -> None:
        """Serialise this chat's units of work across processes until this one ends (PostgreSQL:
        an advisory lock; SQLite has one writer, so nothing to do)."""

    async def update_seen(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        """Whether this update was already accepted: a row with its id, and (when both are
        known) its chat and message (`same_update`)."""

    async def mark_update(
        self,
        update_id: int,
        at: datetime,
        chat_id: int | None = None,
        message_id: int | None = None,
    ) -> None:
        """Keep the update as accepted; the row of an older update with this id but another
        chat or message goes first. The same update marked twice is refused (an integrity error):
        two processes never both handle it."""

    async def create_game(self, chat_id: int, created_by: int | None, at: datetime) -> GameRow: ...

    async def game(self, game_id: int) -> GameRow | None: ...

    async def live_game(self, chat_id: int) -> GameRow | None:
        """The chat's game that has not ended, if any (at most one)."""

    async def last_game(self, chat_id: int) -> GameRow | None:
        """The chat's newest game, live or ended."""

    async def live_games(self) -> list[GameRow]:
        """Every game that has not ended, oldest first (start-up: open votes to watch)."""

    async def set_status(self, game_id: int, status: GameStatus) -> None: ...

    async def append(
        self,
        game_id: int,
        kind: str,
        payload: dict[str, Any],
        author: int | None,
        at: datetime,
    ) -> EventRow:
        """Add an event after the game's last one; its `seq` is the next number."""

    async def events(self, game_id: int, after: int = 0) -> list[EventRow]:
        """The game's events with `seq > after`, in order."""

    async def add_member(self, game_id: int, user_id: int) -> None: ...

    async def remove_member(self, game_id: int, user_id: int) -> None: ...

    async def games_of_user(self, user_id: int) -> list[GameRow]:
        """Live games in which the user plays or keeps the score, newest first."""

    async def chat_locale(self, chat_id: int) -> str | None: ...

    async def set_chat_locale(self, chat_id: int, locale: str) -> None: ...

    async def chat_title(self, chat_id: int) -> str | None: ...

    async def set_chat_title(self, chat_id: int, title: str) -> None: ...

    async def move_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """Move every game and the chat's settings to a new chat id; returns games moved."""

    async def sheet_message(self, game_id: int) -> int | None: ...

    async def set_sheet_message(self, game_id: int, message_id: int | None) -> None: ...

    async def count_events(self) -> int:
        """Every event of every game (for tests and health checks)."""

    async def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        """Hold the lease `name` until `until` if it is free, expired (`expires_at <= now`) or
        already `holder`'s (a renewal); whether `holder` holds it now (one vote clock)."""

    async def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up at once if `holder` holds it (a clean shutdown)."""

    async def lease_holder(self, name: str, now: datetime) -> str | None:
        """Who holds the lease now (None when free or expired)."""

    async def fsm_state(self, key: str) -> str | None:
        """aiogram FSM state of one key (a user in a chat), None when none."""

    async def set_fsm_state(self, key: str, state: str | None) -> None: ...

    async def fsm_data(self, key: str) -> dict[str, Any]:
        """aiogram FSM data of one key, {} when none."""

    async def set_fsm_data(self, key: str, data: dict[str, Any]) -> None: ...
    # -- the outbox (docs/architecture.md "Delivery") -----------------------------------------
    async def owe(self, rows: list[Owed]) -> None:
        """Write owed messages (in the transaction of the command that owes them)."""

    async def claim_owed(self, claimant: str, now: float, until: float) -> list[OwedRow]:
        """In one statement, claim each chat's first unsent row that is due (`not_before` ≤
        `now`) and not claimed by a live lease, until `until` (seconds since the epoch)."""

    async def owed_sent(
        self, row_id: int, claimant: str, message_id: int | None, now: float
    ) -> bool:
        """Mark a claimed row sent with Telegram's message id; False if the claim was lost."""

    async def owed_retry(self, row_id: int, claimant: str, not_before: float, error: str) -> None:
        """Give a claimed row back after a failed attempt, due again at `not_before`."""

    async def owed_release(self, row_id: int, claimant: str, not_before: float) -> bool:
        """Give a claimed row back unsent, due again at `not_before`, without counting an attempt
        (nothing failed: the chat's pace); False if the claim was lost."""

    async def owed_after(self, chat_id: int, row_id: int, limit: int) -> list[OwedRow]:
        """The chat's unsent rows after row `row_id`, in order, at most `limit`: while a sender
        holds the chat's first row, the rows behind it are its to look at (coalescing)."""

    async def owed_replace(self, row_id: int, owed: Owed, claimant: str | None = None) -> bool:
        """Owe `owed` (of the same chat) in the unsent row's place, which keeps its place in the
        chat's order; with `claimant`, only while that sender's claim on it holds. Whether the
        row was rewritten."""

    async def owed_done(self, row_ids: Sequence[int], now: float) -> int:
        """Mark unsent rows sent without a message of their own: what they owed went out with
        another row (a newer sheet sent in their place); how many."""

    async def owed_as_text(self, row_id: int) -> None:
        """A redraw whose picture was edited in place: what is left to send is its text."""

    async def release_claims(self, claimant: str, keep: Sequence[int] = ()) -> int:
        """Give back every unsent row a sender claimed but those in `keep` (a dead sender's, or
        a live one's claims whose answer was lost); how many."""

    async def owed_claimants(self) -> list[str]:
        """The senders holding claims on unsent rows."""

    async def owed_count(self) -> int:
        """Unsent rows."""

    async def prune_sent(self, before: float) -> int:
        """Forget rows sent before `before`; how many."""


class Store(Protocol):
    # True when one unit of work runs at a time in one process (SQLite's one connection): the core
    # then reads before the writing transaction, so no chat holds the store while it replays.
    # False (PostgreSQL, several instances): the core reads under `Repo.lock_chat` inside it.
    serial: bool

    def transaction(self) -> AbstractAsyncContextManager[Repo]:
        """A unit of work that writes: committed at the end of the block, rolled back on error."""

    def reading(self) -> AbstractAsyncContextManager[Repo]:
        """A unit of work that only reads."""

    def statement(self) -> AbstractAsyncContextManager[Repo]:
        """One writing statement that is its own transaction (the sender's claim and its marks:
        SQLite runs it without `BEGIN`/`COMMIT`, two trips to its thread fewer)."""

    async def check(self) -> None:
        """The start-up check: the database is whole and takes a write; `StoreBroken` if not."""

    async def ping(self) -> None:
        """`SELECT 1`: the database answers (the health check); it raises if not. It reads no
        table and takes no unit of work's turn."""

    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int:
        """Delete the processed updates kept before `before`, `batch` rows per transaction;
        returns how many went."""

    async def close(self) -> None: ...
