"""What a `/deal` costs on PostgreSQL against SQLite (issue 14): figures, not a test.

1. The unit of work of one `/deal` at the storage level: take the chat lock, check and mark the
   update, find the live game, read its log, append one event, commit — on a game whose log grows
   to `--deals` events, over `--chats` chats one after another.
2. A whole `/deal` through the real dispatcher (mocked Bot, text sheet): parse, fold, replay, append,
   commit, answer.

PostgreSQL is a temporary server from the system's binaries (`tests.pg`) with its default durability
(fsync and synchronous_commit on); SQLite is a temporary WAL file with synchronous=NORMAL (the bot's).

    .venv/bin/python bench/storage_bench.py [--chats 5] [--deals 60]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bot_bench import DEALS as BOT_DEALS  # noqa: E402
from bench.bot_bench import KEEPER  # noqa: E402
from bot.app import build_dispatcher  # noqa: E402
from bot.domain import Store  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.storage.postgres import PostgresStore  # noqa: E402
from bot.telegram.outbound import outbox as posting  # noqa: E402
from tests.bot.factories import ChatDriver, FakeClock  # noqa: E402
from tests.bot.mocked_bot import MockedBot  # noqa: E402
from tests.pg import PostgresServer  # noqa: E402

DEALS = BOT_DEALS[:6]  # the first six of the bot bench's deals, as measured before
AT = datetime(2026, 1, 1, tzinfo=UTC)
Opener = Callable[[], Awaitable[Store]]


async def unit_of_work(open_store: Opener, chats: int, deals: int) -> list[float]:
    """Milliseconds per /deal-shaped unit of work."""
    store = await open_store()
    update_ids = itertools.count(1)
    times: list[float] = []
    try:
        for chat in range(chats):
            chat_id = -10_000 - chat
            async with store.transaction() as repo:
                game = await repo.create_game(chat_id, 1, AT)
            for n in range(deals):
                start = time.perf_counter()
                async with store.transaction() as repo:
                    await repo.lock_chat(chat_id)
                    update = next(update_ids)
                    assert not await repo.update_seen(update)
                    await repo.mark_update(update, AT)
                    row = await repo.live_game(chat_id)
                    assert row is not None
                    await repo.events(row.game_id)
                    await repo.append(game.game_id, "deal", {"line": DEALS[n % len(DEALS)]}, 1, AT)
                times.append((time.perf_counter() - start) * 1000)
    finally:
        await store.close()
    return times


async def whole_deal(open_store: Opener, chats: int, deals: int) -> list[float]:
    """Milliseconds per `/deal` fed through the dispatcher until its answer is sent."""
    store = await open_store()
    settings = Settings(bot_token="42:TEST", default_locale="en")
    dp = build_dispatcher(settings, store, FakeClock())
    mocked = MockedBot()
    times: list[float] = []
    try:
        for chat_no in range(chats):
            chat = ChatDriver(dp, mocked, chat_id=-20_000 - chat_no)
            await chat.send(KEEPER, "/newgame sochi pool 1000 Anna Boris Clara")
            for n in range(deals):
                update = chat.message_update(KEEPER, f"/deal {DEALS[n % len(DEALS)]}")
                start = time.perf_counter()
                await dp.feed_update(mocked, update)
                times.append((time.perf_counter() - start) * 1000)
            mocked.session.requests.clear()
    finally:
        await store.close()
    return times


def line(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"  {name:<22} n={len(times):<4} mean {statistics.fmean(times):6.2f} ms"
        f"  p50 {statistics.median(times):6.2f} ms  p99 {p99:6.2f} ms"
    )


async def main(chats: int, deals: int) -> None:
    posting.render_sheet_png = None  # type: ignore[assignment]
    server = PostgresServer.start(durable=True)
    try:
        with tempfile.TemporaryDirectory() as folder:
            files = itertools.count(1)

            async def sqlite() -> Store:
                return await SqliteStore.open(Path(folder) / f"b{next(files)}.sqlite3")

            async def postgres() -> Store:
                return await PostgresStore.open(await server.new_database())

            for title, bench in (
                ("unit of work of a /deal (lock, dedupe, read log, append, commit)", unit_of_work),
                ("whole /deal through the dispatcher (text sheet)", whole_deal),
            ):
                print(title)
                for name, opener in (("SQLite (WAL)", sqlite), ("PostgreSQL (durable)", postgres)):
                    print(line(name, await bench(opener, chats, deals)))
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=5)
    parser.add_argument("--deals", type=int, default=60)
    args = parser.parse_args()
    asyncio.run(main(args.chats, args.deals))
