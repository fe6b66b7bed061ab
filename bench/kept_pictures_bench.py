"""What a kept picture costs a painter child: its bytes, the time of a deal drawn over it, and the
child's RSS with many games kept (docs/benchmarks.md, "Many groups").

1. `--deals` (20, 200, 2000): a 3-player game played to that deal, its picture kept, then
   `--repeat` deals each drawn and encoded over it (`render_sheet_png`, as a painter child does):
   the median and the slowest, and the bytes the kept picture holds (`Canvas.held`).
2. `--games` (100, 1000): so many games of `--setup` deals, each drawn once in turn, in one process
   as a painter child (`Canvas(KEPT, budget)`, `--budget` MB: the default is one child's share of
   `PICTURE_MEMORY_MB`, 0 for no budget): the pictures kept, their bytes, the process's RSS; then
   one more deal of every game in the same order (kept pictures redraw what their deal changed, the
   others are drawn again): the median time of such a deal.

    nice .venv/bin/python bench/kept_pictures_bench.py [--deals 20 200 2000] [--games 100 1000]
        [--setup 20] [--budget 128]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import bot.sheet  # noqa: E402
from bench.bot_bench import rss_mb  # noqa: E402
from bench.sheets import NAMES, random_records  # noqa: E402
from bot.sheet import render_sheet_png  # noqa: E402
from bot.sheet.canvas import Canvas  # noqa: E402
from bot.sheet.painter import KEPT, MEMORY  # noqa: E402
from scoring.replay import Replay  # noqa: E402
from scoring.rules import rules_for  # noqa: E402
from scoring.sheet import Game  # noqa: E402

GAME = Game(rules_for("sochi", 3, {"pool_target": "99999"}), NAMES[:3], 0)


def deal_times(deals: int, repeat: int) -> None:
    bot.sheet.canvas = canvas = Canvas()
    stock = random_records(3, deals + repeat, seed=deals)
    line = Replay(GAME)
    render_sheet_png(line.advance(stock[:deals]), "en", game="one")
    times, cpu = [], []
    for count in range(deals, deals + repeat):
        sheet = line.advance(stock[count : count + 1])
        start, start_cpu = time.perf_counter(), time.process_time()
        render_sheet_png(sheet, "en", game="one")
        cpu.append((time.process_time() - start_cpu) * 1000)
        times.append((time.perf_counter() - start) * 1000)
    print(
        f"deal #{deals}: layout+draw+encode median {statistics.median(times):.1f} ms "
        f"(CPU {statistics.median(cpu):.1f} ms), slowest {max(times):.1f} ms; "
        f"the kept picture holds {canvas.held / 1024:.0f} KB"
    )


def trimmed_rss() -> float:
    """The RSS once the C heap gave back what it holds free (glibc's `malloc_trim`; the RSS as it
    is elsewhere): what the objects alive take, not the heap's free pages."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_mb()


def many_games(games: int, setup: int, budget: int) -> None:
    bot.sheet.canvas = canvas = Canvas(KEPT, budget=budget or None)
    lines = []
    for game in range(games):
        stock = random_records(3, setup + 1, seed=game)
        line = Replay(GAME)
        lines.append((line, stock, line.advance(stock[:setup])))
    base = trimmed_rss()  # the games' replays (the bot's, not a painter's) held before any picture
    for game, (_, _, sheet) in enumerate(lines):
        render_sheet_png(sheet, "en", game=game)
    held = canvas.held
    print(
        f"{games} games of {setup} deals, budget {budget >> 20} MB: {len(canvas)} pictures kept, "
        f"{held / 1024 / max(1, len(canvas)):.0f} KB each, {held / 2**20:.1f} MB held; "
        f"RSS {rss_mb():.0f} MB, +{rss_mb() - base:.0f} MB for the pictures and the layouts "
        f"(the process with the replays alone: {base:.0f} MB); trimmed {trimmed_rss():.0f} MB"
    )
    times = []
    for game, (line, stock, _) in enumerate(lines):
        sheet = line.advance(stock[setup : setup + 1])
        start = time.perf_counter()
        render_sheet_png(sheet, "en", game=game)
        times.append((time.perf_counter() - start) * 1000)
    print(
        f"  next deal of each, in turn: median {statistics.median(times):.1f} ms, "
        f"p90 {statistics.quantiles(times, n=10)[-1]:.1f} ms; RSS {rss_mb():.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, nargs="*", default=[20, 200, 2000])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--games", type=int, nargs="*", default=[100, 1000])
    parser.add_argument("--setup", type=int, default=20)
    parser.add_argument("--budget", type=int, default=MEMORY // 2 >> 20, help="MB, 0: none")
    args = parser.parse_args()
    for deals in args.deals:
        deal_times(deals, args.repeat)
    for games in args.games:
        many_games(games, args.setup, args.budget << 20)


if __name__ == "__main__":
    main()
