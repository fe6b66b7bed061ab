"""Chats do not wait for each other (issue 12): CHATS chats play at once through the real
dispatcher (Bot API mocked), every update handled as its own task as aiogram's polling does; deals
per second with the sheet picture (drawn in worker threads) and with the text sheet. Each chat's
game first gets WARM deals, then each chat sends DEALS more, all chats together: first every chat
playing the same deals, then the chats playing ten different games.

    .venv/bin/python bench/throughput_bench.py [--chats 100] [--deals 10] [--warm 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bot_bench import DEALS, KEEPER, open_table, rss_mb  # noqa: E402
from bot.app import build_dispatcher  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.telegram.outbound import outbox as posting  # noqa: E402
from tests.bot.factories import ChatDriver, FakeClock  # noqa: E402
from tests.bot.mocked_bot import MockedBot, deliver_through  # noqa: E402


async def chat_plays(
    dp: object, bot: MockedBot, chat: ChatDriver, first: int, deals: int, apart: bool
) -> None:
    """Deals `first`… of the chat's game: the same deals as every other chat, or with `apart`
    one of ten games (the deals in ten orders), so that neighbouring chats' sheets differ."""
    turn = abs(chat.chat_id) % len(DEALS) if apart else 0
    for n in range(first, first + deals):
        deal = DEALS[(3 * n + turn) % len(DEALS)] if apart else DEALS[n % len(DEALS)]
        await dp.feed_update(bot, chat.message_update(KEEPER, f"/deal {deal}"))  # type: ignore[attr-defined]


async def run(chats: int, deals: int, warm: int, picture: bool, apart: bool = False) -> float:
    """Deals per second, with the picture or the text sheet."""
    renderer = posting.render_sheet_png
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(bot_token="42:TEST", database_path=Path(folder) / "t.sqlite3")
        store = await SqliteStore.open(settings.database_path)
        dp = build_dispatcher(settings, store, FakeClock())
        mocked = MockedBot()
        deliver_through(dp, mocked)  # the outbox's sender, as the running bot has it
        try:
            posting.render_sheet_png = None  # type: ignore[assignment]
            tables = [await open_table(dp, mocked, -50_000 - c) for c in range(chats)]
            for table in tables:
                await chat_plays(dp, mocked, table, 0, warm - 1, apart)
            posting.render_sheet_png = renderer if picture else None  # type: ignore[assignment]
            await asyncio.gather(*(chat_plays(dp, mocked, t, warm - 1, 1, apart) for t in tables))
            mocked.session.requests.clear()
            start = time.perf_counter()
            await asyncio.gather(*(chat_plays(dp, mocked, t, warm, deals, apart) for t in tables))
            seconds = time.perf_counter() - start
            mocked.session.requests.clear()
        finally:
            posting.render_sheet_png = renderer
            await store.close()
    return chats * deals / seconds


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--warm", type=int, default=20)
    args = parser.parse_args()
    print(
        f"{args.chats} chats at once, {args.deals} deals each after {args.warm}, "
        f"{os.cpu_count()} cores:"
    )
    kinds = {"with the picture, worker threads": True, "text sheet": False}
    for apart in (False, True):
        print("  every chat plays ten games" if apart else "  every chat plays the same deals")
        for kind, picture in kinds.items():
            rate = await run(args.chats, args.deals, args.warm, picture, apart)
            print(f"    {kind:>42}: {rate:.0f} deals/s")
    print(f"RSS {rss_mb():.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
