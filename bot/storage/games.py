"""Games, their members and chats, the archive (the summaries of ended games, a cache of their
logs: `bot.core.stats`), and tournaments, on either database."""

import json
from datetime import datetime
from typing import Any

from bot.domain import ChatSettings, EventRow, GameRow, GameStatus, TournamentRow
from bot.storage.sql import IN_BATCH, Statements, dumps, marks, when

_G_COLUMNS = "g.game_id, g.chat_id, g.status, g.created_by, g.created_at, g.number, g.thread_id"
_OF_MEMBER = "JOIN members m ON m.game_id = g.game_id WHERE m.user_id = ?"


class Games(Statements):
    """The games, chats, archive and tournament methods of the `Repo`; they never commit."""

    async def create_game(
        self, chat_id: int, created_by: int | None, at: datetime, thread_id: int = 0
    ) -> GameRow:
        sql = (
            "INSERT INTO games (chat_id, status, created_by, created_at, number, thread_id)"
            " VALUES (?, ?, ?, ?,"
            " (SELECT COALESCE(MAX(number), 0) + 1 FROM games WHERE chat_id = ?), ?)"
            " RETURNING game_id, number"
        )
        forming = GameStatus.FORMING
        (row,) = await self._all(sql, chat_id, forming.value, created_by, at, chat_id, thread_id)
        return GameRow(int(row[0]), chat_id, forming, created_by, at, int(row[1]), thread_id)

    async def _games(self, where: str, *args: object) -> list[GameRow]:
        """The games `FROM games g` that `where` (its WHERE, ORDER BY, LIMIT) picks."""
        rows = await self._all(f"SELECT {_G_COLUMNS} FROM games g {where}", *args)
        return [
            GameRow(game_id, chat_id, GameStatus(status), by, when(at), number, thread_id)
            for game_id, chat_id, status, by, at, number, thread_id in rows
        ]

    async def _game(self, where: str, *args: object) -> GameRow | None:
        games = await self._games(where, *args)
        return games[0] if games else None

    async def game(self, game_id: int) -> GameRow | None:
        return await self._game("WHERE game_id = ?", game_id)

    async def live_game(self, chat_id: int, thread_id: int = 0) -> GameRow | None:
        where = "WHERE chat_id = ? AND thread_id = ? AND status <> 'ended'"
        return await self._game(where, chat_id, thread_id)

    async def last_game(self, chat_id: int, thread_id: int | None = None) -> GameRow | None:
        where = "WHERE chat_id = ? AND thread_id = COALESCE(?, thread_id)"
        return await self._game(where + " ORDER BY game_id DESC LIMIT 1", chat_id, thread_id)

    async def live_games(self) -> list[GameRow]:
        return await self._games("WHERE status <> 'ended' ORDER BY game_id")

    async def chat_games(self, chat_id: int) -> list[GameRow]:
        return await self._games("WHERE chat_id = ? ORDER BY game_id DESC", chat_id)

    async def chat_game(self, chat_id: int, number: int) -> GameRow | None:
        return await self._game("WHERE chat_id = ? AND number = ?", chat_id, number)

    async def games_of_user(self, user_id: int) -> list[GameRow]:
        where = _OF_MEMBER + " AND g.status <> 'ended' ORDER BY g.game_id DESC"
        return await self._games(where, user_id)

    async def account_games(self, user_id: int) -> list[GameRow]:
        return await self._games(_OF_MEMBER + " ORDER BY g.game_id DESC", user_id)

    async def set_status(self, game_id: int, status: GameStatus) -> None:
        await self._write("UPDATE games SET status = ? WHERE game_id = ?", status.value, game_id)

    async def add_member(self, game_id: int, user_id: int) -> None:
        sql = "INSERT INTO members (game_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
        await self._write(sql, game_id, user_id)

    async def remove_member(self, game_id: int, user_id: int) -> None:
        sql = "DELETE FROM members WHERE game_id = ? AND user_id = ?"
        await self._write(sql, game_id, user_id)

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        sql = "SELECT locale, title, time_zone FROM chats WHERE chat_id = ?"
        row = await self._one(sql, chat_id)
        return ChatSettings(row[0], row[1], row[2]) if row else ChatSettings()

    async def chat_locale(self, chat_id: int) -> str | None:
        return (await self.chat_settings(chat_id)).locale

    async def chat_title(self, chat_id: int) -> str | None:
        return (await self.chat_settings(chat_id)).title

    async def set_chat_locale(self, chat_id: int, locale: str) -> None:
        await self._upsert("chats", ("chat_id", chat_id), "locale", locale)

    async def set_chat_title(self, chat_id: int, title: str) -> None:
        await self._upsert("chats", ("chat_id", chat_id), "title", title)

    async def set_chat_time_zone(self, chat_id: int, time_zone: str) -> None:
        await self._upsert("chats", ("chat_id", chat_id), "time_zone", time_zone)

    async def move_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        sql = "UPDATE games SET chat_id = ? WHERE chat_id = ?"
        moved = await self._count(sql, new_chat_id, old_chat_id)
        sql = (
            "INSERT INTO chats (chat_id, locale, title, time_zone)"
            " SELECT ?, locale, title, time_zone FROM chats WHERE chat_id = ?"
            " ON CONFLICT (chat_id) DO UPDATE SET locale = COALESCE(chats.locale, excluded.locale),"
            " time_zone = COALESCE(chats.time_zone, excluded.time_zone)"
        )
        await self._write(sql, new_chat_id, old_chat_id)
        sql = (  # its reminder of debts goes with it, unless the new chat has one
            "UPDATE reminders SET chat_id = ? WHERE chat_id = ?"
            " AND NOT EXISTS (SELECT 1 FROM reminders WHERE chat_id = ?)"
        )
        await self._write(sql, new_chat_id, old_chat_id, new_chat_id)
        return moved

    async def sheet_message(self, game_id: int) -> int | None:
        row = await self._one("SELECT sheet_message_id FROM games WHERE game_id = ?", game_id)
        return int(row[0]) if row and row[0] is not None else None

    async def set_sheet_message(self, game_id: int, message_id: int | None) -> None:
        sql = "UPDATE games SET sheet_message_id = ? WHERE game_id = ?"
        await self._write(sql, message_id, game_id)

    async def summaries(self, game_ids: list[int]) -> dict[int, tuple[str, dict[str, Any]]]:
        found: dict[int, tuple[str, dict[str, Any]]] = {}
        for start in range(0, len(game_ids), IN_BATCH):
            batch = game_ids[start : start + IN_BATCH]
            sql = (
                "SELECT game_id, engine, summary FROM game_summaries"
                f" WHERE game_id IN ({marks(len(batch))})"
            )
            rows = await self._all(sql, *batch)
            found.update({int(row[0]): (str(row[1]), json.loads(row[2])) for row in rows})
        return found

    async def save_summaries(self, rows: list[tuple[int, str, dict[str, Any]]]) -> None:
        sql = (
            "INSERT INTO game_summaries (game_id, engine, summary) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET engine = excluded.engine,"
            " summary = excluded.summary"
        )
        await self._write_many(sql, [(game, engine, dumps(data)) for game, engine, data in rows])

    async def create_tournament(
        self, code: str, home: tuple[int, int], created_by: int | None, at: datetime
    ) -> TournamentRow:
        sql = (
            "INSERT INTO tournaments (code, home_chat_id, home_thread_id, created_by, created_at)"
            " VALUES (?, ?, ?, ?, ?) RETURNING tournament_id"
        )
        (row,) = await self._all(sql, code, *home, created_by, at)
        return TournamentRow(int(row[0]), code, home[0], home[1], created_by, at)

    async def _tournament(self, where: str, *args: object) -> TournamentRow | None:
        sql = (
            "SELECT tournament_id, code, home_chat_id, home_thread_id, created_by, created_at"
            f" FROM tournaments WHERE {where}"
        )
        row = await self._one(sql, *args)
        return TournamentRow(row[0], row[1], row[2], row[3], row[4], when(row[5])) if row else None

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        return await self._tournament("tournament_id = ?", tournament_id)

    async def tournament_by_code(self, code: str) -> TournamentRow | None:
        return await self._tournament("code = ?", code)

    async def home_tournament(self, chat_id: int, thread_id: int) -> TournamentRow | None:
        where = "home_chat_id = ? AND home_thread_id = ? ORDER BY tournament_id DESC LIMIT 1"
        return await self._tournament(where, chat_id, thread_id)

    async def table_tournament(self, chat_id: int, thread_id: int) -> int | None:
        sql = "SELECT tournament_id FROM tournament_tables WHERE chat_id = ? AND thread_id = ?"
        row = await self._one(sql, chat_id, thread_id)
        return int(row[0]) if row else None

    async def set_table_tournament(self, chat_id: int, thread_id: int, tournament_id: int) -> None:
        sql = (
            "INSERT INTO tournament_tables (chat_id, thread_id, tournament_id) VALUES (?, ?, ?)"
            " ON CONFLICT (chat_id, thread_id) DO UPDATE SET tournament_id = excluded.tournament_id"
        )
        await self._write(sql, chat_id, thread_id, tournament_id)

    async def move_tournament_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        sql = "UPDATE tournament_tables SET chat_id = ? WHERE chat_id = ? RETURNING tournament_id"
        rows = await self._all(sql, new_chat_id, old_chat_id)
        sql = "UPDATE tournaments SET home_chat_id = ? WHERE home_chat_id = ?"
        await self._write(sql, new_chat_id, old_chat_id)
        return sorted({int(row[0]) for row in rows})

    async def append_tournament(
        self,
        tournament_id: int,
        kind: str,
        payload: dict[str, Any],
        author: int | None,
        at: datetime,
    ) -> EventRow:
        sql = (
            "INSERT INTO tournament_events (tournament_id, seq, kind, payload, author, at)"
            " VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_events"
            " WHERE tournament_id = ?), ?, ?, ?, ?) RETURNING seq"
        )
        row = await self._one(sql, tournament_id, tournament_id, kind, dumps(payload), author, at)
        assert row is not None
        return EventRow(tournament_id, int(row[0]), kind, payload, author, at, 1)

    async def tournament_events(self, tournament_id: int) -> list[EventRow]:
        sql = (
            "SELECT seq, kind, payload, author, at FROM tournament_events"
            " WHERE tournament_id = ? ORDER BY seq"
        )
        return [
            EventRow(tournament_id, seq, kind, json.loads(payload), author, when(at), 1)
            for seq, kind, payload, author, at in await self._all(sql, tournament_id)
        ]
