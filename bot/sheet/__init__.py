"""The score sheet as a picture («пулька»), spec/sheet.md.

`render_sheet_png(sheet, lang)` is pure and synchronous (CPU-bound): call it through
`asyncio.to_thread`; it is safe from several threads (drawing and encoding are serialised: both
redo only what changed since the last picture, `bot.sheet.canvas`).
`layout.layout_sheet` is the pure layout step, `raster` draws it; call those two from one thread at a
time.
"""

from __future__ import annotations

import threading

from bot.sheet.canvas import Canvas
from bot.sheet.drawn import Drawn
from bot.sheet.layout import Correction, Corrections, Layout, layout_sheet
from bot.sheet.raster import LIMIT, background, encode_png, is_busy, mask, rasterise
from scoring.settle import Settlement
from scoring.sheet import Sheet

__all__ = [
    "Correction",
    "Layout",
    "drawing_lock",
    "layout_sheet",
    "render_full_png",
    "render_sheet_png",
]

drawing_lock = threading.Lock()  # the layout's font caches are shared: one drawing at a time
canvas = Canvas()  # the last pictures drawn, redrawn where they change


def render_sheet_png(
    sheet: Sheet | Drawn,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    game: object = None,
) -> bytes:
    """The sheet (or what the picture reads of it, `bot.sheet.drawn`) as PNG bytes: 1200×1000
    for 3 players, 1000×1200 for 4.

    `game` (the game's id) names the kept picture this one is drawn over (`bot.sheet.canvas`)
    and the kept bands it is laid out from: the pixels are the same whatever it is, only the work
    differs.

    `lang` picks the picture's words (ru, en; others fall back to en). Without `settlement` the
    balances are computed with `scoring.settle.settle(rules, totals, game.stake)`. `corrections`
    maps (band, record index) to the wrong value first written there — see `layout`.
    """
    with drawing_lock:  # FreeType faces, the layout's caches and the kept pictures are shared
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, game=game
        )
        image, picture = canvas.draw(layout, background(layout), mask, game)
        return canvas.encode(image, picture, LIMIT, is_busy(layout))


def render_full_png(
    sheet: Sheet,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
) -> bytes:
    """`render_sheet_png` drawn and encoded whole, keeping nothing (what the kept pictures must
    equal, pixel for pixel)."""
    with drawing_lock:
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, keep=False
        )
        image = rasterise(layout)
    return encode_png(image, is_busy(layout))
