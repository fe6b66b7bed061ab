"""Deals per second of one and of two bot instances on one PostgreSQL (issue 14): figures, not a test.

`--chats` games (100) are opened first; then every chat gets `--deals` `/deal`s, the k-th of each chat
going to instance k mod N, so both instances take deals of the same chats at once and serialise on
the chat's advisory lock, as behind a round-robin webhook. Each instance is a process of its own
(its own store, dispatcher and mocked Bot; text sheet, no picture), feeding `--concurrency` updates
at a time, like Telegram's parallel webhook connections. Deals/s = every deal / the wall time from a
common start to the last commit; each deal is then checked to be recorded once.

PostgreSQL is a temporary server from the system's binaries (`tests.pg`) with its default
durability (fsync and synchronous_commit on).

    .venv/bin/python bench/instances_bench.py [--chats 100] [--deals 10] [--concurrency 20]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import time
from multiprocessing.synchronize import Barrier
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bot.app import build_dispatcher  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage.postgres import PostgresStore  # noqa: E402
from bot.telegram.outbound import outbox as posting  # noqa: E402
from tests.bot.factories import ChatDriver, TgUser  # noqa: E402
from tests.bot.mocked_bot import MockedBot  # noqa: E402
from tests.pg import PostgresServer  # noqa: E402

KEEPER = TgUser(2001, "Keeper", "keeper")
DEALS = (  # all three play: any order is a valid game
    "Anna 6♠ = vist:Boris pass:Clara",
    "Boris 7♥ -1 vist:Anna pass:Clara",
    "Clara misere 1",
    "Anna 6♣ -1 vist:Boris/3 vist:Clara/2",
    "Boris 8♦ = vist:Anna pass:Clara",
)
FIRST_CHAT = -50_000


def chat_id(n: int) -> int:
    return FIRST_CHAT - n


def settings(url: str) -> Settings:
    return Settings(bot_token="42:TEST", default_locale="en", database_url=url)


async def open_games(url: str, chats: int) -> None:
    store = await PostgresStore.open(url)
    try:
        dp = build_dispatcher(settings(url), store)
        bot = MockedBot()
        for n in range(chats):
            chat = ChatDriver(dp, bot, chat_id=chat_id(n))
            update = chat.message_update(
                KEEPER, "/newgame sochi pool 1000 Anna Boris Clara", update_id=10 + n
            )
            await dp.feed_update(bot, update)
    finally:
        await store.close()


async def feed(url: str, jobs: list[tuple[int, int]], concurrency: int, start: Barrier) -> float:
    """Feed this instance's deals (chat number, deal number); seconds from the common start."""
    posting.render_sheet_png = None  # type: ignore[assignment]
    store = await PostgresStore.open(url)
    try:
        dp = build_dispatcher(settings(url), store)
        bot = MockedBot()
        drivers = {n: ChatDriver(dp, bot, chat_id=chat_id(n)) for n, _ in jobs}
        updates = [
            drivers[n].message_update(
                KEEPER, f"/deal {DEALS[k % len(DEALS)]}", update_id=1_000_000 + n * 1_000 + k
            )
            for n, k in jobs
        ]
        gate = asyncio.Semaphore(concurrency)

        async def one(index: int) -> None:
            async with gate:
                await dp.feed_update(bot, updates[index])
                bot.session.requests.clear()

        await asyncio.to_thread(start.wait)
        began = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(len(updates))))
        return time.perf_counter() - began
    finally:
        await store.close()


def instance(
    url: str, jobs: list[tuple[int, int]], concurrency: int, start: Barrier, out: object
) -> None:
    seconds = asyncio.run(feed(url, jobs, concurrency, start))
    out.put(seconds)  # type: ignore[attr-defined]


async def recorded(url: str, chats: int) -> list[int]:
    store = await PostgresStore.open(url)
    try:
        counts = []
        async with store.reading() as repo:
            for n in range(chats):
                row = await repo.live_game(chat_id(n))
                assert row is not None
                counts.append(sum(e.kind == "deal" for e in await repo.events(row.game_id)))
        return counts
    finally:
        await store.close()


def run(server: PostgresServer, instances: int, chats: int, deals: int, concurrency: int) -> float:
    url = asyncio.run(server.new_database())
    asyncio.run(open_games(url, chats))
    jobs: list[list[tuple[int, int]]] = [[] for _ in range(instances)]
    for k in range(deals):
        for n in range(chats):
            jobs[k % instances].append((n, k))
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(instances)
    out = context.Queue()
    workers = [
        context.Process(target=instance, args=(url, share, concurrency, start, out))
        for share in jobs
    ]
    for worker in workers:
        worker.start()
    seconds = max(out.get(timeout=600) for _ in workers)
    for worker in workers:
        worker.join()
    counts = asyncio.run(recorded(url, chats))
    assert counts == [deals] * chats, f"deals recorded per chat: {sorted(set(counts))}"
    return chats * deals / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args()
    server = PostgresServer.start(durable=True)
    try:
        print(
            f"/deal throughput on one PostgreSQL, {args.chats} chats × {args.deals} deals, "
            f"{args.concurrency} updates at a time per instance (text sheet)"
        )
        for instances in (1, 2):
            rate = run(server, instances, args.chats, args.deals, args.concurrency)
            print(f"  {instances} instance{'s' if instances > 1 else ' '}  {rate:7.1f} deals/s")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
