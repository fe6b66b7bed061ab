"""The repository interface in front of the database (issue 4, Deliver 2).

The service opens a unit of work with `store.transaction()` (or `store.reading()` to only look) and calls
the repository methods of `Repo` inside it; the unit commits when the block ends and rolls back on an
exception. Repository methods never commit. Another database replaces SQLite by implementing these two
Protocols.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol


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


class Repo(Protocol):
    """What the service may read and write inside one unit of work."""

    async def lock_chat(self, chat_id: int) -> None:
        """Serialise this chat's units of work across processes until this one ends (PostgreSQL:
        an advisory lock; SQLite has one writer, so nothing to do)."""

    async def update_seen(self, update_id: int) -> bool:
        """Whether an update with this id was already accepted."""

    async def mark_update(self, update_id: int, at: datetime) -> None: ...

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


class Store(Protocol):
    def transaction(self) -> AbstractAsyncContextManager[Repo]:
        """A unit of work that writes: committed at the end of the block, rolled back on error."""

    def reading(self) -> AbstractAsyncContextManager[Repo]:
        """A unit of work that only reads."""

    async def close(self) -> None: ...
