"""The domain, below the core and the storage (docs/architecture.md): its rows, and the port each
database implements: `Store` opens units of work, `Repo` is what one may read and write in."""

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Final, Protocol

# Telegram keeps an unconfirmed update for 24 hours; a processed update older than twice that can
# never come back, so its row may go (in batches of PRUNE_BATCH, to keep each transaction short).
REDELIVERY_HORIZON: Final = timedelta(hours=48)
PRUNE_BATCH: Final = 500


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


class StoreBroken(Exception):
    """The start-up check found the database unusable; the message is the one line to show."""


class Fault(StrEnum):
    """What a database failure means for the command that met it."""

    TRANSIENT = "transient"  # lost connection, serialization failure, busy: may succeed soon
    UNWRITABLE = "unwritable"  # disk full, read-only: reads work, writes wait for an operator


class Repo(Protocol):
    """What the service may read and write inside one unit of work."""

    # Serialise this chat's units of work across processes until this one ends.
    async def lock_chat(self, chat_id: int) -> None: ...
    # Whether this update was already accepted: its id, unless both know the chat and differ in
    # chat or message (a new Bot API server, an old database; logged).
    async def update_seen(
        self, update_id: int, chat_id: int | None, message_id: int | None
    ) -> bool: ...
    # Keep the update as accepted, replacing an older update's row with this id; the same update
    # marked twice is an integrity error, so two processes never both handle it.
    async def mark_update(
        self, update_id: int, at: datetime, chat_id: int | None, message_id: int | None
    ) -> None: ...
    # A new game of the table (the chat, or its forum topic), numbered in the chat.
    async def create_game(
        self, chat_id: int, created_by: int | None, at: datetime, thread_id: int = 0
    ) -> GameRow: ...
    async def game(self, game_id: int) -> GameRow | None: ...
    # The table's game that has not ended (at most one; thread 0: the chat, General).
    async def live_game(self, chat_id: int, thread_id: int = 0) -> GameRow | None: ...
    # The chat's newest game, live or ended (with `thread_id`: of that forum topic).
    async def last_game(self, chat_id: int, thread_id: int | None = None) -> GameRow | None: ...
    # Every game that has not ended, oldest first (start-up: open votes to watch).
    async def live_games(self) -> list[GameRow]: ...
    async def set_status(self, game_id: int, status: GameStatus) -> None: ...
    # Add an event after the game's last one; its `seq` is the next number.
    async def append(
        self, game_id: int, kind: str, payload: dict[str, Any], author: int | None, at: datetime
    ) -> EventRow: ...
    # The game's events with `seq > after`, in order.
    async def events(self, game_id: int, after: int = 0) -> list[EventRow]: ...
    async def add_member(self, game_id: int, user_id: int) -> None: ...
    async def remove_member(self, game_id: int, user_id: int) -> None: ...
    # Live games in which the user plays or keeps the score, newest first.
    async def games_of_user(self, user_id: int) -> list[GameRow]: ...
    async def chat_locale(self, chat_id: int) -> str | None: ...
    async def set_chat_locale(self, chat_id: int, locale: str) -> None: ...
    async def chat_title(self, chat_id: int) -> str | None: ...
    async def set_chat_title(self, chat_id: int, title: str) -> None: ...
    # Move every game and the chat's settings to a new chat id; returns games moved.
    async def move_chat(self, old_chat_id: int, new_chat_id: int) -> int: ...
    async def sheet_message(self, game_id: int) -> int | None: ...
    async def set_sheet_message(self, game_id: int, message_id: int | None) -> None: ...

    # -- the archive: every game of a chat, a chat's settings, summaries of ended games ---------
    # The chat's language, title and time zone (all None for a chat never seen).
    async def chat_settings(self, chat_id: int) -> ChatSettings: ...
    async def set_chat_time_zone(self, chat_id: int, time_zone: str) -> None: ...
    # Every game of the chat, live or ended, newest first.
    async def chat_games(self, chat_id: int) -> list[GameRow]: ...
    async def chat_game(self, chat_id: int, number: int) -> GameRow | None: ...
    # Every game, live or ended, the account is a member of, newest first.
    async def account_games(self, user_id: int) -> list[GameRow]: ...
    # The stored summaries of these games: game id → (the engine that made it, payload).
    async def summaries(self, game_ids: list[int]) -> dict[int, tuple[str, dict[str, Any]]]: ...
    # Keep (game id, engine, payload) summaries, replacing any older one of a game.
    async def save_summaries(self, rows: list[tuple[int, str, dict[str, Any]]]) -> None: ...
    # Hold the lease until `until` if free, expired or `holder`'s; whether `holder` has it.
    async def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool: ...
    # Give the lease up at once if `holder` holds it (a clean shutdown).
    async def release_lease(self, name: str, holder: str) -> None: ...

    # aiogram's FSM storage, by key (a user in a chat): None and {} when nothing is kept
    async def fsm_state(self, key: str) -> str | None: ...
    async def set_fsm_state(self, key: str, state: str | None) -> None: ...
    async def fsm_data(self, key: str) -> dict[str, Any]: ...
    async def set_fsm_data(self, key: str, data: dict[str, Any]) -> None: ...

    # -- settling up (bot.core.ledger) ---------------------------------------------------------
    # The `debt_opened`/`debt_marked` events of the chat's games, game by game.
    async def debt_events(self, chat_id: int) -> DebtLog: ...
    # The same for every game, in any chat, in which the account sat.
    async def account_debt_events(self, user_id: int) -> DebtLog: ...
    # The account started the bot in private: the bot may write to it there, in `lang`.
    async def start_account(
        self, user_id: int, at: datetime, lang: str, username: str | None
    ) -> None: ...
    # Those of these accounts (by id or @username, any case) that started the bot.
    async def accounts(
        self, user_ids: Sequence[int], usernames: Sequence[str] = ()
    ) -> list[Account]: ...
    # The account blocked the bot: nothing is written to it in private any more.
    async def forget_account(self, user_id: int) -> None: ...
    async def reminder(self, chat_id: int) -> Reminder | None: ...
    # Remind the chat of its open debts every `every` seconds (None: never again).
    async def set_reminder(self, chat_id: int, every: int | None) -> None: ...
    async def reminders(self) -> list[Reminder]: ...
    # Mark the chat reminded at `at` if its reminder still reads `last_at`; whether it did.
    async def reminded(self, chat_id: int, at: datetime, last_at: datetime | None) -> bool: ...

    # -- the outbox (docs/architecture.md "Delivery") -----------------------------------------
    # Write owed messages (in the transaction of the command that owes them).
    async def owe(self, rows: list[Owed]) -> None: ...
    # In one statement, claim until `until` each chat's first unsent row due and unclaimed.
    async def claim_owed(self, claimant: str, now: float, until: float) -> list[OwedRow]: ...
    # Mark a claimed row sent with Telegram's message id; False if the claim was lost.
    async def owed_sent(
        self, row_id: int, claimant: str, message_id: int | None, now: float
    ) -> bool: ...
    # Give a claimed row back after a failed attempt, due again at `not_before`.
    async def owed_retry(
        self, row_id: int, claimant: str, not_before: float, error: str
    ) -> None: ...
    # Give a claimed row back unsent, counting no attempt; False if the claim was lost.
    async def owed_release(self, row_id: int, claimant: str, not_before: float) -> bool: ...
    # Up to `limit` unsent rows of the chat after `row_id`, in order (for coalescing).
    async def owed_after(self, chat_id: int, row_id: int, limit: int) -> list[OwedRow]: ...
    # Owe `owed` in the unsent row's place (and order), with `claimant` only while that sender's
    # claim holds; whether the row was rewritten.
    async def owed_replace(self, row_id: int, owed: Owed, claimant: str | None = None) -> bool: ...
    # Mark unsent rows sent with another row's message (a newer sheet); how many.
    async def owed_done(self, row_ids: Sequence[int], now: float) -> int: ...
    # A redraw whose picture was edited in place: what is left to send is its text.
    async def owed_as_text(self, row_id: int) -> None: ...
    # Give back every unsent row `claimant` holds but those in `keep`; how many.
    async def release_claims(self, claimant: str, keep: Sequence[int] = ()) -> int: ...
    async def owed_claimants(self) -> list[str]: ...
    async def prune_sent(self, before: float) -> int: ...

    # -- tournaments (a table: a chat and its forum topic, 0 for none) ---------------------------
    async def create_tournament(
        self, code: str, home: tuple[int, int], created_by: int | None, at: datetime
    ) -> TournamentRow: ...
    async def tournament(self, tournament_id: int) -> TournamentRow | None: ...
    async def tournament_by_code(self, code: str) -> TournamentRow | None: ...
    # The newest tournament created at this table.
    async def home_tournament(self, chat_id: int, thread_id: int) -> TournamentRow | None: ...
    async def table_tournament(self, chat_id: int, thread_id: int) -> int | None: ...
    async def set_table_tournament(
        self, chat_id: int, thread_id: int, tournament_id: int
    ) -> None: ...
    # A group became a supergroup: its tables and homes move; the tournaments it played.
    async def move_tournament_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]: ...
    async def append_tournament(
        self,
        tournament_id: int,
        kind: str,
        payload: dict[str, Any],
        author: int | None,
        at: datetime,
    ) -> EventRow: ...
    async def tournament_events(self, tournament_id: int) -> list[EventRow]: ...


class Store(Protocol):
    # One unit of work at a time (SQLite): the core reads before the writing transaction;
    # else it reads inside, under `Repo.lock_chat`.
    serial: bool

    # A unit of work that writes: committed at the end of the block, rolled back on error.
    def transaction(self) -> AbstractAsyncContextManager[Repo]: ...
    def reading(self) -> AbstractAsyncContextManager[Repo]: ...
    # One writing statement that is its own transaction (the sender's claim and marks).
    def statement(self) -> AbstractAsyncContextManager[Repo]: ...
    # The start-up check: the database is whole and takes a write; `StoreBroken` if not.
    async def check(self) -> None: ...
    # `SELECT 1` (health check): raises if the database does not answer; takes no turn.
    async def ping(self) -> None: ...
    # Delete the processed updates before `before`, `batch` per transaction; how many.
    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int: ...
    # What kind of database failure `error` is; None when it is none (a bug).
    def fault(self, error: BaseException) -> Fault | None: ...
    async def close(self) -> None: ...
