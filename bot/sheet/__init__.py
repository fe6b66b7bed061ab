"""The score sheet as a picture («пулька»), spec/sheet.md.

`render_sheet_png(sheet, lang)` is pure and synchronous (CPU-bound): call it through
`asyncio.to_thread`; it is safe from several threads (drawing is serialised, PNG encoding is not).
`layout.layout_sheet` is the pure layout step, `raster` draws it; call those two from one thread at a
time.
"""

from __future__ import annotations

import threading

from bot.sheet.layout import Correction, Corrections, Layout, layout_sheet
from bot.sheet.raster import encode_png, rasterise
from scoring.settle import Settlement
from scoring.sheet import Sheet

__all__ = ["Correction", "Layout", "drawing_lock", "layout_sheet", "render_sheet_png"]

drawing_lock = threading.Lock()  # the layout's font caches are shared: one drawing at a time


def render_sheet_png(
    sheet: Sheet,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
) -> bytes:
    """The sheet as PNG bytes: 1200×1000 for 3 players, 1000×1200 for 4.

    `lang` picks the picture's words (ru, en; others fall back to en). Without `settlement` the
    balances are computed with `scoring.settle.settle(rules, totals, game.stake)`. `corrections`
    (issue 6) maps (band, record index) to the wrong value first written there — see `layout`.
    """
    with drawing_lock:  # FreeType faces and the layout's caches are shared: one picture at a time
        image = rasterise(
            layout_sheet(sheet, lang, settlement=settlement, corrections=corrections)
        )
    return encode_png(image)
