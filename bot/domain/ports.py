"""The port the application core works through and each database implements: `Store` opens units
of work (`transaction`, `reading`, `statement`), `Repo` is what one of them may read and write, and
`Store.fault` tells what kind of failure a driver's exception is (the core retries the transient
ones and answers honestly for the others). Repository methods never commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from bot.domain.owed import Owed, OwedRow
from bot.domain.rows import (
    PRUNE_BATCH,
    Account,
    ChatSettings,
    DebtLog,
    EventRow,
    GameRow,
    GameStatus,
    Reminder,
)
from bot.domain.tournaments import TournamentRow


class StoreBroken(Exception):
    """The start-up check found the database unusable (corrupted, read-only, unreachable); the
    message is the one line to show."""


class Fault(StrEnum):
    """What a database failure means for the command that met it."""

    TRANSIENT = "transient"  # a dropped connection, a serialization failure, a deadlock, busy:
    # the same command may well succeed a moment later
    UNWRITABLE = "unwritable"  # disk full, a read-only database: reads work, writes will not
    # until an operator acts


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

    async def create_game(
        self, chat_id: int, created_by: int | None, at: datetime, thread_id: int = 0
    ) -> GameRow:
        """A new game of the table (the chat, or its forum topic `thread_id`), numbered in the
        chat."""

    async def game(self, game_id: int) -> GameRow | None: ...

    async def live_game(self, chat_id: int, thread_id: int = 0) -> GameRow | None:
        """The table's game that has not ended, if any (at most one per chat and forum topic;
        0: the chat itself, or a forum's General topic)."""

    async def last_game(self, chat_id: int, thread_id: int | None = None) -> GameRow | None:
        """The chat's newest game, live or ended (with `thread_id`: of that forum topic)."""

    async def live_games(self) -> list[GameRow]:
        """Every game that has not ended, oldest first (start-up: open votes to watch)."""

    async def recent_games(self, since: datetime, limit: int) -> list[GameRow]:
        """The games not ended whose last event is at `since` or later, the latest first, at most
        `limit` (start-up: the games in play, to warm)."""

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

    async def snapshot(self, game_id: int) -> tuple[int, str, bytes] | None:
        """The game's stored snapshot (`bot.core.snapshots`): its seq, engine version, bytes."""

    async def put_snapshot(
        self, game_id: int, seq: int, version: str, data: bytes, at: datetime
    ) -> None:
        """Keep the game's snapshot at `seq`, unless one kept of this version is newer (a
        snapshot is a cache beside the log: writing it never touches the events)."""

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

    # -- the archive: every game of a chat, a chat's settings, summaries of ended games ---------
    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """The chat's language, title and time zone (all None for a chat never seen)."""

    async def set_chat_time_zone(self, chat_id: int, time_zone: str) -> None: ...

    async def chat_games(self, chat_id: int) -> list[GameRow]:
        """Every game of the chat, live or ended, newest first."""

    async def chat_game(self, chat_id: int, number: int) -> GameRow | None:
        """The chat's game with this number (`GameRow.chat_number`)."""

    async def account_games(self, user_id: int) -> list[GameRow]:
        """Every game, live or ended, in which the account plays or keeps the score (its
        `members` rows), newest first."""

    async def summaries(self, game_ids: list[int]) -> dict[int, tuple[str, dict[str, Any]]]:
        """The stored summaries of these games: game id → (the engine that made it, payload)."""

    async def save_summaries(self, rows: list[tuple[int, str, dict[str, Any]]]) -> None:
        """Keep (game id, engine, payload) summaries, replacing any older one of a game."""

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
    # -- settling up (bot.core.ledger) ---------------------------------------------------------
    async def debt_events(self, chat_id: int) -> DebtLog:
        """The `debt_opened`/`debt_marked` events of the chat's games, game by game (a
        projection of the log: the fold of each game's whole log gives the same debts)."""

    async def account_debt_events(self, user_id: int) -> DebtLog:
        """The same for every game, in any chat, in which the account sat."""

    async def start_account(
        self, user_id: int, at: datetime, lang: str, username: str | None
    ) -> None:
        """The account started the bot in private: the bot may write to it there, in `lang`."""

    async def accounts(
        self, user_ids: Sequence[int], usernames: Sequence[str] = ()
    ) -> list[Account]:
        """Of these accounts (by id, or by @username, any case), those that started the bot in
        private."""

    async def forget_account(self, user_id: int) -> None:
        """The account blocked the bot: nothing is written to it in private any more."""

    async def reminder(self, chat_id: int) -> Reminder | None: ...

    async def set_reminder(self, chat_id: int, every: int | None) -> None:
        """Remind the chat of its open debts every `every` seconds (None: never again)."""

    async def reminders(self) -> list[Reminder]:
        """Every chat's reminder."""

    async def reminded(self, chat_id: int, at: datetime, last_at: datetime | None) -> bool:
        """Mark the chat reminded at `at` if its reminder still reads `last_at` (two instances
        never both remind); whether it did."""

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

    # -- tournaments (a table: a chat and its forum topic, 0 for none) ---------------------------
    async def create_tournament(
        self, code: str, home: tuple[int, int], created_by: int | None, at: datetime
    ) -> TournamentRow: ...

    async def tournament(self, tournament_id: int) -> TournamentRow | None: ...

    async def tournament_by_code(self, code: str) -> TournamentRow | None: ...

    async def home_tournament(self, chat_id: int, thread_id: int) -> TournamentRow | None:
        """The newest tournament created at this table."""

    async def table_tournament(self, chat_id: int, thread_id: int) -> int | None:
        """The tournament the table plays in, if any."""

    async def set_table_tournament(
        self, chat_id: int, thread_id: int, tournament_id: int
    ) -> None: ...

    async def move_tournament_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        """A group upgraded to a supergroup: its tables and homes move; the tournaments whose
        table it was."""

    async def append_tournament(
        self,
        tournament_id: int,
        kind: str,
        payload: dict[str, Any],
        author: int | None,
        at: datetime,
    ) -> EventRow:
        """Append to the tournament's log (seq is its next)."""

    async def tournament_events(self, tournament_id: int) -> list[EventRow]: ...


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

    def fault(self, error: BaseException) -> Fault | None:
        """What kind of database failure `error` is; None when it is none (a bug)."""

    async def close(self) -> None: ...
