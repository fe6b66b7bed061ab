"""The port the core works through and each database implements: `Store` opens units of work,
`Repo` is what one may read and write (never committing), `Store.fault` classes a driver's error."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from bot.domain.rows import (
    PRUNE_BATCH,
    Account,
    ChatSettings,
    DebtLog,
    EventRow,
    GameRow,
    GameStatus,
    Owed,
    OwedRow,
    Reminder,
    TournamentRow,
)


class StoreBroken(Exception):
    """The start-up check found the database unusable; the message is the one line to show."""


class Fault(StrEnum):
    """What a database failure means for the command that met it."""

    TRANSIENT = "transient"  # lost connection, serialization failure, busy: may succeed soon
    UNWRITABLE = "unwritable"  # disk full, read-only: reads work, writes wait for an operator


class Repo(Protocol):
    """What the service may read and write inside one unit of work."""

    async def lock_chat(self, chat_id: int) -> None:
        """Serialise this chat's units of work across processes until this one ends."""

    async def update_seen(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        """Whether this update was already accepted (its id, chat and message: `same_update`)."""

    async def mark_update(
        self,
        update_id: int,
        at: datetime,
        chat_id: int | None = None,
        message_id: int | None = None,
    ) -> None:
        """Keep the update as accepted, replacing an older update's row with this id; the same
        update marked twice is an integrity error, so two processes never both handle it."""

    async def create_game(
        self, chat_id: int, created_by: int | None, at: datetime, thread_id: int = 0
    ) -> GameRow:
        """A new game of the table (the chat, or its forum topic), numbered in the chat."""

    async def game(self, game_id: int) -> GameRow | None: ...
    async def live_game(self, chat_id: int, thread_id: int = 0) -> GameRow | None:
        """The table's game that has not ended (at most one; thread 0: the chat, General)."""

    async def last_game(self, chat_id: int, thread_id: int | None = None) -> GameRow | None:
        """The chat's newest game, live or ended (with `thread_id`: of that forum topic)."""

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

    # -- the archive: every game of a chat, a chat's settings, summaries of ended games ---------
    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """The chat's language, title and time zone (all None for a chat never seen)."""

    async def set_chat_time_zone(self, chat_id: int, time_zone: str) -> None: ...
    async def chat_games(self, chat_id: int) -> list[GameRow]:
        """Every game of the chat, live or ended, newest first."""

    async def chat_game(self, chat_id: int, number: int) -> GameRow | None:
        """The chat's game with this number (`GameRow.chat_number`)."""

    async def account_games(self, user_id: int) -> list[GameRow]:
        """Every game, live or ended, the account is a member of, newest first."""

    async def summaries(self, game_ids: list[int]) -> dict[int, tuple[str, dict[str, Any]]]:
        """The stored summaries of these games: game id → (the engine that made it, payload)."""

    async def save_summaries(self, rows: list[tuple[int, str, dict[str, Any]]]) -> None:
        """Keep (game id, engine, payload) summaries, replacing any older one of a game."""

    async def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        """Hold the lease until `until` if free, expired or `holder`'s; whether `holder` has it."""

    async def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up at once if `holder` holds it (a clean shutdown)."""

    # aiogram's FSM storage, by key (a user in a chat): None and {} when nothing is kept
    async def fsm_state(self, key: str) -> str | None: ...
    async def set_fsm_state(self, key: str, state: str | None) -> None: ...
    async def fsm_data(self, key: str) -> dict[str, Any]: ...
    async def set_fsm_data(self, key: str, data: dict[str, Any]) -> None: ...

    # -- settling up (bot.core.ledger) ---------------------------------------------------------
    async def debt_events(self, chat_id: int) -> DebtLog:
        """The `debt_opened`/`debt_marked` events of the chat's games, game by game."""

    async def account_debt_events(self, user_id: int) -> DebtLog:
        """The same for every game, in any chat, in which the account sat."""

    async def start_account(
        self, user_id: int, at: datetime, lang: str, username: str | None
    ) -> None:
        """The account started the bot in private: the bot may write to it there, in `lang`."""

    async def accounts(
        self, user_ids: Sequence[int], usernames: Sequence[str] = ()
    ) -> list[Account]:
        """Those of these accounts (by id or @username, any case) that started the bot."""

    async def forget_account(self, user_id: int) -> None:
        """The account blocked the bot: nothing is written to it in private any more."""

    async def reminder(self, chat_id: int) -> Reminder | None: ...
    async def set_reminder(self, chat_id: int, every: int | None) -> None:
        """Remind the chat of its open debts every `every` seconds (None: never again)."""

    async def reminders(self) -> list[Reminder]: ...

    async def reminded(self, chat_id: int, at: datetime, last_at: datetime | None) -> bool:
        """Mark the chat reminded at `at` if its reminder still reads `last_at`; whether it did."""

    # -- the outbox (docs/architecture.md "Delivery") -----------------------------------------
    async def owe(self, rows: list[Owed]) -> None:
        """Write owed messages (in the transaction of the command that owes them)."""

    async def claim_owed(self, claimant: str, now: float, until: float) -> list[OwedRow]:
        """In one statement, claim until `until` each chat's first unsent row due and unclaimed."""

    async def owed_sent(
        self, row_id: int, claimant: str, message_id: int | None, now: float
    ) -> bool:
        """Mark a claimed row sent with Telegram's message id; False if the claim was lost."""

    async def owed_retry(self, row_id: int, claimant: str, not_before: float, error: str) -> None:
        """Give a claimed row back after a failed attempt, due again at `not_before`."""

    async def owed_release(self, row_id: int, claimant: str, not_before: float) -> bool:
        """Give a claimed row back unsent, counting no attempt; False if the claim was lost."""

    async def owed_after(self, chat_id: int, row_id: int, limit: int) -> list[OwedRow]:
        """Up to `limit` unsent rows of the chat after `row_id`, in order (for coalescing)."""

    async def owed_replace(self, row_id: int, owed: Owed, claimant: str | None = None) -> bool:
        """Owe `owed` in the unsent row's place (and order), with `claimant` only while that
        sender's claim holds; whether the row was rewritten."""

    async def owed_done(self, row_ids: Sequence[int], now: float) -> int:
        """Mark unsent rows sent with another row's message (a newer sheet); how many."""

    async def owed_as_text(self, row_id: int) -> None:
        """A redraw whose picture was edited in place: what is left to send is its text."""

    async def release_claims(self, claimant: str, keep: Sequence[int] = ()) -> int:
        """Give back every unsent row `claimant` holds but those in `keep`; how many."""

    async def owed_claimants(self) -> list[str]: ...

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
        """A group became a supergroup: its tables and homes move; the tournaments it played."""

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

    def transaction(self) -> AbstractAsyncContextManager[Repo]:
        """A unit of work that writes: committed at the end of the block, rolled back on error."""

    def reading(self) -> AbstractAsyncContextManager[Repo]:
        """A unit of work that only reads."""

    def statement(self) -> AbstractAsyncContextManager[Repo]:
        """One writing statement that is its own transaction (the sender's claim and marks)."""

    async def check(self) -> None:
        """The start-up check: the database is whole and takes a write; `StoreBroken` if not."""

    async def ping(self) -> None:
        """`SELECT 1` (health check): raises if the database does not answer; takes no turn."""

    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int:
        """Delete the processed updates before `before`, `batch` per transaction; how many."""

    def fault(self, error: BaseException) -> Fault | None:
        """What kind of database failure `error` is; None when it is none (a bug)."""

    async def close(self) -> None: ...
