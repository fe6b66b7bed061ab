"""The one number formatter: every number a reader sees (chat, picture, CLI), the language's way."""

import unicodedata
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Final

from locales.catalog import language

MINUS_SIGN: Final = "−"
SUPERSCRIPT: Final = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUBSCRIPT: Final = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# The vulgar-fraction glyphs, by value: {Fraction(1, 2): "½", …}.
_VULGAR: Final[Mapping[Fraction, str]] = {
    Fraction(unicodedata.numeric(glyph)).limit_denominator(8): glyph for glyph in "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
}


def decimal_mark(lang: str) -> str:
    """`,` for Russian (`ru-RU` too), `.` for English and any other language."""
    return "," if language(lang) == "ru" else "."


def _signed(
    text: str, value: Fraction | Decimal | int, sign: bool, minus: str = MINUS_SIGN
) -> str:
    if value < 0:
        return minus + text
    return ("+" + text) if sign and value > 0 else text


def decimal(
    value: Fraction | int | Decimal,
    lang: str = "en",
    *,
    signed: bool = False,
    places: int = 1,
    minus: str = MINUS_SIGN,
) -> str:
    """`12.5`/`12,5`: at most `places` decimals, halves away from zero, no trailing zeros, no `−0`."""
    top, bottom = value.as_integer_ratio()
    scale = 10**places
    # floor(|x| · scale + ½), half away from zero, in integers (Fraction arithmetic is slow)
    units = (2 * abs(top) * scale + bottom) // (2 * bottom)
    if units == 0:
        return "0"
    whole, part = divmod(units, scale)
    text = str(whole) if not part else f"{whole}.{part:0{places}d}".rstrip("0")
    text = text.replace(".", decimal_mark(lang))
    return _signed(text, top, signed, minus)


def money(value: Decimal, lang: str = "en", *, signed: bool = False) -> str:
    """Money with two decimals: `+1.25`, `−0,40`; `signed` puts `+` before a positive amount."""
    text = f"{abs(value).quantize(Decimal('0.01')):f}".replace(".", decimal_mark(lang))
    return _signed(text, value, signed)


def format_amount(
    value: Fraction, *, decimals: bool = False, sign: bool = False, lang: str = "en"
) -> str:
    """36⅔, 12½, −5; with `decimals` a value exact in two decimals is written 12.5 (12,5) instead."""
    if value.denominator == 1:  # most totals: integers, without Fraction arithmetic (slow)
        return _signed(str(abs(value.numerator)), value.numerator, sign)
    if decimals and (value * 100).denominator == 1:
        return decimal(value, lang, signed=sign, places=2)
    whole, rest = divmod(abs(value), 1)
    glyph = _VULGAR.get(rest)
    if glyph is None:
        top = str(rest.numerator).translate(SUPERSCRIPT)
        glyph = f"{top}⁄{str(rest.denominator).translate(SUBSCRIPT)}"
    text = (str(int(whole)) if whole else "") + glyph
    return _signed(text, value, sign)
