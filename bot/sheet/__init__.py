"""The score sheet as a picture («пулька»), spec/sheet.md.

`render_sheet_png(sheet, lang)` is pure and synchronous (CPU-bound): call it through
`asyncio.to_thread`; it is safe from several threads (drawing and encoding are serialised: both
redo only what changed since the last picture, `bot.sheet.canvas`).
`layout.layout_sheet` is the pure layout step, `raster` draws it; call those two from one thread at a
time.

The chat's picture is 1010×1280 and readable where it arrives, in the chat on a phone: a crowded
band folds its oldest totals behind "…" (`model.PHONE`). `render_document_png` draws the full
sheet, every total (`model.FULL`), for `/sheet full` as a document; the Mini App's SVG is laid out
the same way (`layout_sheet(..., fold=False)`).
"""

from __future__ import annotations

import threading

from bot.sheet.canvas import Canvas, encode_image
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
    "render_document_png",
    "render_full_png",
    "render_sheet_png",
]

DOCUMENT_LIMIT = 20 * 1024 * 1024  # bytes: a document's PNG is always RGB (Telegram takes 50 MB)
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
    """The sheet (or what the picture reads of it, `bot.sheet.drawn`) as PNG bytes, 1010×1280,
    the chat's picture (the oldest totals of a crowded band folded).

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
        picture = canvas.draw(layout, background(layout), mask, game)
        return canvas.encode(picture, LIMIT, is_busy(layout))


def render_full_png(
    sheet: Sheet | Drawn,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    fold: bool = True,
) -> bytes:
    """`render_sheet_png` drawn and encoded whole, keeping nothing (what the kept pictures must
    equal, pixel for pixel)."""
    with drawing_lock:
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, keep=False, fold=fold
        )
        image = rasterise(layout)
    return encode_png(image, is_busy(layout))


def render_document_png(
    sheet: Sheet | Drawn,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
) -> bytes:
    """The full sheet (`/sheet full`), to send as a document: every total of every band, a
    crowded band's type shrinking to 9 px rather than folding (read zoomed in). 1010×1280 RGB,
    no size limit; drawn whole, keeping nothing. Arguments as `render_sheet_png`'s; call it
    through `asyncio.to_thread`."""
    with drawing_lock:
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, keep=False, fold=False
        )
        image = rasterise(layout)
    return encode_image(image, DOCUMENT_LIMIT)
