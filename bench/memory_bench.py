"""The bot's memory (issue 36, item 5): one game's growth from deal #100 to #5000 (aim: at most
10 MB), and 1,000 chats at a deal a minute (aim: within 600 MB in all). A benchmark, not a test.

Each figure is the RSS of a fresh bot process's whole tree (VmRSS of the process and of every
process under it; the pictures are drawn in its threads), after `gc.collect()`, through the real
dispatcher with the Bot API mocked, on a temporary SQLite database:

1. One game to `--long` deals, the sheet's picture drawn for the `--drawn` deals up to each mark
   (every other deal answered with the text sheet: drawing all 5,000 would take most of an hour).
2. `--chats` chats, each a live game given `--setup` deals (text sheet), then `--minutes` minutes
   of a fake clock in which every chat sends a deal a minute, each answered with its picture: the
   caches hold every chat's game, as a bot hosting those groups keeps them.

    .venv/bin/python bench/memory_bench.py [--long 5000] [--drawn 3] [--chats 1000] [--setup 10]
        [--minutes 2]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pydantic import SecretStr  # noqa: E402

from bench.bot_bench import DEALS, KEEPER  # noqa: E402
from bench.many_games_bench import open_table, picture  # noqa: E402
from bot.app import build_dispatcher  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from tests.bot.factories import ChatDriver, FakeClock  # noqa: E402
from tests.bot.mocked_bot import MockedBot, deliver_through  # noqa: E402

MARKS = (100, 1000, 2000, 5000)


def tree_rss_mb(pid: int, key: str = "VmRSS") -> float:
    """`key` of /proc/<pid>/status summed over the process and every process under it (MB)."""
    total, todo = 0.0, [pid]
    while todo:
        here = todo.pop()
        try:
            for line in Path(f"/proc/{here}/status").read_text().splitlines():
                if line.startswith(key + ":"):
                    total += int(line.split()[1]) / 1024
            for task in Path(f"/proc/{here}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:  # gone meanwhile
            continue
    return total


def rss() -> float:
    gc.collect()
    return tree_rss_mb(os.getpid())


class Bot:
    """The dispatcher over a database file, its sender delivering through a mocked Bot."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.clock = FakeClock()

    async def __aenter__(self) -> Bot:
        self.store = await SqliteStore.open(self.path)
        settings = Settings(bot_token=SecretStr("42:TEST"), database_path=self.path)
        self.dp = build_dispatcher(settings, self.store, self.clock)
        self.mocked = MockedBot()
        deliver_through(self.dp, self.mocked)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.store.close()

    async def deal(self, chat: ChatDriver, n: int) -> None:
        await self.dp.feed_update(
            self.mocked, chat.message_update(KEEPER, f"/deal {DEALS[n % len(DEALS)]}")
        )
        sent = self.mocked.session.requests
        assert sent and "finished" not in str(sent[-1]), "no reply, or the game ended"
        sent.clear()


async def long_game(deals: int, drawn: int, folder: Path) -> None:
    marks = [m for m in MARKS if m <= deals]
    async with Bot(folder / "long.sqlite3") as bot:
        chat: Any = await open_table(bot.dp, bot.mocked, -1)
        seen: dict[int, float] = {}
        for n in range(1, deals + 1):
            picture(any(0 <= m - n < drawn for m in marks) or n == 1)
            bot.clock.advance(60)
            await bot.deal(chat, n)
            if n in marks:
                seen[n] = rss()
                print(f"   #{n:>5}: {seen[n]:.0f} MB", flush=True)
        first, last = min(seen), max(seen)
        print(
            f"1. one game, #{first} to #{last}: {seen[first]:.0f} → {seen[last]:.0f} MB,"
            f" growth {seen[last] - seen[first]:+.1f} MB (aim: at most +10)"
        )


async def many_chats(chats: int, setup: int, minutes: int, folder: Path) -> None:
    async with Bot(folder / "chats.sqlite3") as bot:
        picture(False)
        tables: list[Any] = [
            await open_table(bot.dp, bot.mocked, -100_000 - c) for c in range(chats)
        ]
        for n in range(setup):
            for table in tables:
                await bot.deal(table, n)
        print(f"   {chats} chats at #{setup}: {rss():.0f} MB", flush=True)
        picture(True)
        for minute in range(minutes):
            for table in tables:  # a minute: each chat's deal at its own second of it
                bot.clock.advance(60 / chats)
                await bot.deal(table, setup + minute)
            print(f"   minute {minute + 1}: {rss():.0f} MB", flush=True)
        peak = tree_rss_mb(os.getpid(), "VmHWM")
        print(
            f"2. {chats} chats at a deal a minute, {minutes} min, pictures: {rss():.0f} MB"
            f" (peak {peak:.0f} MB; aim: within 600)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", type=int, default=5000)
    parser.add_argument("--drawn", type=int, default=3)
    parser.add_argument("--chats", type=int, default=1000)
    parser.add_argument("--setup", type=int, default=10)
    parser.add_argument("--minutes", type=int, default=2)
    parser.add_argument("--part", choices=("long", "chats"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part is None:  # each part in a bot process of its own
        print(
            f"{os.cpu_count()} cores; RSS of the bot's process tree after gc.collect()", flush=True
        )
        for part in ("long", "chats"):
            subprocess.run([sys.executable, __file__, *sys.argv[1:], "--part", part], check=True)
        return
    with tempfile.TemporaryDirectory() as name:
        if args.part == "long":
            asyncio.run(long_game(args.long, args.drawn, Path(name)))
        else:
            asyncio.run(many_chats(args.chats, args.setup, args.minutes, Path(name)))


if __name__ == "__main__":
    main()
