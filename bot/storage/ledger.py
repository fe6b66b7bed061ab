"""Settling up, on either database."""

import json
from collections.abc import Sequence
from datetime import datetime

from bot.domain import Account, DebtLog, EventRow, GameRow, GameStatus, Reminder
from bot.storage.sql import Row, Statements, marks, when

_DEBT_LOG = (
    "SELECT g.game_id, g.chat_id, g.status, g.created_by, g.created_at, g.number,"
    " e.seq, e.kind, e.payload, e.author, e.at, e.schema_version"
    " FROM games g JOIN events e ON e.game_id = g.game_id"
    " WHERE e.kind IN ('debt_opened', 'debt_marked') AND {where}"
    " ORDER BY g.game_id, e.seq"
)


def _debt_log(rows: list[Row]) -> DebtLog:
    games: dict[int, tuple[GameRow, list[EventRow]]] = {}
    for game_id, chat_id, status, by, created, number, seq, kind, payload, author, at, v in rows:
        if game_id not in games:
            row = GameRow(game_id, chat_id, GameStatus(status), by, when(created), number)
            games[game_id] = (row, [])
        event = EventRow(game_id, seq, kind, json.loads(payload), author, when(at), v)
        games[game_id][1].append(event)
    return list(games.values())


_REMINDERS = "SELECT chat_id, every_seconds, last_at FROM reminders"


def _reminder(row: Row) -> Reminder:
    return Reminder(int(row[0]), int(row[1]), when(row[2]) if row[2] is not None else None)


class Ledger(Statements):
    """The settling-up methods of the `Repo`: the debt events of games (through the partial index
    `events_of_debts`), the accounts that started the bot in private, and the chats' reminders."""

    async def debt_events(self, chat_id: int) -> DebtLog:
        return _debt_log(await self._all(_DEBT_LOG.format(where="g.chat_id = ?"), chat_id))

    async def account_debt_events(self, user_id: int) -> DebtLog:
        where = "g.game_id IN (SELECT game_id FROM members WHERE user_id = ?)"
        return _debt_log(await self._all(_DEBT_LOG.format(where=where), user_id))

    async def start_account(
        self, user_id: int, at: datetime, lang: str, username: str | None
    ) -> None:
        sql = (
            "INSERT INTO accounts (user_id, started_at, lang, username) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET lang = excluded.lang,"
            " username = excluded.username"
        )
        await self._write(sql, user_id, at, lang, username)

    async def accounts(
        self, user_ids: Sequence[int], usernames: Sequence[str] = ()
    ) -> list[Account]:
        sql = (
            "SELECT user_id, lang, username FROM accounts"
            f" WHERE user_id IN ({marks(len(user_ids))})"
            f" OR lower(username) IN ({marks(len(usernames))}) ORDER BY user_id"
        )
        rows = await self._all(sql, *user_ids, *(name.lower() for name in usernames))
        return [Account(int(user_id), str(lang), username) for user_id, lang, username in rows]

    async def forget_account(self, user_id: int) -> None:
        await self._write("DELETE FROM accounts WHERE user_id = ?", user_id)

    async def reminder(self, chat_id: int) -> Reminder | None:
        row = await self._one(f"{_REMINDERS} WHERE chat_id = ?", chat_id)
        return _reminder(row) if row is not None else None

    async def set_reminder(self, chat_id: int, every: int | None) -> None:
        if every is None:
            await self._write("DELETE FROM reminders WHERE chat_id = ?", chat_id)
            return
        sql = (
            "INSERT INTO reminders (chat_id, every_seconds) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET every_seconds = excluded.every_seconds,"
            " last_at = NULL"
        )
        await self._write(sql, chat_id, every)

    async def reminders(self) -> list[Reminder]:
        return [_reminder(row) for row in await self._all(f"{_REMINDERS} ORDER BY chat_id")]

    async def reminded(self, chat_id: int, at: datetime, last_at: datetime | None) -> bool:
        sql = (
            "UPDATE reminders SET last_at = ? WHERE chat_id = ? AND last_at IS NOT DISTINCT FROM ?"
        )
        return await self._count(sql, at, chat_id, last_at) == 1
