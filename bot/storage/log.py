"""Events and snapshots, processed updates, leases and the FSM's state, on either database."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any

from bot.domain import EventRow, same_update
from bot.storage.migrations import EVENT_SCHEMA_VERSION
from bot.storage.sql import Statements, dumps, when


class Log(Statements):
    """The log, update, lease and FSM methods of the `Repo`; they never commit."""

    async def prune_updates(self, before: datetime, batch: int) -> int:
        """Up to `batch` of the oldest processed updates before `before` forgotten; how many."""
        return await self._count(
            "DELETE FROM processed_updates WHERE update_id IN (SELECT update_id"
            " FROM processed_updates WHERE at < ? ORDER BY at LIMIT ?)",
            before,
            batch,
        )

    async def update_seen(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        row = await self._one(
            "SELECT chat_id, message_id FROM processed_updates WHERE update_id = ?", update_id
        )
        return row is not None and same_update(update_id, (row[0], row[1]), chat_id, message_id)

    async def mark_update(
        self,
        update_id: int,
        at: datetime,
        chat_id: int | None = None,
        message_id: int | None = None,
    ) -> None:
        if chat_id is not None:  # an older update's row with this id goes (`same_update`)
            await self._write(
                "DELETE FROM processed_updates WHERE update_id = ? AND chat_id IS NOT NULL"
                " AND (chat_id IS DISTINCT FROM ? OR message_id IS DISTINCT FROM ?)",
                update_id,
                chat_id,
                message_id,
            )
        await self._write(
            "INSERT INTO processed_updates (update_id, at, chat_id, message_id)"
            " VALUES (?, ?, ?, ?)",
            update_id,
            at,
            chat_id,
            message_id,
        )

    async def append(
        self,
        game_id: int,
        kind: str,
        payload: dict[str, Any],
        author: int | None,
        at: datetime,
    ) -> EventRow:
        row = await self._one(
            "INSERT INTO events (game_id, seq, kind, payload, author, at, schema_version)"
            " VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?),"
            " ?, ?, ?, ?, ?) RETURNING seq",
            game_id,
            game_id,
            kind,
            dumps(payload),
            author,
            at,
            EVENT_SCHEMA_VERSION,
        )
        assert row is not None
        return EventRow(game_id, int(row[0]), kind, payload, author, at, EVENT_SCHEMA_VERSION)

    async def events(self, game_id: int, after: int = 0) -> list[EventRow]:
        rows = await self._all(
            "SELECT seq, kind, payload, author, at, schema_version FROM events"
            " WHERE game_id = ? AND seq > ? ORDER BY seq",
            game_id,
            after,
        )
        return [
            EventRow(game_id, seq, kind, json.loads(payload), author, when(at), version)
            for seq, kind, payload, author, at, version in rows
        ]

    async def count_events(self) -> int:
        row = await self._one("SELECT COUNT(*) FROM events")
        return int(row[0]) if row else 0

    async def snapshot(self, game_id: int) -> tuple[int, str, bytes] | None:
        row = await self._one(
            "SELECT seq, version, data FROM snapshots WHERE game_id = ?", game_id
        )
        return (int(row[0]), str(row[1]), bytes(row[2])) if row else None

    async def put_snapshot(
        self, game_id: int, seq: int, version: str, data: bytes, at: datetime
    ) -> None:
        await self._write(
            "INSERT INTO snapshots (game_id, seq, version, data, at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq,"
            " version = excluded.version, data = excluded.data, at = excluded.at"
            " WHERE excluded.seq > snapshots.seq OR excluded.version != snapshots.version",
            game_id,
            seq,
            version,
            data,
            at,
        )

    async def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        row = await self._one(
            "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
            " expires_at = excluded.expires_at"
            " WHERE leases.holder = excluded.holder OR leases.expires_at <= ?"
            " RETURNING holder",
            name,
            holder,
            until,
            now,
        )
        return row is not None and row[0] == holder

    async def release_lease(self, name: str, holder: str) -> None:
        await self._write("DELETE FROM leases WHERE name = ? AND holder = ?", name, holder)

    async def lease_holder(self, name: str, now: datetime) -> str | None:
        row = await self._one(
            "SELECT holder FROM leases WHERE name = ? AND expires_at > ?", name, now
        )
        return str(row[0]) if row else None

    async def fsm_state(self, key: str) -> str | None:
        row = await self._one("SELECT state FROM fsm WHERE key = ?", key)
        return str(row[0]) if row and row[0] is not None else None

    async def set_fsm_state(self, key: str, state: str | None) -> None:
        await self._write(
            "INSERT INTO fsm (key, state) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET state = excluded.state",
            key,
            state,
        )

    async def fsm_data(self, key: str) -> dict[str, Any]:
        row = await self._one("SELECT data FROM fsm WHERE key = ?", key)
        return dict(json.loads(row[0])) if row and row[0] is not None else {}

    async def set_fsm_data(self, key: str, data: dict[str, Any]) -> None:
        await self._write(
            "INSERT INTO fsm (key, data) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET data = excluded.data",
            key,
            dumps(data),
        )


async def write_probe(unit: Callable[[], AbstractAsyncContextManager[Log]]) -> None:
    """A row written and deleted in a unit of work of its own: the start-up check's write probe."""
    async with unit() as repo:
        await repo._write(
            "INSERT INTO processed_updates (update_id, at) VALUES (-1, ?)"
            " ON CONFLICT (update_id) DO NOTHING",
            datetime.now(UTC),
        )
        await repo._write("DELETE FROM processed_updates WHERE update_id = -1")


async def in_batches(
    unit: Callable[[], AbstractAsyncContextManager[Log]], before: datetime, batch: int
) -> int:
    """`Repo.prune_updates` in units of work of `batch` rows each, until none is left; how many."""
    gone = 0
    while True:
        async with unit() as repo:
            count = await repo.prune_updates(before, batch)
        gone += max(count, 0)
        if count < batch:
            return gone
