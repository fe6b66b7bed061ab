"""The sender on a real PostgreSQL whose connections are killed every 0.05–0.2 s (a proxy that
drops, a server restarting): claims, marks and give-backs fail at every step, and yet every owed
row goes out once, in its chat's order, and no chat waits for a claim's 30 s lease."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

import asyncpg

from bot.core import Core
from bot.domain import Owed, OwedKind
from bot.storage.postgres import PostgresStore
from bot.telegram.outbound.sender import LEASE, Sender
from tests.bot.mocked_bot import MockedBot
from tests.pg import PostgresServer

CHATS = 5
ROWS = 40
SEND = 0.02  # what a send to Telegram takes at the least: the sending outlasts several kills


async def kill_connections(url: str, stop: asyncio.Event, killed: list[int]) -> None:
    """Every 0.05–0.2 s, terminate every other connection to the database."""
    rng = random.Random(23)
    killer = await asyncpg.connect(url)
    try:
        while not stop.is_set():
            await asyncio.sleep(rng.uniform(0.05, 0.2))
            gone = await killer.fetch(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            killed.append(len(gone))
    finally:
        await killer.close()


async def test_connections_killed_under_the_sender_lose_nothing_double_nothing_and_hold_no_chat(
    pg_server: PostgresServer,
) -> None:
    url = await pg_server.new_database()
    store = await PostgresStore.open(url)
    bot = MockedBot()
    send = bot.session.make_request

    async def slow_send(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SEND)
        return await send(*args, **kwargs)

    bot.session.make_request = slow_send  # type: ignore[method-assign]
    try:
        async with store.transaction() as repo:
            await repo.owe(
                [
                    Owed(-100 - chat, OwedKind.TEXT, f"{chat}-{n}", "en")
                    for n in range(ROWS)
                    for chat in range(CHATS)
                ]
            )
        sender = Sender(bot, Core(store), name="tests/1/killed")
        stop, killed = asyncio.Event(), []
        killing = asyncio.create_task(kill_connections(url, stop, killed))
        sending = asyncio.create_task(sender.run())
        start = time.monotonic()
        sent_at: dict[str, float] = {}
        while len(bot.requests) < CHATS * ROWS and time.monotonic() - start < LEASE:
            for request in bot.requests[len(sent_at) :]:
                sent_at[str(getattr(request, "text", ""))] = time.monotonic() - start
            await asyncio.sleep(0.05)
        for request in bot.requests[len(sent_at) :]:
            sent_at[str(getattr(request, "text", ""))] = time.monotonic() - start
        stop.set()
        await killing
        sending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sending
        texts = [str(getattr(r, "text", "")) for r in bot.requests]
        rounds = [gone for gone in killed if gone]  # 200 sends of 20 ms: at least 4 s
        assert len(rounds) >= 3, f"the connections were hardly killed: {killed}"
        assert sorted(texts) == sorted(f"{c}-{n}" for n in range(ROWS) for c in range(CHATS))
        for chat in range(CHATS):  # each chat's rows in order, each once
            assert [t for t in texts if t.startswith(f"{chat}-")] == [
                f"{chat}-{n}" for n in range(ROWS)
            ]
        took = max(sent_at.values())
        assert took < LEASE / 2, f"a chat waited for a lease: the last row went after {took:.1f} s"
        print(f"{sum(killed)} connections killed; {len(texts)} rows sent in {took:.1f} s")
    finally:
        await store.close()
