"""What a bot with many groups costs: the memory of one long game, a deal's cost with many chats
active, and a cold game's first deal (docs/benchmarks.md, "Many groups").

1. One game through the real dispatcher (Bot API mocked, the text sheet) to `--long` deals: the
   bot's RSS at #100, #2000 and #5000, the game's picture drawn at each mark.
2. `--chats` chats, each with a game of `--setup` deals, then `--rounds` rounds in which every
   chat sends one deal, chat after chat (so that every game must be found again between two of
   its deals): CPU per deal, p50/p99 of command-to-reply. The text sheet: the picture costs the
   same whatever the number of chats (bench/render_bench.py measures it).
3. A game played to `--cold` deals, then a restart (a new store, dispatcher and caches over the
   same database): the first deal's command-to-reply with the picture (in a worker thread, with
   no text measured yet) and as text; the whole log is folded and replayed (there are no snapshots).

    .venv/bin/python bench/many_games_bench.py [--long 5000] [--chats 200 300 1000] [--setup 10]
        [--rounds 2] [--cold 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bot_bench import DEALS, KEEPER, pct, rss_mb  # noqa: E402
from bot.app import build_dispatcher  # noqa: E402
from bot.core import base  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.sheet import model  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.telegram.outbound import outbox as posting  # noqa: E402
from tests.bot.factories import ChatDriver, FakeClock  # noqa: E402
from tests.bot.mocked_bot import MockedBot, deliver_through  # noqa: E402

RENDER = posting.render_sheet_png
MARKS = (100, 1000, 2000, 5000)


async def open_table(dp: Any, bot: MockedBot, chat_id: int) -> ChatDriver:
    """A game whose pool no bench reaches (a game that ended would refuse its deals)."""
    chat = ChatDriver(dp, bot, chat_id=chat_id)
    await chat.send(KEEPER, "/newgame sochi pool 9999 Anna Boris Clara")
    return chat


def picture(on: bool) -> None:
    posting.render_sheet_png = RENDER if on else None  # type: ignore[assignment]


class Bot:
    """A dispatcher over a database file, with the sender delivering through a mocked Bot."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def __aenter__(self) -> Bot:
        self.settings = Settings(bot_token="42:TEST", database_path=self.path)
        self.store = await SqliteStore.open(self.path)
        self.dp = build_dispatcher(self.settings, self.store, FakeClock())
        self.mocked = MockedBot()
        deliver_through(self.dp, self.mocked)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.store.close()

    async def deal(self, chat: Any, n: int) -> float:
        """One /deal, command to the last reply sent (ms)."""
        update = chat.message_update(KEEPER, f"/deal {DEALS[n % len(DEALS)]}")
        start = time.perf_counter()
        await self.dp.feed_update(self.mocked, update)
        spent = (time.perf_counter() - start) * 1000
        sent = self.mocked.session.requests
        assert sent, "no reply"
        assert "finished" not in str(sent[-1]), "the game ended: a larger pool"
        sent.clear()
        return spent


async def long_game(deals: int, folder: Path) -> None:
    marks = [m for m in MARKS if m <= deals]
    print(f"1. one game to #{deals} (RSS, MB, after that game's picture)")
    async with Bot(folder / "long.sqlite3") as bot:
        chat = await open_table(bot.dp, bot.mocked, -1)
        picture(True)
        await bot.deal(chat, 0)
        picture(False)
        for n in range(1, deals + 1):
            if n in marks:
                picture(True)
            await bot.deal(chat, n)
            picture(False)
            if n in marks:
                gc.collect()
                print(f"   #{n:>5}: bot {rss_mb():.0f} MB")


async def many_chats(
    chats: int, setup: int, rounds: int, folder: Path, budget: int | None = None
) -> None:
    picture(False)
    async with Bot(folder / f"chats{chats}-{budget}.sqlite3") as bot:
        if budget is not None:  # caches too small for the chats: every game found again
            bot.dp["core"].games = base.Games(budget)
        tables = [await open_table(bot.dp, bot.mocked, -100_000 - c) for c in range(chats)]
        for n in range(setup):
            for table in tables:
                await bot.deal(table, n)
        times: list[float] = []
        games = bot.dp["core"].games
        folds, replayed = games.folds, games.replayed
        cpu = time.process_time()
        for r in range(rounds):
            for table in tables:
                times.append(await bot.deal(table, setup + r))
        cpu = (time.process_time() - cpu) * 1000 / len(times)
        folds, replayed = games.folds - folds, games.replayed - replayed
        kept = "" if budget is None else f" (caches of {budget} records)"
        print(
            f"   {chats:>5} chats{kept}: CPU {cpu:.2f} ms a deal, p50 {statistics.median(times):.1f} ms,"
            f" p99 {pct(times, 0.99):.1f} ms; in these deals {folds} games folded whole, {replayed}"
            f" records replayed; RSS {rss_mb():.0f} MB"
        )


def forget_pictures() -> None:
    """What a restarted process has of a game: no text measured, nothing cached."""
    model.text_width.cache_clear()
    base.parsed.cache_clear()
    base._SETTLED.clear()


async def cold(deals: int, folder: Path) -> None:
    path = folder / "cold.sqlite3"
    picture(False)
    async with Bot(path) as bot:
        chat = await open_table(bot.dp, bot.mocked, -1)
        picture(True)
        await bot.deal(chat, 0)  # the fonts loaded, as in a running bot
        picture(False)
        for n in range(1, deals + 1):
            await bot.deal(chat, n)
    print(f"3. the first deal after a restart, game at #{deals} (ms, command to reply)")
    for n, with_picture in enumerate((True, False)):
        async with Bot(path) as bot:
            forget_pictures()
            picture(with_picture)
            spent = await bot.deal(open_table_driver(bot), deals + 1 + 2 * n)
            warm = await bot.deal(open_table_driver(bot), deals + 2 + 2 * n)
            picture(False)
            kind = "picture" if with_picture else "text"
            print(f"   {kind:>7}, the whole log: cold {spent:.0f} ms, the next deal {warm:.0f} ms")


def open_table_driver(bot: Bot) -> Any:
    return ChatDriver(bot.dp, bot.mocked, chat_id=-1)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", type=int, default=5000)
    parser.add_argument("--chats", type=int, nargs="*", default=[200, 300, 1000])
    parser.add_argument("--setup", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cold", type=int, default=2000)
    parser.add_argument("--budget", type=int, default=None, help="records the caches hold")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if args.long:
            await long_game(args.long, folder)
        if args.chats:
            print(f"2. chats each at #{args.setup}, {args.rounds} rounds of a deal per chat")
            for chats in args.chats:
                await many_chats(chats, args.setup, args.rounds, folder, args.budget)
        if args.cold:
            await cold(args.cold, folder)


if __name__ == "__main__":
    asyncio.run(main())
