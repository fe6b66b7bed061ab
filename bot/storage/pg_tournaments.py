"""Tournaments on PostgreSQL: the index rows, the append-only log, and which tournament a table
(a chat, or its forum topic) plays in."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

import asyncpg

from bot.domain.rows import EventRow
from bot.domain.tournaments import TournamentRow

_COLUMNS: Final = "tournament_id, code, home_chat_id, home_thread_id, created_by, created_at"


def _row(row: asyncpg.Record) -> TournamentRow:
    return TournamentRow(row[0], row[1], row[2], row[3], row[4], row[5])


class PostgresTournaments:
    """The tournament methods of `PostgresRepo`; they never commit."""

    _conn: asyncpg.Connection

    async def create_tournament(
        self, code: str, home: tuple[int, int], created_by: int | None, at: datetime
    ) -> TournamentRow:
        tournament_id = await self._conn.fetchval(
            "INSERT INTO tournaments (code, home_chat_id, home_thread_id, created_by, created_at)"
            " VALUES ($1, $2, $3, $4, $5) RETURNING tournament_id",
            code,
            home[0],
            home[1],
            created_by,
            at,
        )
        return TournamentRow(int(tournament_id), code, home[0], home[1], created_by, at)

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        row = await self._conn.fetchrow(
            f"SELECT {_COLUMNS} FROM tournaments WHERE tournament_id = $1", tournament_id
        )
        return _row(row) if row else None

    async def tournament_by_code(self, code: str) -> TournamentRow | None:
        row = await self._conn.fetchrow(
            f"SELECT {_COLUMNS} FROM tournaments WHERE code = $1", code
        )
        return _row(row) if row else None

    async def home_tournament(self, chat_id: int, thread_id: int) -> TournamentRow | None:
        row = await self._conn.fetchrow(
            f"SELECT {_COLUMNS} FROM tournaments WHERE home_chat_id = $1 AND home_thread_id = $2"
            " ORDER BY tournament_id DESC LIMIT 1",
            chat_id,
            thread_id,
        )
        return _row(row) if row else None

    async def table_tournament(self, chat_id: int, thread_id: int) -> int | None:
        value = await self._conn.fetchval(
            "SELECT tournament_id FROM tournament_tables WHERE chat_id = $1 AND thread_id = $2",
            chat_id,
            thread_id,
        )
        return int(value) if value is not None else None

    async def set_table_tournament(self, chat_id: int, thread_id: int, tournament_id: int) -> None:
        await self._conn.execute(
            "INSERT INTO tournament_tables (chat_id, thread_id, tournament_id) VALUES ($1, $2, $3)"
            " ON CONFLICT (chat_id, thread_id) DO UPDATE SET tournament_id = excluded.tournament_id",
            chat_id,
            thread_id,
            tournament_id,
        )

    async def move_tournament_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        rows = await self._conn.fetch(
            "UPDATE tournament_tables SET chat_id = $1 WHERE chat_id = $2 RETURNING tournament_id",
            new_chat_id,
            old_chat_id,
        )
        await self._conn.execute(
            "UPDATE tournaments SET home_chat_id = $1 WHERE home_chat_id = $2",
            new_chat_id,
            old_chat_id,
        )
        return sorted({int(row[0]) for row in rows})

    async def append_tournament(
        self,
        tournament_id: int,
        kind: str,
        payload: dict[str, Any],
        author: int | None,
        at: datetime,
    ) -> EventRow:
        seq = await self._conn.fetchval(
            "INSERT INTO tournament_events (tournament_id, seq, kind, payload, author, at)"
            " SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3::json, $4, $5"
            " FROM tournament_events WHERE tournament_id = $1 RETURNING seq",
            tournament_id,
            kind,
            json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
            author,
            at,
        )
        return EventRow(tournament_id, int(seq), kind, payload, author, at, 1)

    async def tournament_events(self, tournament_id: int) -> list[EventRow]:
        rows = await self._conn.fetch(
            "SELECT seq, kind, payload::text, author, at FROM tournament_events"
            " WHERE tournament_id = $1 ORDER BY seq",
            tournament_id,
        )
        return [EventRow(tournament_id, r[0], r[1], json.loads(r[2]), r[3], r[4], 1) for r in rows]
