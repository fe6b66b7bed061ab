"""Events, processed updates, leases and the FSM's state, on either database;
`processed_updates` pruned past Telegram's redelivery horizon, at start-up and every hour."""

import asyncio
import json
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any

from bot.domain import PRUNE_BATCH, REDELIVERY_HORIZON, EventRow, Store, StoreBroken
from bot.storage.migrations import EVENT_SCHEMA_VERSION
from bot.storage.sql import Statements, dumps, when

log = logging.getLogger(__name__)


class Log(Statements):
    """The log, update, lease and FSM methods of the `Repo`; they never commit."""

    async def update_seen(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        sql = "SELECT chat_id, message_id FROM processed_updates WHERE update_id = ?"
        row = await self._one(sql, update_id)
        if row is None:
            return False
        if row[0] is None or chat_id is None or (row[0], row[1]) == (chat_id, message_id):
            return True
        seen = f"chat {chat_id} message {message_id} (kept: chat {row[0]} message {row[1]})"
        log.warning("update_id %s came back for %s: a new update, handled", update_id, seen)
        return False

    async def mark_update(
        self,
        update_id: int,
        at: datetime,
        chat_id: int | None = None,
        message_id: int | None = None,
    ) -> None:
        if chat_id is not None:  # an older update's row with this id goes (`update_seen`)
            sql = (
                "DELETE FROM processed_updates WHERE update_id = ? AND chat_id IS NOT NULL"
                " AND (chat_id IS DISTINCT FROM ? OR message_id IS DISTINCT FROM ?)"
            )
            await self._write(sql, update_id, chat_id, message_id)
        sql = (
            "INSERT INTO processed_updates (update_id, at, chat_id, message_id)"
            " VALUES (?, ?, ?, ?)"
        )
        await self._write(sql, update_id, at, chat_id, message_id)

    async def append(
        self, game_id: int, kind: str, payload: dict[str, Any], author: int | None, at: datetime
    ) -> EventRow:
        sql = (
            "INSERT INTO events (game_id, seq, kind, payload, author, at, schema_version)"
            " VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?),"
            " ?, ?, ?, ?, ?) RETURNING seq"
        )
        version = EVENT_SCHEMA_VERSION
        (row,) = await self._all(sql, game_id, game_id, kind, dumps(payload), author, at, version)
        return EventRow(game_id, int(row[0]), kind, payload, author, at, version)

    async def events(self, game_id: int, after: int = 0) -> list[EventRow]:
        sql = (
            "SELECT seq, kind, payload, author, at, schema_version FROM events"
            " WHERE game_id = ? AND seq > ? ORDER BY seq"
        )
        return [
            EventRow(game_id, seq, kind, json.loads(payload), author, when(at), version)
            for seq, kind, payload, author, at, version in await self._all(sql, game_id, after)
        ]

    async def count_events(self) -> int:
        row = await self._one("SELECT COUNT(*) FROM events")
        return int(row[0]) if row else 0

    async def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        sql = (
            "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
            " expires_at = excluded.expires_at"
            " WHERE leases.holder = excluded.holder OR leases.expires_at <= ?"
            " RETURNING holder"
        )
        row = await self._one(sql, name, holder, until, now)
        return row is not None and row[0] == holder

    async def release_lease(self, name: str, holder: str) -> None:
        await self._write("DELETE FROM leases WHERE name = ? AND holder = ?", name, holder)

    async def lease_holder(self, name: str, now: datetime) -> str | None:
        sql = "SELECT holder FROM leases WHERE name = ? AND expires_at > ?"
        row = await self._one(sql, name, now)
        return str(row[0]) if row else None

    async def fsm_state(self, key: str) -> str | None:
        row = await self._one("SELECT state FROM fsm WHERE key = ?", key)
        return str(row[0]) if row and row[0] is not None else None

    async def set_fsm_state(self, key: str, state: str | None) -> None:
        await self._upsert("fsm", ("key", key), "state", state)

    async def fsm_data(self, key: str) -> dict[str, Any]:
        row = await self._one("SELECT data FROM fsm WHERE key = ?", key)
        return dict(json.loads(row[0])) if row and row[0] is not None else {}

    async def set_fsm_data(self, key: str, data: dict[str, Any]) -> None:
        await self._upsert("fsm", ("key", key), "data", dumps(data))


class Upkeep:
    """What both stores do alike through their own transactions: the write probe, the pruning."""

    transaction: Callable[[], AbstractAsyncContextManager[Log]]  # each store's own

    async def _write_probe(self, errors: tuple[type[Exception], ...], hint: str = "") -> None:
        """A row written, deleted and committed; one of `errors` is a `StoreBroken` (and `hint`)."""
        try:
            async with self.transaction() as repo:
                await repo._write(
                    "INSERT INTO processed_updates (update_id, at) VALUES (-1, ?)"
                    " ON CONFLICT DO NOTHING",
                    datetime.now(UTC),
                )
                await repo._write("DELETE FROM processed_updates WHERE update_id = -1")
        except errors as error:
            raise StoreBroken(f"the database takes no writes ({error}){hint}") from None

    async def prune_updates(self, before: datetime, batch: int = PRUNE_BATCH) -> int:
        sql = (
            "DELETE FROM processed_updates WHERE update_id IN (SELECT update_id"
            " FROM processed_updates WHERE at < ? ORDER BY at LIMIT ?)"
        )
        gone = 0
        while True:
            async with self.transaction() as repo:
                count = await repo._count(sql, before, batch)
            gone += count
            if count < batch:
                return gone


async def prune_processed(store: Store, now: datetime, batch: int = PRUNE_BATCH) -> int:
    """Delete the processed updates older than the redelivery horizon; returns how many went."""
    gone = await store.prune_updates(now - REDELIVERY_HORIZON, batch)
    if gone:
        log.info("processed updates: %d older than %s pruned", gone, REDELIVERY_HORIZON)
    return gone


async def pruning(store: Store, clock: Callable[[], datetime], every: float = 3600.0) -> None:
    """The background task: prune, then again every `every` seconds; a failure is logged."""
    while True:
        try:
            await prune_processed(store, clock())
        except Exception:
            log.exception("pruning processed updates failed; trying again later")
        await asyncio.sleep(every)
