"""What `GET /healthz` costs at a million events, and what it costs the commands beside it: figures,
not a test.

For each backend (a temporary SQLite WAL file; a temporary PostgreSQL server with its default
durability, `tests.pg`): `--events` events in `--games` games are written straight into the tables,
then
1. `/healthz` through the real aiohttp application (`SELECT 1` and the heartbeats), idle;
2. the old health check's query, `COUNT(*)` over the events in a reading unit of work, for contrast;
3. `/healthz` asked 20 times a second while a chat records units of work back to back, and those
   units' time with the health check asked and without.

    .venv/bin/python bench/health_bench.py [--events 1000000] [--games 1000] [--requests 200]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aiohttp.test_utils import TestClient, TestServer  # noqa: E402

from bot.core import Core  # noqa: E402
from bot.domain import Store  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.storage.migrations import EVENT_SCHEMA_VERSION  # noqa: E402
from bot.storage.postgres import PostgresStore  # noqa: E402
from bot.web.server import build_web_app  # noqa: E402
from tests.bot.mocked_bot import MockedBot  # noqa: E402
from tests.pg import PostgresServer  # noqa: E402

AT = datetime(2026, 1, 1, tzinfo=UTC)
UPDATES = itertools.count(10_000_000)  # the units' update ids, never one twice
PAYLOAD = json.dumps({"line": "Anna 6♠ -1 vist:Boris pass:Clara"}, ensure_ascii=False)


def rows(events: int, games: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    per_game = events // games
    game_rows = [(g, -1_000_000 - g, "playing", 1, AT, g) for g in range(1, games + 1)]
    event_rows = [
        (g, seq, "deal", PAYLOAD, 1001, AT, EVENT_SCHEMA_VERSION)
        for g in range(1, games + 1)
        for seq in range(1, per_game + 1)
    ]
    return game_rows, event_rows


async def fill_sqlite(path: Path, events: int, games: int) -> None:
    await (await SqliteStore.open(path)).close()  # the schema
    game_rows, event_rows = rows(events, games)
    stamp = AT.isoformat()
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO games (game_id, chat_id, status, created_by, created_at, number)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(*r[:4], stamp, r[5]) for r in game_rows],
        )
        db.executemany(
            "INSERT INTO events (game_id, seq, kind, payload, author, at, schema_version)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(*r[:5], stamp, r[6]) for r in event_rows],
        )


async def fill_postgres(url: str, events: int, games: int) -> None:
    store = await PostgresStore.open(url)
    game_rows, event_rows = rows(events, games)
    try:
        async with store.connection() as conn:
            columns = ["game_id", "chat_id", "status", "created_by", "created_at", "number"]
            await conn.copy_records_to_table("games", records=game_rows, columns=columns)
            await conn.copy_records_to_table(
                "events",
                records=event_rows,
                columns=["game_id", "seq", "kind", "payload", "author", "at", "schema_version"],
            )
            await conn.execute("ANALYZE")
    finally:
        await store.close()


def figures(times: list[float]) -> str:
    times = sorted(times)
    p95 = times[int(len(times) * 0.95) - 1]
    return f"p50 {statistics.median(times):7.2f} ms   p95 {p95:7.2f} ms   max {times[-1]:7.2f} ms"


async def timed(call: Callable[[], Awaitable[object]], count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    return times


async def units_with(
    store: Store, seconds: float, health: TestClient[Any, Any] | None
) -> list[float]:
    """Milliseconds per unit of work (a read of a game's tail, a write) recorded back to back for
    `seconds`, with `/healthz` asked 20 times a second meanwhile when `health` is given."""
    stop = time.perf_counter() + seconds
    times: list[float] = []

    async def asking() -> None:
        assert health is not None
        while time.perf_counter() < stop:
            async with health.get("/healthz") as response:
                await response.read()
            await asyncio.sleep(0.05)

    asker = asyncio.create_task(asking()) if health is not None else None
    while time.perf_counter() < stop:
        update = next(UPDATES)
        start = time.perf_counter()
        async with store.transaction() as repo:
            await repo.lock_chat(-1_000_001)
            await repo.events(1, after=990)
            await repo.mark_update(update, AT)
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0)
    if asker is not None:
        await asker
    return times


async def measure(name: str, store: Store, requests: int) -> None:
    game = Core(store)
    app = build_web_app(MockedBot(), game)
    async with TestClient(TestServer(app)) as client:

        async def healthz() -> None:
            async with client.get("/healthz") as response:
                assert response.status == 200, await response.text()

        async def count() -> None:
            async with store.reading() as repo:
                await repo.count_events()

        await timed(healthz, 20)  # warm
        print(f"{name:10} /healthz, idle              {figures(await timed(healthz, requests))}")
        print(f"{name:10} COUNT(*) of the events      {figures(await timed(count, 20))}")
        alone = await units_with(store, 3.0, None)
        beside = await units_with(store, 3.0, client)
        print(f"{name:10} a unit of work, alone       {figures(alone)}")
        print(f"{name:10} ... with /healthz 20/s      {figures(beside)}")
        busy: list[float] = []

        async def asked_while_busy() -> None:
            stop = time.perf_counter() + 3.0
            while time.perf_counter() < stop:
                start = time.perf_counter()
                await healthz()
                busy.append((time.perf_counter() - start) * 1000)
                await asyncio.sleep(0.05)

        await asyncio.gather(asked_while_busy(), units_with(store, 3.0, None))
        print(f"{name:10} /healthz beside the units   {figures(busy)}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    print(f"{args.events:,} events in {args.games:,} games")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "health.sqlite3"
        await fill_sqlite(path, args.events, args.games)
        store = await SqliteStore.open(path)
        try:
            await measure("SQLite", store, args.requests)
        finally:
            await store.close()
    server = PostgresServer.start(durable=True)
    try:
        url = await server.new_database()
        await fill_postgres(url, args.events, args.games)
        pg = await PostgresStore.open(url)
        try:
            await measure("PostgreSQL", pg, args.requests)
        finally:
            await pg.close()
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
