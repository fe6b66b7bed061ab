"""The score sheet as a picture («пулька»), spec/sheet.md.

`render_sheet_png(sheet, lang)` is pure and synchronous: call it through `asyncio.to_thread`.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

from scoring.deal import Column
from scoring.sheet import Sheet

if TYPE_CHECKING:
    from scoring.settle import Settlement

FONTS = Path(__file__).parent / "fonts"

__all__ = ["render_sheet_png"]


def render_sheet_png(
    sheet: Sheet, lang: str = "ru", *, settlement: Settlement | None = None
) -> bytes:
    """The sheet as PNG bytes (a first, plain version: one line per player)."""
    font = ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), 28)
    image = Image.new("RGB", (1200, 900), "white")
    draw = ImageDraw.Draw(image)
    words = {"ru": ("Пуля", "Гора", "Висты"), "en": ("Pool", "Mountain", "Whists")}
    pool, mountain, whists = words.get(lang, words["en"])
    y = 40
    for i, name in enumerate(sheet.game.players):
        draw.text((40, y), name, fill="black", font=font)
        y += 40
        for label, column in ((pool, Column.POOL), (mountain, Column.MOUNTAIN)):
            values = [
                t
                for band, hist in sheet.history.items()
                for _, t in hist
                if band.player == i and band.column is column
            ]
            draw.text(
                (80, y), f"{label}: " + ".".join(str(v) for v in values), fill="black", font=font
            )
            y += 40
        total = sum(sheet.totals.whists[i])
        draw.text((80, y), f"{whists}: {total}", fill="black", font=font)
        y += 60
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
