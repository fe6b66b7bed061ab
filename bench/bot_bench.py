"""The bot's speed and memory through the real Dispatcher with a mocked Bot session (issue 4).

1. Latency: the time from an update entering `Dispatcher.feed_update` to the bot's first reply request
   leaving (the mocked session notes when it is asked), over a 50-deal game: p50 and p99, with the
   sheet picture (rendered in a worker thread, as in production) and with the text sheet.
2. Memory: RSS after 1,000 games have been opened and given 20 deals each (text sheet: the picture
   is drawn and dropped per deal, it holds no memory), on a temporary database.

    .venv/bin/python bench/bot_bench.py [--games 1000] [--deals 20] [--latency-deals 50]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aiogram.methods import SendMessage, SendPhoto, TelegramMethod  # noqa: E402

from bot.app import build_dispatcher  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.telegram.outbound import outbox as posting  # noqa: E402
from tests.bot.factories import ChatDriver, FakeClock, TgUser  # noqa: E402
from tests.bot.mocked_bot import MockedBot, MockedSession, deliver_through  # noqa: E402

KEEPER = TgUser(2001, "Keeper", "keeper")
DEALS = (
    "Anna 6♠ = vist:Boris pass:Clara",
    "Boris 7♥ -1 vist:Anna pass:Clara",
    "Clara misere 1",
    "pass Anna/2 Boris/3 Clara/5",
    "Anna 6♣ -1 vist:Boris/3 vist:Clara/2",
    "Boris 8♦ = vist:Anna pass:Clara",
    "Clara 6♥ +1 vist:Anna pass:Boris",
    "Anna misere 0",
    "Boris 6nt = pass:Anna half:Clara",
    "Clara 7♠ = vist:Anna/1 vist:Boris/2",
)


class TimedSession(MockedSession):
    """Notes when the first reply (a message or a photo) leaves after `start()`."""

    def __init__(self) -> None:
        super().__init__()
        self.first_reply: float | None = None

    def start(self) -> None:
        self.first_reply = None

    async def make_request(
        self, bot: Any, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        if self.first_reply is None and isinstance(method, SendMessage | SendPhoto):
            self.first_reply = time.perf_counter()
        return await super().make_request(bot, method, timeout)


def rss_mb() -> float:
    """Resident set size now (Linux /proc), in MB; the peak if /proc is not there."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def open_table(dp: Any, bot: MockedBot, chat_id: int) -> ChatDriver:
    chat = ChatDriver(dp, bot, chat_id=chat_id)
    await chat.send(KEEPER, "/newgame sochi pool 1000 Anna Boris Clara")
    return chat


async def latency(deals: int, picture: bool) -> list[float]:
    saved = use_picture(picture)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(bot_token="42:TEST", database_path=Path(folder) / "b.sqlite3")
        store = await SqliteStore.open(settings.database_path)
        dp = build_dispatcher(settings, store, FakeClock())
        mocked = MockedBot()
        session = TimedSession()
        mocked.session = session
        deliver_through(dp, mocked)  # the outbox's sender, as the running bot has it
        chat = await open_table(dp, mocked, -1)
        times = []
        try:
            for i in range(deals):
                update = chat.message_update(KEEPER, f"/deal {DEALS[i % len(DEALS)]}")
                session.start()
                start = time.perf_counter()
                await dp.feed_update(mocked, update)
                assert session.first_reply is not None, "no reply"
                times.append((session.first_reply - start) * 1000)
        finally:
            posting.render_sheet_png = saved
            await store.close()
        return times


def use_picture(picture: bool) -> Any:
    """Turn the sheet picture off (the text sheet stands in); the renderer to put back."""
    saved = posting.render_sheet_png
    if not picture:
        posting.render_sheet_png = None  # type: ignore[assignment]
    return saved


async def memory(games: int, deals: int) -> tuple[float, float, float]:
    saved = use_picture(False)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(bot_token="42:TEST", database_path=Path(folder) / "m.sqlite3")
        store = await SqliteStore.open(settings.database_path)
        dp = build_dispatcher(settings, store, FakeClock())
        mocked = MockedBot()
        deliver_through(dp, mocked)
        before = rss_mb()
        start = time.perf_counter()
        try:
            for g in range(games):
                chat = await open_table(dp, mocked, -10_000 - g)
                for i in range(deals):
                    await chat.send(KEEPER, f"/deal {DEALS[i % len(DEALS)]}")
                mocked.session.requests.clear()
        finally:
            posting.render_sheet_png = saved
            await store.close()
        return before, rss_mb(), time.perf_counter() - start


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-deals", type=int, default=50)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--deals", type=int, default=20)
    args = parser.parse_args()

    for picture in (True, False):
        times = await latency(args.latency_deals, picture)
        kind = "picture" if picture else "text sheet"
        print(
            f"/deal → first reply request ({kind}), {len(times)}-deal game: "
            f"p50 {statistics.median(times):.1f} ms, p99 {pct(times, 0.99):.1f} ms, "
            f"max {max(times):.1f} ms"
        )
    before, after, seconds = await memory(args.games, args.deals)
    print(
        f"RSS after {args.games} games × {args.deals} deals: {after:.0f} MB "
        f"(before the games {before:.0f} MB; {args.games * (args.deals + 1)} updates in {seconds:.0f} s)"
    )


if __name__ == "__main__":
    asyncio.run(main())
