"""Games, their members and their chats on PostgreSQL: the `Repo` methods `PostgresRepo` inherits."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from bot.storage.base import GameRow, GameStatus
from bot.storage.pg_archive import GAME_COLUMNS, game_row
from bot.storage.pg_outbox import rowcount


class PostgresGames:
    """The games, members and chats methods of `PostgresRepo` (its connection `_conn`); they
    never commit."""

    _conn: asyncpg.Connection

    async def create_game(
        self, chat_id: int, created_by: int | None, at: datetime, thread_id: int = 0
    ) -> GameRow:
        row = await self._conn.fetchrow(
            "INSERT INTO games (chat_id, status, created_by, created_at, number, thread_id)"
            " VALUES ($1, $2, $3, $4,"
            " (SELECT COALESCE(MAX(number), 0) + 1 FROM games WHERE chat_id = $1), $5)"
            " RETURNING game_id, number",
            chat_id,
            GameStatus.FORMING.value,
            created_by,
            at,
            thread_id,
        )
        assert row is not None
        forming = GameStatus.FORMING
        return GameRow(int(row[0]), chat_id, forming, created_by, at, int(row[1]), thread_id)

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._conn.fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE game_id = $1", game_id
        )
        return game_row(row) if row else None

    async def live_game(self, chat_id: int, thread_id: int = 0) -> GameRow | None:
        row = await self._conn.fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games"
            " WHERE chat_id = $1 AND thread_id = $2 AND status <> 'ended'",
            chat_id,
            thread_id,
        )
        return game_row(row) if row else None

    async def last_game(self, chat_id: int, thread_id: int | None = None) -> GameRow | None:
        topic = "" if thread_id is None else " AND thread_id = $2"
        row = await self._conn.fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = $1{topic}"
            " ORDER BY game_id DESC LIMIT 1",
            chat_id,
            *(() if thread_id is None else (thread_id,)),
        )
        return game_row(row) if row else None

    async def live_games(self) -> list[GameRow]:
        rows = await self._conn.fetch(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status <> 'ended' ORDER BY game_id"
        )
        return [game_row(row) for row in rows]

    async def recent_games(self, since: datetime, limit: int) -> list[GameRow]:
        rows = await self._conn.fetch(
            f"SELECT {GAME_COLUMNS} FROM (SELECT g.*, (SELECT at FROM events AS e"
            " WHERE e.game_id = g.game_id ORDER BY e.seq DESC LIMIT 1) AS last_at"
            " FROM games AS g WHERE g.status <> 'ended') AS live"
            " WHERE last_at >= $1 ORDER BY last_at DESC, game_id DESC LIMIT $2",
            since,
            limit,
        )
        return [game_row(row) for row in rows]

    async def set_status(self, game_id: int, status: GameStatus) -> None:
        await self._conn.execute(
            "UPDATE games SET status = $1 WHERE game_id = $2", status.value, game_id
        )

    async def add_member(self, game_id: int, user_id: int) -> None:
        await self._conn.execute(
            "INSERT INTO members (game_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            game_id,
            user_id,
        )

    async def remove_member(self, game_id: int, user_id: int) -> None:
        await self._conn.execute(
            "DELETE FROM members WHERE game_id = $1 AND user_id = $2", game_id, user_id
        )

    async def games_of_user(self, user_id: int) -> list[GameRow]:
        rows = await self._conn.fetch(
            f"SELECT {', '.join('g.' + c for c in GAME_COLUMNS.split(', '))}"
            " FROM games g JOIN members m ON m.game_id = g.game_id"
            " WHERE m.user_id = $1 AND g.status <> 'ended' ORDER BY g.game_id DESC",
            user_id,
        )
        return [game_row(row) for row in rows]

    async def chat_locale(self, chat_id: int) -> str | None:
        value = await self._conn.fetchval("SELECT locale FROM chats WHERE chat_id = $1", chat_id)
        return str(value) if value is not None else None

    async def set_chat_locale(self, chat_id: int, locale: str) -> None:
        await self._conn.execute(
            "INSERT INTO chats (chat_id, locale) VALUES ($1, $2)"
            " ON CONFLICT (chat_id) DO UPDATE SET locale = excluded.locale",
            chat_id,
            locale,
        )

    async def chat_title(self, chat_id: int) -> str | None:
        value = await self._conn.fetchval("SELECT title FROM chats WHERE chat_id = $1", chat_id)
        return str(value) if value is not None else None

    async def set_chat_title(self, chat_id: int, title: str) -> None:
        await self._conn.execute(
            "INSERT INTO chats (chat_id, title) VALUES ($1, $2)"
            " ON CONFLICT (chat_id) DO UPDATE SET title = excluded.title",
            chat_id,
            title,
        )

    async def move_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        status = await self._conn.execute(
            "UPDATE games SET chat_id = $1 WHERE chat_id = $2", new_chat_id, old_chat_id
        )
        await self._conn.execute(
            "INSERT INTO chats (chat_id, locale, title, time_zone)"
            " SELECT $1, locale, title, time_zone FROM chats WHERE chat_id = $2"
            " ON CONFLICT (chat_id) DO UPDATE SET locale = COALESCE(chats.locale, excluded.locale),"
            " time_zone = COALESCE(chats.time_zone, excluded.time_zone)",
            new_chat_id,
            old_chat_id,
        )
        await self._conn.execute(  # its reminder of debts goes with it
            "UPDATE reminders SET chat_id = $1 WHERE chat_id = $2"
            " AND NOT EXISTS (SELECT 1 FROM reminders WHERE chat_id = $1)",
            new_chat_id,
            old_chat_id,
        )
        return rowcount(status)

    async def sheet_message(self, game_id: int) -> int | None:
        value = await self._conn.fetchval(
            "SELECT sheet_message_id FROM games WHERE game_id = $1", game_id
        )
        return int(value) if value is not None else None

    async def set_sheet_message(self, game_id: int, message_id: int | None) -> None:
        await self._conn.execute(
            "UPDATE games SET sheet_message_id = $1 WHERE game_id = $2", message_id, game_id
        )
