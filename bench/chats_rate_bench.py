"""Many chats at Telegram's pace: CHATS chats each send a deal a minute, in real time, through the
real dispatcher (Bot API mocked) with the pictures drawn in worker threads, as a bot hosting
those groups would run (docs/benchmarks.md, "Many chats at a deal a minute").

Each chat's game first gets `--setup` deals (the text sheet, one chat after another), then for
`--minutes` minutes every chat sends one deal a minute at its own second of the minute (seeded
offsets spread over the minute), each update handled as its own task as aiogram's polling does.
Printed: p50/p99 command-to-photo (from feeding the update to the `sendPhoto` of that chat reaching
the Bot API), the bot process's CPU per deal, the deals that fell behind, and its RSS (now and at
its peak).

Nothing is paced: at 5,000 chats the bot would owe Telegram ~83 messages a second, past the ~30 a
second it takes from one bot, so the bot's own cost is what is measured, not Telegram's queue.

    .venv/bin/python bench/chats_rate_bench.py [--chats 100 1000 5000] [--setup 5] [--minutes 2]
        [--text]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aiogram.methods import SendPhoto, TelegramMethod  # noqa: E402

from bench.bot_bench import DEALS, KEEPER, pct  # noqa: E402
from bot.app import build_dispatcher  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.telegram.outbound import outbox as posting  # noqa: E402
from tests.bot.factories import ChatDriver, FakeClock  # noqa: E402
from tests.bot.mocked_bot import MockedBot, MockedSession, deliver_through  # noqa: E402

RENDER = posting.render_sheet_png


class Stamped(MockedSession):
    """The mocked Bot API, stamping when each chat's photo (or, with the text sheet, its message)
    arrives; it keeps no request (a long run would hold them all)."""

    def __init__(self, photos: bool) -> None:
        super().__init__()
        self.photos = photos
        self.arrived: dict[int, float] = {}

    async def make_request(
        self, bot: Any, method: TelegramMethod[Any], timeout: Any = None
    ) -> Any:
        result = await super().make_request(bot, method, timeout)
        chat = getattr(method, "chat_id", None)
        if isinstance(chat, int) and (isinstance(method, SendPhoto) or not self.photos):
            self.arrived[chat] = time.perf_counter()
        self.requests.clear()
        return result


def status(pid: int | str, key: str) -> float:
    """A line of /proc/<pid>/status in MB (VmRSS, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def picture(on: bool) -> None:
    posting.render_sheet_png = RENDER if on else None  # type: ignore[assignment]


async def run(chats: int, setup: int, minutes: float, photos: bool, folder: Path) -> None:
    settings = Settings(bot_token="42:TEST", database_path=folder / f"rate{chats}.sqlite3")
    store = await SqliteStore.open(settings.database_path)
    dp = build_dispatcher(settings, store, FakeClock())
    mocked = MockedBot()
    session = Stamped(photos)
    mocked.session = session
    deliver_through(dp, mocked)
    try:
        picture(False)
        started = time.perf_counter()
        tables = [ChatDriver(dp, mocked, chat_id=-200_000 - c) for c in range(chats)]
        for table in tables:
            await table.send(KEEPER, "/newgame sochi pool 9999 Anna Boris Clara")
            for n in range(setup - 1):
                await dp.feed_update(mocked, table.message_update(KEEPER, f"/deal {DEALS[n]}"))
        picture(photos)
        for table in tables:  # the last as the measured ones: a game in play has its picture
            await dp.feed_update(mocked, table.message_update(KEEPER, f"/deal {DEALS[setup - 1]}"))
        print(f"  {chats} chats set up at #{setup} in {time.perf_counter() - started:.0f} s")
        rng = random.Random(chats)
        offsets = sorted((rng.uniform(0, 60), t) for t in tables)
        schedule = [(m * 60 + at, t) for m in range(int(minutes + 0.999)) for at, t in offsets]
        schedule = [(at, t) for at, t in schedule if at < minutes * 60]
        latencies: list[float] = []
        late = 0
        turn = {t.chat_id: setup for t in tables}

        async def deal(table: ChatDriver) -> None:
            n = turn[table.chat_id]
            turn[table.chat_id] = n + 1
            update = table.message_update(KEEPER, f"/deal {DEALS[n % len(DEALS)]}")
            start = time.perf_counter()
            await dp.feed_update(mocked, update)
            arrived = session.arrived.pop(table.chat_id, None)
            if arrived is None:  # sent by another update's drain, or not yet: wait for it
                for _ in range(600):
                    await asyncio.sleep(0.05)
                    arrived = session.arrived.pop(table.chat_id, None)
                    if arrived is not None:
                        break
            if arrived is not None:
                latencies.append((arrived - start) * 1000)

        cpu0 = time.process_time()
        tasks: list[asyncio.Task[None]] = []
        begin = time.perf_counter()
        for at, table in schedule:
            delay = begin + at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -1:
                late += 1
            tasks.append(asyncio.create_task(deal(table)))
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - begin
        bot_cpu = (time.process_time() - cpu0) * 1000 / len(schedule)
        kind = "photo" if photos else "text"
        print(
            f"  {chats} chats, {len(schedule)} deals in {wall:.0f} s ({len(schedule) / wall:.1f}/s):"
            f" command-to-{kind} p50 {statistics.median(latencies):.0f} ms,"
            f" p99 {pct(latencies, 0.99):.0f} ms, max {max(latencies):.0f} ms;"
            f" {len(schedule) - len(latencies)} without a reply, {late} started over 1 s late"
        )
        print(f"    CPU per deal: {bot_cpu:.1f} ms")
        rss, peak = status(os.getpid(), "VmRSS"), status(os.getpid(), "VmHWM")
        print(f"    RSS {rss:.0f} MB (peak {peak:.0f} MB)")
    finally:
        picture(True)
        await store.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--setup", type=int, default=5, choices=range(1, len(DEALS) + 1))
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--text", action="store_true", help="the text sheet, no picture")
    args = parser.parse_args()
    print(
        f"chats each sending a deal a minute for {args.minutes:g} min, games at #{args.setup},"
        f" {'text' if args.text else 'pictures'}, {os.cpu_count()} cores:"
    )
    with tempfile.TemporaryDirectory() as name:
        for chats in args.chats:
            await run(chats, args.setup, args.minutes, not args.text, Path(name))


if __name__ == "__main__":
    asyncio.run(main())
