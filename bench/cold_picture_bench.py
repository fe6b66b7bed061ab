"""The picture of a long game drawn from nothing, as after a restart: no kept picture, no kept
band layouts. Prints the CPU milliseconds (the process's own time: the machine is shared) of a
cold picture of a 2,000-deal game (`render_sheet_png`), with the text measures forgotten (as a
fresh process has them) and with them kept, and how the second splits between the layout, the
drawing and the PNG encoding. Figures only, no timed assertions (docs/benchmarks.md, "Many
groups").

    .venv/bin/python bench/cold_picture_bench.py [deals] [repeats]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bot.sheet as S
from bench.sheets import random_game
from bot.sheet import flow, measure, raster
from bot.sheet import layout as L
from bot.sheet.canvas import Canvas
from bot.sheet.drawn import Drawn, drawn
from bot.sheet.raster import LIMIT, background, is_busy, mask


def forget_pictures() -> None:
    """No kept picture, no kept band layouts: a game the process has not drawn yet."""
    S.canvas = Canvas()
    L._BANDS.clear()


def forget_measures() -> None:
    """The text measures, the rows of the bands and the runs' drawn masks forgotten, as a fresh
    process has them (the font files and the drawing under the text stay: the first picture of
    any game makes them)."""
    for cached in (measure.text_width, measure.numeral_glyphs, flow._rows, raster.mask):
        cached.cache_clear()


def timed(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return (time.process_time() - start) * 1000


def phases(picture: Drawn) -> tuple[float, float, float]:
    """A cold picture's layout, drawing and encoding, in ms (`render_sheet_png`'s steps)."""
    forget_pictures()
    start = time.process_time()
    layout = L.layout_sheet(picture, "ru", game="g")
    laid = time.process_time()
    kept = S.canvas.draw(layout, background(layout), mask, "g")
    drawn_at = time.process_time()
    S.canvas.encode(kept, LIMIT, is_busy(layout))
    done = time.process_time()
    return (laid - start) * 1000, (drawn_at - laid) * 1000, (done - drawn_at) * 1000


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    picture = drawn(random_game(3, deals, 7, pool_target=99999))
    S.render_sheet_png(random_game(3, 20, 3), "ru")  # the fonts loaded

    def cold() -> float:
        forget_pictures()
        return timed(lambda: S.render_sheet_png(picture, "ru", game="g"))

    forgotten, kept, split = [], [], []
    for _ in range(repeats):
        forget_measures()
        forgotten.append(cold())
        kept.append(cold())
        split.append(phases(picture))
    print(f"cold picture of a {deals}-deal game, {repeats} runs: median (min) CPU ms")
    print(f"  measures forgotten: {statistics.median(forgotten):6.1f} ({min(forgotten):.1f})")
    print(f"  measures kept:      {statistics.median(kept):6.1f} ({min(kept):.1f})")
    for name, figures in zip(("layout", "draw", "encode"), zip(*split, strict=True), strict=True):
        print(f"    {name:8} {statistics.median(figures):6.1f} ({min(figures):.1f})")


if __name__ == "__main__":
    main()
