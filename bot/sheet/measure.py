"""Text measured with the shipped DejaVu fonts (Pillow's FreeType, basic layout: deterministic)."""

from __future__ import annotations

import math
import threading
from functools import cache, lru_cache

from PIL import ImageFont

from bot.sheet.model import BOLD, REGULAR

# A FreeType face is used by one thread at a time (FreeType's rule): draw and measure under it.
drawing_lock = threading.Lock()


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    path = BOLD if bold else REGULAR
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=1 << 16)
def text_width(text: str, size: int, bold: bool = False) -> int:
    """The advance of `text` in whole px, widened to its ink if a glyph reaches past it."""
    f = font(size, bold)
    return math.ceil(max(f.getlength(text), f.getbbox(text, anchor="la")[2]))


@cache
def metrics(size: int, bold: bool = False) -> tuple[int, int]:
    """(ascent, descent) in px."""
    ascent, descent = font(size, bold).getmetrics()
    return ascent, descent
