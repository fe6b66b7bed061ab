"""The sheet picture drawn whole with Pillow each time (spec/sheet.md "Speed"):
`.venv/bin/python bench/render_bench.py [deals] [runs]`.

For one 3- and one 4-player game at deal `deals` (500 by default): the first picture in this
process (cold: no text measured, no glyph mask cached), then the median and p99 of `runs` pictures
(warm, as in a running bot), in wall time and in this thread's CPU time (the machine is shared:
other processes stretch the wall time, not the CPU time), split into layout / drawing / PNG (wall,
medians), the PNG's size, and the growth of the process's peak RSS over all of it; then the full
sheet (`render_document_png`). One thread.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.sheets import random_game
from bot.sheet import encode_png, is_busy, rasterise, render_document_png
from bot.sheet.layout import layout_sheet


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def p99(times: list[float]) -> float:
    return sorted(times)[min(len(times) - 1, round(0.99 * (len(times) - 1)))]


def main(deals: int, runs: int) -> None:
    games = {p: random_game(p, deals, seed=7, pool_target=2 * deals + 20) for p in (3, 4)}
    base = peak_mb()
    print(f"render_sheet_png at deal #{deals}, {runs} runs after one cold run; ms")
    print("players  cold  median   p99   cpu median  cpu p99   layout  draw   png    size")
    for players, sheet in games.items():
        assert sheet.deals == deals
        totals, parts, cpu = [], [], []
        for _ in range(runs + 1):
            c0 = time.thread_time()
            t0 = time.perf_counter()
            layout = layout_sheet(sheet, "ru")
            t1 = time.perf_counter()
            image = rasterise(layout)
            t2 = time.perf_counter()
            png = encode_png(image, is_busy(layout))
            t3 = time.perf_counter()
            cpu.append((time.thread_time() - c0) * 1000)
            totals.append((t3 - t0) * 1000)
            parts.append(((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000))
        cold, warm = totals[0], totals[1:]
        split = [statistics.median(p[i] for p in parts[1:]) for i in range(3)]
        print(
            f"{players:>7} {cold:>5.0f} {statistics.median(warm):>7.1f} {p99(warm):>5.1f}"
            f" {statistics.median(cpu[1:]):>11.1f} {p99(cpu[1:]):>8.1f}"
            f"   {split[0]:>6.1f} {split[1]:>5.1f} {split[2]:>5.1f} {len(png) // 1024:>5} KB"
        )
    print(f"render_document_png at deal #{deals} (every total), median of 5; ms")
    for players, sheet in games.items():
        times = []
        for _ in range(5):
            start = time.perf_counter()
            png = render_document_png(sheet, "ru")
            times.append((time.perf_counter() - start) * 1000)
        print(f"{players:>7} {statistics.median(times):>7.1f}  {len(png) // 1024:>5} KB")
    print(f"peak RSS growth while drawing: {peak_mb() - base:.1f} MB (peak {peak_mb():.0f} MB)")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*(args + [500, 50][len(args) :]))
