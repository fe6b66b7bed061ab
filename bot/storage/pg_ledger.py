"""Settling up on PostgreSQL: the debt events of a chat's or an account's games (a projection of
the log, through the partial index `events_of_debts`), the accounts that started the bot in
private, and the chats' reminders. The methods never commit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

import asyncpg

from bot.storage.base import Account, EventRow, GameRow, GameStatus, Reminder
from bot.storage.pg_outbox import rowcount

_DEBT_LOG = (
    "SELECT g.game_id, g.chat_id, g.status, g.created_by, g.created_at, g.number,"
    " e.seq, e.kind, e.payload::text, e.author, e.at, e.schema_version"
    " FROM games g JOIN events e ON e.game_id = g.game_id"
    " WHERE e.kind IN ('debt_opened', 'debt_marked') AND {where}"
    " ORDER BY g.game_id, e.seq"
)


def _debt_log(rows: list[asyncpg.Record]) -> list[tuple[GameRow, list[EventRow]]]:
    games: dict[int, tuple[GameRow, list[EventRow]]] = {}
    for game_id, chat_id, status, by, created, number, seq, kind, payload, author, at, v in rows:
        if game_id not in games:
            games[game_id] = (
                GameRow(game_id, chat_id, GameStatus(status), by, created, number),
                [],
            )
        games[game_id][1].append(EventRow(game_id, seq, kind, json.loads(payload), author, at, v))
    return list(games.values())


class PostgresLedger:
    """The settling-up methods of `PostgresRepo` (its connection `_conn`)."""

    _conn: asyncpg.Connection

    async def debt_events(self, chat_id: int) -> list[tuple[GameRow, list[EventRow]]]:
        sql = _DEBT_LOG.format(where="g.chat_id = $1")
        return _debt_log(await self._conn.fetch(sql, chat_id))

    async def account_debt_events(self, user_id: int) -> list[tuple[GameRow, list[EventRow]]]:
        sql = _DEBT_LOG.format(
            where="g.game_id IN (SELECT game_id FROM members WHERE user_id = $1)"
        )
        return _debt_log(await self._conn.fetch(sql, user_id))

    async def start_account(
        self, user_id: int, at: datetime, lang: str, username: str | None
    ) -> None:
        await self._conn.execute(
            "INSERT INTO accounts (user_id, started_at, lang, username) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (user_id) DO UPDATE SET lang = excluded.lang,"
            " username = excluded.username",
            user_id,
            at,
            lang,
            username,
        )

    async def accounts(
        self, user_ids: Sequence[int], usernames: Sequence[str] = ()
    ) -> list[Account]:
        if not user_ids and not usernames:
            return []
        rows = await self._conn.fetch(
            "SELECT user_id, lang, username FROM accounts"
            " WHERE user_id = ANY($1::bigint[]) OR lower(username) = ANY($2::text[])"
            " ORDER BY user_id",
            list(user_ids),
            [name.lower() for name in usernames],
        )
        return [Account(int(row[0]), str(row[1]), row[2]) for row in rows]

    async def forget_account(self, user_id: int) -> None:
        await self._conn.execute("DELETE FROM accounts WHERE user_id = $1", user_id)

    async def reminder(self, chat_id: int) -> Reminder | None:
        row = await self._conn.fetchrow(
            "SELECT chat_id, every_seconds, last_at FROM reminders WHERE chat_id = $1", chat_id
        )
        return Reminder(row[0], row[1], row[2]) if row is not None else None

    async def set_reminder(self, chat_id: int, every: int | None) -> None:
        if every is None:
            await self._conn.execute("DELETE FROM reminders WHERE chat_id = $1", chat_id)
            return
        await self._conn.execute(
            "INSERT INTO reminders (chat_id, every_seconds) VALUES ($1, $2)"
            " ON CONFLICT (chat_id) DO UPDATE SET every_seconds = excluded.every_seconds,"
            " last_at = NULL",
            chat_id,
            every,
        )

    async def reminders(self) -> list[Reminder]:
        rows = await self._conn.fetch(
            "SELECT chat_id, every_seconds, last_at FROM reminders ORDER BY chat_id"
        )
        return [Reminder(row[0], row[1], row[2]) for row in rows]

    async def reminded(self, chat_id: int, at: datetime, last_at: datetime | None) -> bool:
        status = await self._conn.execute(
            "UPDATE reminders SET last_at = $1 WHERE chat_id = $2"
            " AND last_at IS NOT DISTINCT FROM $3",
            at,
            chat_id,
            last_at,
        )
        return rowcount(status) == 1
