"""Games, their members and their chats on SQLite: the `Repo` methods `SqliteRepo` inherits."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.storage.base import GameRow, GameStatus
from bot.storage.sqlite_archive import GAME_COLUMNS, game_row
from bot.storage.sqlite_trips import SqliteTrips


def _time(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="microseconds")


class SqliteGames(SqliteTrips):
    """The games, members and chats methods of `SqliteRepo`; they never commit."""

    async def create_game(
        self, chat_id: int, created_by: int | None, at: datetime, thread_id: int = 0
    ) -> GameRow:
        number = await self._one(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM games WHERE chat_id = ?", chat_id
        )
        assert number is not None
        game_id = await self._rowid(
            "INSERT INTO games (chat_id, status, created_by, created_at, number, thread_id)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            chat_id,
            GameStatus.FORMING.value,
            created_by,
            _time(at),
            number[0],
            thread_id,
        )
        forming = GameStatus.FORMING
        return GameRow(game_id, chat_id, forming, created_by, at, int(number[0]), thread_id)

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._one(f"SELECT {GAME_COLUMNS} FROM games WHERE game_id = ?", game_id)
        return game_row(row) if row else None

    async def live_game(self, chat_id: int, thread_id: int = 0) -> GameRow | None:
        row = await self._one(
            f"SELECT {GAME_COLUMNS} FROM games"
            " WHERE chat_id = ? AND thread_id = ? AND status != 'ended'",
            chat_id,
            thread_id,
        )
        return game_row(row) if row else None

    async def last_game(self, chat_id: int, thread_id: int | None = None) -> GameRow | None:
        topic = "" if thread_id is None else " AND thread_id = ?"
        row = await self._one(
            f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = ?{topic}"
            " ORDER BY game_id DESC LIMIT 1",
            chat_id,
            *(() if thread_id is None else (thread_id,)),
        )
        return game_row(row) if row else None

    async def live_games(self) -> list[GameRow]:
        rows = await self._all(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status != 'ended' ORDER BY game_id"
        )
        return [game_row(row) for row in rows]

    async def recent_games(self, since: datetime, limit: int) -> list[GameRow]:
        rows = await self._all(
            f"SELECT {GAME_COLUMNS} FROM (SELECT *, (SELECT at FROM events AS e"
            " WHERE e.game_id = g.game_id ORDER BY e.seq DESC LIMIT 1) AS last_at"
            " FROM games AS g WHERE g.status != 'ended')"
            " WHERE last_at >= ? ORDER BY last_at DESC, game_id DESC LIMIT ?",
            _time(since),
            limit,
        )
        return [game_row(row) for row in rows]

    async def set_status(self, game_id: int, status: GameStatus) -> None:
        await self._write("UPDATE games SET status = ? WHERE game_id = ?", status.value, game_id)

    async def add_member(self, game_id: int, user_id: int) -> None:
        await self._write(
            "INSERT OR IGNORE INTO members (game_id, user_id) VALUES (?, ?)", game_id, user_id
        )

    async def remove_member(self, game_id: int, user_id: int) -> None:
        await self._write(
            "DELETE FROM members WHERE game_id = ? AND user_id = ?", game_id, user_id
        )

    async def games_of_user(self, user_id: int) -> list[GameRow]:
        rows = await self._all(
            f"SELECT {', '.join('g.' + c for c in GAME_COLUMNS.split(', '))}"
            " FROM games g JOIN members m ON m.game_id = g.game_id"
            " WHERE m.user_id = ? AND g.status != 'ended' ORDER BY g.game_id DESC",
            user_id,
        )
        return [game_row(row) for row in rows]

    async def chat_locale(self, chat_id: int) -> str | None:
        row = await self._one("SELECT locale FROM chats WHERE chat_id = ?", chat_id)
        return row[0] if row else None

    async def set_chat_locale(self, chat_id: int, locale: str) -> None:
        await self._write(
            "INSERT INTO chats (chat_id, locale) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET locale = excluded.locale",
            chat_id,
            locale,
        )

    async def chat_title(self, chat_id: int) -> str | None:
        row = await self._one("SELECT title FROM chats WHERE chat_id = ?", chat_id)
        return row[0] if row else None

    async def set_chat_title(self, chat_id: int, title: str) -> None:
        await self._write(
            "INSERT INTO chats (chat_id, title) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET title = excluded.title",
            chat_id,
            title,
        )

    async def move_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        moved = await self._count(
            "UPDATE games SET chat_id = ? WHERE chat_id = ?", new_chat_id, old_chat_id
        )
        await self._write(
            "INSERT INTO chats (chat_id, locale, title, time_zone)"
            " SELECT ?, locale, title, time_zone FROM chats WHERE chat_id = ?"
            " ON CONFLICT (chat_id) DO UPDATE SET locale = COALESCE(chats.locale, excluded.locale),"
            " time_zone = COALESCE(chats.time_zone, excluded.time_zone)",
            new_chat_id,
            old_chat_id,
        )
        await self._write(  # its reminder of debts goes with it
            "UPDATE OR IGNORE reminders SET chat_id = ? WHERE chat_id = ?",
            new_chat_id,
            old_chat_id,
        )
        return moved

    async def sheet_message(self, game_id: int) -> int | None:
        row = await self._one("SELECT sheet_message_id FROM games WHERE game_id = ?", game_id)
        return row[0] if row else None

    async def set_sheet_message(self, game_id: int, message_id: int | None) -> None:
        await self._write(
            "UPDATE games SET sheet_message_id = ? WHERE game_id = ?", message_id, game_id
        )
