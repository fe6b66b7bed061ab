"""Measuring text with the shipped DejaVu fonts (Pillow's FreeType, the basic layout engine, which
is deterministic). Cached: the same run is measured once per process.

A picture of a long game measures thousands of different totals (`12.`, `36⅔.`, `−140.`), and
FreeType takes tens of µs a run. The basic layout places glyphs one after another, each advanced
by its own (hinted, whole-pixel) advance plus the kerning of the pair it ends; DejaVu kerns no pair
of the characters numbers are written in. So a run of those is measured from its glyphs alone:
the sum of their advances, widened to the furthest right any glyph's ink reaches from where it is
placed, exactly what FreeType gives (tests/render/test_measure.py compares the two over every run
the example sheets use and over random strings of these characters). Any other run (captions,
names, words) is measured whole by FreeType.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from typing import Final

from PIL import ImageFont

from bot.sheet.model import BOLD, REGULAR

NUMERALS: Final = frozenset("0123456789 .,+-−…✔⁄½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉")
"""The characters numbers are written in (`locales.numbers`) and the marks the sheet puts among
them: DejaVu kerns no pair of them at any of the `SUMMED_SIZES` (a test checks every pair)."""

SUMMED_SIZES: Final = range(8, 65)
"""px: the sizes at which a run of `NUMERALS` is measured from its glyphs (every size the sheet's
styles use); any other size is measured by FreeType."""


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    path = BOLD if bold else REGULAR
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=1 << 16)
def text_width(text: str, size: int, bold: bool = False) -> int:
    """The advance of `text` in whole px, widened to its ink if a glyph reaches past the advance."""
    if size in SUMMED_SIZES and NUMERALS.issuperset(text):
        width = summed_width(text, numeral_glyphs(size, bold))
        if width is not None:
            return width
    return freetype_width(text, size, bold)


def freetype_width(text: str, size: int, bold: bool = False) -> int:
    """`text_width` as FreeType lays the whole run out: the reference the glyph sum must equal."""
    f = font(size, bold)
    return math.ceil(max(f.getlength(text), f.getbbox(text, anchor="la")[2]))


def summed_width(text: str, glyphs: Glyphs) -> int | None:
    """The width of a run of unkerned glyphs: their advances summed, or further where a glyph's
    ink reaches past the pen (a fraction slash, a raised 4 overhang their advance); None when a
    glyph's advance is not whole px (glyph positions would then round, so the run is measured
    whole)."""
    pen = right = 0
    for char in text:
        glyph = glyphs[char]
        if glyph is None:
            return None
        advance, ink = glyph
        if pen + ink > right:
            right = pen + ink
        pen += advance
    return pen if pen > right else right


class Glyphs(dict[str, tuple[int, int] | None]):
    """Glyphs of one font at one size: each character's advance and the right edge of its ink
    from the pen, in whole px (None: an advance not whole px), asked of FreeType when first
    read (a picture uses a dozen of `NUMERALS` at a size)."""

    def __init__(self, size: int, bold: bool) -> None:
        super().__init__()
        self.font = font(size, bold)

    def __missing__(self, char: str) -> tuple[int, int] | None:
        advance = self.font.getlength(char)
        glyph = None
        if advance == int(advance):
            glyph = (int(advance), math.ceil(self.font.getbbox(char, anchor="la")[2]))
        self[char] = glyph
        return glyph


@cache
def numeral_glyphs(size: int, bold: bool = False) -> Glyphs:
    """The glyphs of `NUMERALS` at this size, read as runs are measured."""
    return Glyphs(size, bold)


@cache
def metrics(size: int, bold: bool = False) -> tuple[int, int]:
    """(ascent, descent) in px."""
    ascent, descent = font(size, bold).getmetrics()
    return ascent, descent
