"""What the outbox costs per `/deal` (issue 11): figures, not a test.

1. The /deal-shaped transaction at the storage level (mark the update, append one event) without
   and with the owed reply written in it — the outbox's cost inside the command.
2. The sender's bookkeeping per row: one claim statement and one "sent" mark (no Telegram call);
   for a sheet row also the look at the rows behind it (coalescing).
3. A whole `/deal` through the real dispatcher (mocked Bot, the text sheet), on a game growing to
   `--deals` deals: the command and its commit with the owed row, then the same with the sender's
   delivery through the mocked Bot (it reads the log again to draw the sheet at its seq), then
   with the sender's pacing on (buckets as large as never to wait: what the bookkeeping costs).
4. The pacing's own arithmetic per call (the chat's check, its token and the bot's).

Polling adds nothing per update: a batch is confirmed by the next getUpdates it already makes.

    .venv/bin/python bench/outbox_bench.py [--deals 300]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bot.app import build_dispatcher  # noqa: E402
from bot.domain import Owed, OwedKind  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.telegram.outbound import outbox as reply  # noqa: E402
from bot.telegram.outbound.pacing import Limit, Pacing  # noqa: E402
from bot.telegram.outbound.sender import BEHIND  # noqa: E402
from tests.bot.factories import ChatDriver, FakeClock, TgUser  # noqa: E402
from tests.bot.mocked_bot import MockedBot, deliver_through  # noqa: E402

KEEPER = TgUser(2001, "Keeper", "keeper")
DEALS = (
    "Anna 6♠ -1 vist:Boris pass:Clara",
    "Boris 7♥ -1 vist:Anna pass:Clara",
    "Clara 6♦ -1 vist:Anna pass:Boris",
)
AT = datetime(2026, 1, 1, tzinfo=UTC)
CAPTION = "#12 Anna 6♠ −1 vist:Boris pass:Clara\nAnna: mountain +6\nBoris: whists +12"


def ms(values: list[float]) -> str:
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    return f"p50 {statistics.median(values):.2f} ms, p99 {p99:.2f} ms"


async def transactions(deals: int, owe: bool) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        store = await SqliteStore.open(Path(folder) / "t.sqlite3")
        try:
            async with store.transaction() as repo:
                game = await repo.create_game(-1, 1, AT)
            times = []
            for i in range(deals):
                start = time.perf_counter()
                async with store.transaction() as repo:
                    await repo.mark_update(i + 1, AT)
                    await repo.append(game.game_id, "deal", {"line": DEALS[i % 3]}, 1, AT)
                    if owe:
                        row = Owed(-1, OwedKind.SHEET, CAPTION, "en", game_id=game.game_id, seq=i)
                        await repo.owe([row])
                times.append((time.perf_counter() - start) * 1000)
            return times
        finally:
            await store.close()


async def bookkeeping(rows: int, kind: OwedKind = OwedKind.TEXT) -> list[float]:
    """Each row owed alone (nothing behind it, as when a deal is answered at once), then timed:
    its claim, for a sheet the look behind it, its mark."""
    with tempfile.TemporaryDirectory() as folder:
        store = await SqliteStore.open(Path(folder) / "s.sqlite3")
        try:
            times = []
            for i in range(rows):
                async with store.transaction() as repo:
                    await repo.owe([Owed(-1, kind, CAPTION, "en", game_id=1, seq=i + 1)])
                start = time.perf_counter()
                now = time.time()
                async with store.statement() as repo:
                    (row,) = await repo.claim_owed("bench/1/x", now, now + 30)
                if kind is OwedKind.SHEET:
                    async with store.reading() as repo:
                        await repo.owed_after(-1, row.id, BEHIND)
                async with store.statement() as repo:
                    await repo.owed_sent(row.id, "bench/1/x", 1000 + i, now)
                times.append((time.perf_counter() - start) * 1000)
            return times
        finally:
            await store.close()


NEVER_WAIT = Pacing(Limit(1e9, 1e9), Limit(1e9, 1e9), Limit(1e9, 1e9))


def pacing_arithmetic(calls: int) -> float:
    """Microseconds per call: the chat's check, its token and the bot's (Telegram's limits)."""
    pacing = Pacing.of(Settings(bot_token="42:TEST"))
    start = time.perf_counter()
    for i in range(calls):
        now = i * 10.0  # a call every 10 s: never waits
        pacing.ready_in(-(i % 100) - 1, now)
        pacing.take_chat(-(i % 100) - 1, now)
        pacing.take_bot(now)
    return (time.perf_counter() - start) / calls * 1e6


async def whole_deal(deals: int, deliver: bool, pacing: Pacing | None = None) -> list[float]:
    saved = reply.render_sheet_png
    reply.render_sheet_png = None  # type: ignore[assignment]  # the text sheet: no picture noise
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(bot_token="42:TEST", database_path=Path(folder) / "b.sqlite3")
        store = await SqliteStore.open(settings.database_path)
        try:
            dp = build_dispatcher(settings, store, FakeClock())
            mocked = MockedBot()
            if deliver:
                deliver_through(dp, mocked, pacing=pacing)
            chat = ChatDriver(dp, mocked, chat_id=-1)
            await chat.send(KEEPER, "/newgame sochi pool 1000 Anna Boris Clara")
            times = []
            for i in range(deals):
                update = chat.message_update(KEEPER, f"/deal {DEALS[i % 3]}")
                sent = len(mocked.requests)
                start = time.perf_counter()
                await dp.feed_update(mocked, update)
                times.append((time.perf_counter() - start) * 1000)
                assert len(mocked.requests) > sent or not deliver, "no reply was delivered"
            return times
        finally:
            reply.render_sheet_png = saved
            await store.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=300)
    args = parser.parse_args()
    plain = await transactions(args.deals, owe=False)
    owed = await transactions(args.deals, owe=True)
    print(f"/deal transaction (SQLite), without the owed row: {ms(plain)}")
    print(f"/deal transaction (SQLite), with the owed row:    {ms(owed)}")
    print(f"sender bookkeeping per row (claim + mark sent):   {ms(await bookkeeping(args.deals))}")
    sheets = await bookkeeping(args.deals, OwedKind.SHEET)
    print(f"the same, a sheet row (+ the look behind it):     {ms(sheets)}")
    alone = await whole_deal(args.deals, deliver=False)
    print(f"whole /deal, its reply left owed (no sender):     {ms(alone)}")
    delivered = await whole_deal(args.deals, deliver=True)
    print(f"whole /deal + delivery (mocked Bot, text sheet):  {ms(delivered)}")
    paced = await whole_deal(args.deals, deliver=True, pacing=NEVER_WAIT)
    print(f"the same, paced (buckets that never wait):        {ms(paced)}")
    print(f"pacing arithmetic per call: {pacing_arithmetic(100_000):.2f} µs")


if __name__ == "__main__":
    asyncio.run(main())
