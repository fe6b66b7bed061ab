"""The archive on PostgreSQL: every game of a chat or an account, a chat's settings, and the
stored summaries of ended games (a cache of their logs, `bot.core.summaries`)."""

from __future__ import annotations

import json
from typing import Any, Final

import asyncpg

from bot.storage.base import ChatSettings, GameRow, GameStatus

GAME_COLUMNS: Final = "game_id, chat_id, status, created_by, created_at, number, thread_id"


def game_row(row: asyncpg.Record) -> GameRow:
    return GameRow(row[0], row[1], GameStatus(row[2]), row[3], row[4], row[5], row[6])


class PostgresArchive:
    """The archive methods of `PostgresRepo`; they never commit."""

    _conn: asyncpg.Connection

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        row = await self._conn.fetchrow(
            "SELECT locale, title, time_zone FROM chats WHERE chat_id = $1", chat_id
        )
        return ChatSettings(row[0], row[1], row[2]) if row else ChatSettings()

    async def set_chat_time_zone(self, chat_id: int, time_zone: str) -> None:
        await self._conn.execute(
            "INSERT INTO chats (chat_id, time_zone) VALUES ($1, $2)"
            " ON CONFLICT (chat_id) DO UPDATE SET time_zone = excluded.time_zone",
            chat_id,
            time_zone,
        )

    async def chat_games(self, chat_id: int) -> list[GameRow]:
        rows = await self._conn.fetch(
            f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = $1 ORDER BY game_id DESC", chat_id
        )
        return [game_row(row) for row in rows]

    async def chat_game(self, chat_id: int, number: int) -> GameRow | None:
        row = await self._conn.fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = $1 AND number = $2",
            chat_id,
            number,
        )
        return game_row(row) if row else None

    async def account_games(self, user_id: int) -> list[GameRow]:
        columns = ", ".join(f"g.{c}" for c in GAME_COLUMNS.split(", "))
        rows = await self._conn.fetch(
            f"SELECT {columns} FROM games g JOIN members m ON m.game_id = g.game_id"
            " WHERE m.user_id = $1 ORDER BY g.game_id DESC",
            user_id,
        )
        return [game_row(row) for row in rows]

    async def summaries(self, game_ids: list[int]) -> dict[int, tuple[str, dict[str, Any]]]:
        rows = await self._conn.fetch(
            "SELECT game_id, engine, summary::text FROM game_summaries"
            " WHERE game_id = ANY($1::bigint[])",
            game_ids,
        )
        return {int(row[0]): (str(row[1]), json.loads(row[2])) for row in rows}

    async def save_summaries(self, rows: list[tuple[int, str, dict[str, Any]]]) -> None:
        await self._conn.executemany(
            "INSERT INTO game_summaries (game_id, engine, summary) VALUES ($1, $2, $3::json)"
            " ON CONFLICT (game_id) DO UPDATE SET engine = excluded.engine,"
            " summary = excluded.summary",
            [
                (game_id, engine, json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
                for game_id, engine, payload in rows
            ],
        )
