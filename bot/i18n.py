"""Texts in the chat's language: `locales/<lang>.toml`, read with the standard library's tomllib.

`t("deal-recorded", number=3)` formats a message as Telegram HTML: every parameter is escaped unless it
is `Safe` (already HTML), and the result is `Safe`. Plural forms follow CLDR: Russian one/few/many for
whole numbers and `other` for fractions (1 вист, 2 виста, 5 вистов, 21 вист, 2,5 виста); English
one/other. Numbers: whists with at most one decimal (settlement.md), the locale's decimal separator,
a real minus sign.
"""

from __future__ import annotations

import html
import logging
import math
import tomllib
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, Final

import locales

log = logging.getLogger(__name__)

LOCALES_DIR: Final = Path(locales.__file__).parent
LANGUAGES: Final = ("ru", "en")
MINUS: Final = "−"


class Safe(str):
    """A string that is already Telegram HTML: not escaped again."""

    __slots__ = ()


def quote(value: object) -> Safe:
    return value if isinstance(value, Safe) else Safe(html.escape(str(value), quote=False))


@cache
def load(lang: str) -> Mapping[str, Any]:
    """The messages of one language (read once)."""
    with (LOCALES_DIR / f"{lang}.toml").open("rb") as file:
        return tomllib.load(file)


def plural_category(lang: str, shown: str) -> str:
    """CLDR plural category of a number as shown (`"21"`, `"2,5"`, `"−4"`)."""
    digits = shown.lstrip("+" + MINUS + "-")
    if not digits.isdigit():
        return "other"
    n = int(digits)
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    return "one" if n == 1 else "other"


class Translator:
    """The texts of one language, with the default language's as a fallback."""

    def __init__(self, lang: str, fallback: str = "en") -> None:
        self.lang = lang if lang in LANGUAGES else fallback
        self._messages = load(self.lang)
        self._fallback = load(fallback)
        self.decimal = "," if self.lang == "ru" else "."

    def has(self, key: str) -> bool:
        return key in self._messages

    def template(self, key: str) -> str:
        value = self._messages.get(key, self._fallback.get(key))
        if not isinstance(value, str):
            log.warning("no text %r in %s", key, self.lang)
            return key
        return value

    def __call__(self, key: str, /, **params: object) -> Safe:
        quoted = _Params({name: quote(value) for name, value in params.items()})
        try:
            return Safe(self.template(key).format_map(quoted))
        except (KeyError, IndexError, ValueError):
            log.exception("text %r in %s does not fit its parameters", key, self.lang)
            return Safe(html.escape(key))

    # -- numbers ---------------------------------------------------------------------------
    def number(
        self, value: Fraction | int | Decimal, *, signed: bool = False, places: int = 1
    ) -> str:
        """`12.5`/`12,5`, at most `places` decimals (trailing zeros dropped), `+`/`−` when signed."""
        exact = Fraction(value)
        scale = 10**places
        units = math.floor(abs(exact) * scale + Fraction(1, 2))  # half away from zero
        whole, part = divmod(units, scale)
        text = str(whole) if not part else f"{whole}.{part:0{places}d}".rstrip("0")
        text = text.replace(".", self.decimal)
        if units == 0:
            return "0"
        if exact < 0:
            return MINUS + text
        return ("+" + text) if signed else text

    def money(self, value: Decimal, *, signed: bool = False) -> str:
        """Money with two decimals: `+1.25`, `−0.40`."""
        text = f"{abs(value).quantize(Decimal('0.01')):f}".replace(".", self.decimal)
        if value < 0:
            return MINUS + text
        return ("+" + text) if signed and value > 0 else text

    def plural(self, key: str, shown: str) -> str:
        forms = self._messages.get("plural", {}).get(key) or self._fallback["plural"][key]
        category = plural_category(self.lang, shown)
        return str(forms.get(category) or forms.get("other") or forms.get("many"))

    def count(self, value: Fraction | int, key: str, *, signed: bool = False) -> str:
        """`5 вистов`, `2,5 виста`, `1 whist`."""
        shown = self.number(value, signed=signed)
        return f"{shown} {self.plural(key, shown)}"


class _Params(dict[str, str]):
    """Parameters of a text; one the caller did not give shows as nothing (errors vary in params)."""

    def __missing__(self, key: str) -> str:
        return ""


@cache
def translator(lang: str) -> Translator:
    return Translator(lang)
