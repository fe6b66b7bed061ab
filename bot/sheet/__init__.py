"""The score sheet as a picture («пулька», spec/sheet.md): pure, synchronous, CPU-bound functions;
the bot calls them through `asyncio.to_thread`.

The chat's picture is 1010×1279 and readable in the chat on a phone: a crowded band folds its
oldest totals behind "…" (`model.PHONE`). `render_document_png` draws every total (`model.FULL`)
for `/sheet full`; the Mini App's SVG is laid out the same way (`layout_sheet(..., fold=False)`).
"""

from __future__ import annotations

from bot.sheet.drawn import Drawn, drawn
from bot.sheet.layout import Correction, Corrections, Layout, layout_sheet
from bot.sheet.measure import drawing_lock
from bot.sheet.raster import encode_png, is_busy, rasterise
from scoring.settle import Settlement
from scoring.sheet import Sheet

__all__ = [
    "Correction",
    "Corrections",
    "Drawn",
    "Layout",
    "drawing_lock",
    "drawn",
    "layout_sheet",
    "render_document_png",
    "render_sheet_png",
]


def render_sheet_png(
    sheet: Sheet | Drawn,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
) -> bytes:
    """The chat's picture as PNG bytes (under 200 KB). `lang` picks its words (ru, en; others
    fall back to en); without `settlement` the balances are `scoring.settle.settle`'s;
    `corrections` maps (band, record index) to the value first written there."""
    with drawing_lock:
        layout = layout_sheet(sheet, lang, settlement=settlement, corrections=corrections)
        image = rasterise(layout)
    return encode_png(image, is_busy(layout))


def render_document_png(
    sheet: Sheet | Drawn,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
) -> bytes:
    """The full sheet (`/sheet full`) as an RGB PNG to send as a document: every total, a crowded
    band's type shrinking to 9 px rather than folding. Arguments as `render_sheet_png`'s."""
    with drawing_lock:
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, fold=False
        )
        image = rasterise(layout)
    return encode_png(image, limit=None)
