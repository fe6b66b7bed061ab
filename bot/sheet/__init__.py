"""The score sheet as a picture («пулька», spec/sheet.md): pure, synchronous, CPU-bound functions
that the bot calls through `asyncio.to_thread`."""

from __future__ import annotations

from functools import partial
from typing import Final

from bot.sheet.layout import layout_sheet
from bot.sheet.model import Correction, Corrections, drawing_lock
from bot.sheet.raster import encode_png, is_busy, rasterise
from scoring.settle import Settlement
from scoring.sheet import Sheet

__all__ = ["Correction", "Corrections", "render_document_png", "render_sheet_png"]


def render_sheet_png(
    sheet: Sheet,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    fold: bool = True,
) -> bytes:
    """The chat's picture as PNG bytes (1010×1279, under 200 KB; arguments: `layout_sheet`)."""
    with drawing_lock:
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, fold=fold
        )
        image = rasterise(layout)
    return encode_png(image, is_busy(layout)) if fold else encode_png(image, limit=None)


# The full sheet (`/sheet full`) as an RGB PNG: every total, none folded behind "…".
render_document_png: Final = partial(render_sheet_png, fold=False)
