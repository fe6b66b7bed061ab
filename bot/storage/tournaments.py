"""Tournaments, on either database: the index rows, the log, and the tables playing in them."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

from bot.domain import EventRow, TournamentRow
from bot.storage.sql import Row, Statements, dumps, when

_COLUMNS: Final = "tournament_id, code, home_chat_id, home_thread_id, created_by, created_at"


def _row(row: Row) -> TournamentRow:
    return TournamentRow(row[0], row[1], row[2], row[3], row[4], when(row[5]))


class Tournaments(Statements):
    """The tournament methods of the `Repo`; they never commit."""

    async def create_tournament(
        self, code: str, home: tuple[int, int], created_by: int | None, at: datetime
    ) -> TournamentRow:
        sql = (
            "INSERT INTO tournaments (code, home_chat_id, home_thread_id, created_by, created_at)"
            " VALUES (?, ?, ?, ?, ?) RETURNING tournament_id"
        )
        row = await self._one(sql, code, *home, created_by, at)
        assert row is not None
        return TournamentRow(int(row[0]), code, home[0], home[1], created_by, at)

    async def _tournament(self, where: str, *args: object) -> TournamentRow | None:
        row = await self._one(f"SELECT {_COLUMNS} FROM tournaments WHERE {where}", *args)
        return _row(row) if row else None

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
        rows = await self._all(
            "SELECT seq, kind, payload, author, at FROM tournament_events"
            " WHERE tournament_id = ? ORDER BY seq",
            tournament_id,
        )
        return [
            EventRow(tournament_id, r[0], r[1], json.loads(r[2]), r[3], when(r[4]), 1)
            for r in rows
        ]
