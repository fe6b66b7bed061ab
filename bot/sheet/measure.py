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
from collections.abc import Mapping
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
    glyphs = numeral_glyphs(size, bold) if size in SUMMED_SIZES else None
    if glyphs is not None and NUMERALS.issuperset(text):
        return summed_width(text, glyphs)
    return freetype_width(text, size, bold)


def freetype_width(text: str, size: int, bold: bool = False) -> int:
    """`text_width` as FreeType lays the whole run out: the reference the glyph sum must equal."""
    f = font(size, bold)
    return math.ceil(max(f.getlength(text), f.getbbox(text, anchor="la")[2]))


def summed_width(text: str, glyphs: Mapping[str, tuple[int, int]]) -> int:
    """The width of a run of unkerned glyphs: their advances summed, or further where a glyph's
    ink reaches past the pen (a fraction slash, a raised 4 overhang their advance)."""
    pen = right = 0
    for char in text:
        advance, ink = glyphs[char]
        right = max(right, pen + ink)
        pen += advance
    return max(pen, right)


@cache
def numeral_glyphs(size: int, bold: bool = False) -> Mapping[str, tuple[int, int]] | None:
    """Each of `NUMERALS`' advance and the right edge of its ink from the pen, in whole px; None
    when an advance is not whole px (glyph positions would then round run by run, so runs are
    measured whole)."""
    f = font(size, bold)
    glyphs: dict[str, tuple[int, int]] = {}
    for char in NUMERALS:
        advance = f.getlength(char)
        if advance != int(advance):
            return None
        glyphs[char] = (int(advance), math.ceil(f.getbbox(char, anchor="la")[2]))
    return glyphs


@cache
def metrics(size: int, bold: bool = False) -> tuple[int, int]:
    """(ascent, descent) in px."""
    ascent, descent = font(size, bold).getmetrics()
    return ascent, descent
