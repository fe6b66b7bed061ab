"""Render time of the score-sheet picture (spec/sheet.md "Speed"): `python bench/render_bench.py`.

For 10, 50 and 200 deals, 3 and 4 players: the first render in a fresh process (cold: fonts loaded,
no glyph masks cached) and the median and max of 20 renders after it (warm, as in a running bot),
split into layout / raster / PNG, plus the PNG size. One process, one thread (so one core). Then
the full sheet of the same games (`render_document_png`, `/sheet full`): median of 5.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.sheets import random_game
from bot.sheet import render_document_png
from bot.sheet.layout import layout_sheet
from bot.sheet.raster import encode_png, rasterise

RUNS = 20


def main() -> None:
    print(f"render_sheet_png, {RUNS} runs after one cold run; times in ms")
    print(
        f"{'players':>7} {'deals':>5} {'cold':>6} {'median':>7} {'max':>6}   layout raster    png   size"
    )
    for players in (3, 4):
        for deals in (10, 50, 200):
            sheet = random_game(players, deals, seed=7, pool_target=2 * deals + 20)
            assert sheet.deals == deals
            start = time.perf_counter()
            encode_png(rasterise(layout_sheet(sheet, "ru")))
            cold = time.perf_counter() - start
            totals, parts = [], []
            for _ in range(RUNS):
                t0 = time.perf_counter()
                layout = layout_sheet(sheet, "ru")
                t1 = time.perf_counter()
                image = rasterise(layout)
                t2 = time.perf_counter()
                png = encode_png(image)
                t3 = time.perf_counter()
                totals.append(t3 - t0)
                parts.append((t1 - t0, t2 - t1, t3 - t2))
            split = [statistics.median(p[i] for p in parts) * 1000 for i in range(3)]
            print(
                f"{players:>7} {deals:>5} {cold * 1000:>6.1f} {statistics.median(totals) * 1000:>7.1f}"
                f" {max(totals) * 1000:>6.1f}   {split[0]:>6.1f} {split[1]:>6.1f} {split[2]:>6.1f}"
                f" {len(png) / 1024:>5.0f} KB"
            )

    print("render_document_png (the full sheet, every total), median of 5; times in ms")
    print(f"{'players':>7} {'deals':>5} {'median':>7}   size")
    for players in (3, 4):
        for deals in (10, 50, 200):
            sheet = random_game(players, deals, seed=7, pool_target=2 * deals + 20)
            times = []
            for _ in range(5):
                start = time.perf_counter()
                png = render_document_png(sheet, "ru")
                times.append(time.perf_counter() - start)
            print(
                f"{players:>7} {deals:>5} {statistics.median(times) * 1000:>7.1f}"
                f"   {len(png) / 1024:>4.0f} KB"
            )


if __name__ == "__main__":
    main()
