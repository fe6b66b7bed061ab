"""The archive on SQLite: every game of a chat or an account, a chat's settings, and the stored
summaries of ended games (a cache of their logs, `bot.core.summaries`)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

from bot.storage.base import ChatSettings, GameRow, GameStatus
from bot.storage.sqlite_trips import SqliteTrips

GAME_COLUMNS: Final = "game_id, chat_id, status, created_by, created_at, number, thread_id"
_IN_BATCH: Final = 500  # ids per `IN (…)`: far below SQLite's limit of bound variables


def game_row(row: tuple[Any, ...]) -> GameRow:
    return GameRow(
        row[0],
        row[1],
        GameStatus(row[2]),
        row[3],
        datetime.fromisoformat(row[4]),
        row[5],
        row[6],
    )


class SqliteArchive(SqliteTrips):
    """The archive methods of `SqliteRepo`; they never commit."""

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        row = await self._one(
            "SELECT locale, title, time_zone FROM chats WHERE chat_id = ?", chat_id
        )
        return ChatSettings(*row) if row else ChatSettings()

    async def set_chat_time_zone(self, chat_id: int, time_zone: str) -> None:
        await self._write(
            "INSERT INTO chats (chat_id, time_zone) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET time_zone = excluded.time_zone",
            chat_id,
            time_zone,
        )

    async def chat_games(self, chat_id: int) -> list[GameRow]:
        rows = await self._all(
            f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = ? ORDER BY game_id DESC", chat_id
        )
        return [game_row(row) for row in rows]

    async def chat_game(self, chat_id: int, number: int) -> GameRow | None:
        row = await self._one(
            f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = ? AND number = ?", chat_id, number
        )
        return game_row(row) if row else None

    async def account_games(self, user_id: int) -> list[GameRow]:
        columns = ", ".join(f"g.{c}" for c in GAME_COLUMNS.split(", "))
        rows = await self._all(
            f"SELECT {columns} FROM games g JOIN members m ON m.game_id = g.game_id"
            " WHERE m.user_id = ? ORDER BY g.game_id DESC",
            user_id,
        )
        return [game_row(row) for row in rows]

    async def summaries(self, game_ids: list[int]) -> dict[int, tuple[str, dict[str, Any]]]:
        found: dict[int, tuple[str, dict[str, Any]]] = {}
        for start in range(0, len(game_ids), _IN_BATCH):
            batch = game_ids[start : start + _IN_BATCH]
            marks = ", ".join("?" * len(batch))
            rows = await self._all(
                f"SELECT game_id, engine, summary FROM game_summaries WHERE game_id IN ({marks})",
                *batch,
            )
            found.update({row[0]: (row[1], json.loads(row[2])) for row in rows})
        return found

    async def save_summaries(self, rows: list[tuple[int, str, dict[str, Any]]]) -> None:
        await self._write_many(
            "INSERT INTO game_summaries (game_id, engine, summary) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET engine = excluded.engine,"
            " summary = excluded.summary",
            [
                (game_id, engine, json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
                for game_id, engine, payload in rows
            ],
        )
