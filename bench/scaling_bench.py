"""A deal costs the same at #500 as at #5 (issue 12): one game played to 1,000 deals through the
real dispatcher (Bot API mocked), and the median cost of a `/deal` — from the update entering
`Dispatcher.feed_update` until every answer has left, the picture drawn in a worker thread as in
production — with the picture and with the text sheet,
around deals #10, #100, #500 and #1000.

A 30-deal warm-up game in another chat comes first (fonts and glyph caches). Around each mark the
deals alternate, one with the picture, one with the text sheet (WINDOW deals
each, ending at the mark); the deals between the marks are played with the text sheet.

    .venv/bin/python bench/scaling_bench.py [--deals 1000] [--window 9] [--games 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
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
from tests.bot.factories import FakeClock  # noqa: E402
from tests.bot.mocked_bot import MockedBot, deliver_through  # noqa: E402

MARKS = (10, 100, 500, 1000)
WARM = 30  # deals of the warm-up game, with pictures


async def play(deals: int, window: int) -> dict[int, tuple[list[float], list[float]]]:
    renderer = posting.render_sheet_png
    marks = [m for m in MARKS if m <= deals]
    timed: dict[int, tuple[list[float], list[float]]] = {m: ([], []) for m in marks}
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(bot_token="42:TEST", database_path=Path(folder) / "s.sqlite3")
        store = await SqliteStore.open(settings.database_path)
        dp = build_dispatcher(settings, store, FakeClock())
        mocked = MockedBot()
        deliver_through(dp, mocked)  # the outbox's sender, as the running bot has it
        # A warm-up game in another chat first: the process's first pictures load the fonts and
        # fill the glyph caches, which is no cost of the measured game's deal #10.
        warm = await open_table(dp, mocked, -2)
        for n in range(1, WARM + 1):
            await dp.feed_update(
                mocked, warm.message_update(KEEPER, f"/deal {DEALS[n % len(DEALS)]}")
            )
        mocked.session.requests.clear()
        chat = await open_table(dp, mocked, -1)
        try:
            for n in range(1, deals + 1):
                mark = next((m for m in marks if m - 2 * window < n <= m), None)
                picture = mark is not None and (mark - n) % 2 == 0
                posting.render_sheet_png = renderer if picture else None  # type: ignore[assignment]
                update = chat.message_update(KEEPER, f"/deal {DEALS[n % len(DEALS)]}")
                start = time.perf_counter()
                await dp.feed_update(mocked, update)
                spent = (time.perf_counter() - start) * 1000
                mocked.session.requests.clear()
                if mark is not None:
                    timed[mark][0 if picture else 1].append(spent)
        finally:
            posting.render_sheet_png = renderer
            await store.close()
    return timed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--window", type=int, default=9)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    # Several games one after another, the medians pooled: on a shared machine the speed drifts
    # within one 7-second game, and #10 and #500 must not be measured at different speeds.
    timed: dict[int, tuple[list[float], list[float]]] = {}
    for _ in range(args.games):
        for mark, (picture, text) in (await play(args.deals, args.window)).items():
            pooled = timed.setdefault(mark, ([], []))
            pooled[0].extend(picture)
            pooled[1].extend(text)
    print(
        f"/deal through the dispatcher, median of {args.window} deals ending at each mark"
        f" in each of {args.games} games, pooled (ms); pictures in a worker thread"
    )
    print(f"{'deal #':>7} {'picture':>8} {'text':>7}")
    first = None
    for mark, (picture, text) in timed.items():
        row = (statistics.median(picture), statistics.median(text))
        first = first or row
        print(
            f"{mark:>7} {row[0]:>8.1f} {row[1]:>7.1f}"
            f"   (× {row[0] / first[0]:.2f}, × {row[1] / first[1]:.2f} of #{MARKS[0]})"
        )
    seconds = time.perf_counter() - start
    print(f"{args.games} × {args.deals} deals in {seconds:.0f} s, RSS {rss_mb():.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
