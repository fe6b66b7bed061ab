"""Texts in the chat's language as Telegram HTML: `t("deal-recorded", number=3)`, params escaped."""

import html
import logging
from collections import defaultdict
from datetime import datetime, tzinfo
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import Final

from locales import catalog, numbers
from locales.catalog import LANGUAGES, load

__all__ = ["LANGUAGES", "Safe", "Translator", "chat_time", "load", "quote", "translator"]

log = logging.getLogger(__name__)
DATE_FORMATS: Final = {"ru": "%d.%m.%Y", "en": "%Y-%m-%d"}


class Safe(str):
    """A string that is already Telegram HTML: not escaped again."""

    __slots__ = ()


def quote(value: object) -> Safe:
    return value if isinstance(value, Safe) else Safe(html.escape(str(value), quote=False))


class Translator:
    """The texts of one language (English for an unknown one), English filling gaps."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else "en"

    def has(self, key: str) -> bool:
        return key in load(self.lang)  # the language's own texts, not English's

    def template(self, key: str) -> str:
        value = catalog.lookup(self.lang, key)
        if value is None:
            log.warning("no text %r in %s", key, self.lang)
        return key if value is None else value

    def __call__(self, key: str, /, **params: object) -> Safe:
        # A parameter the caller did not give shows as nothing (errors vary in params).
        quoted = defaultdict[str, str](str, {name: quote(value) for name, value in params.items()})
        try:
            return Safe(self.template(key).format_map(quoted))
        except (KeyError, IndexError, ValueError):
            log.exception("text %r in %s does not fit its parameters", key, self.lang)
            return Safe(html.escape(key))

    def number(
        self, value: Fraction | int | Decimal, *, signed: bool = False, places: int = 1
    ) -> str:
        """`12.5`/`12,5`, at most `places` decimals (trailing zeros dropped), `+`/`−` when signed."""
        return numbers.decimal(value, self.lang, signed=signed, places=places)

    def money(self, value: Decimal, *, signed: bool = False) -> str:
        return numbers.money(value, self.lang, signed=signed)

    def count(self, value: Fraction | int, key: str, *, signed: bool = False) -> str:
        """`5 вистов`, `2,5 виста`, `1 whist`."""
        shown = self.number(value, signed=signed)
        return f"{shown} {catalog.plural(self.lang, key, shown)}"


@cache
def translator(lang: str) -> Translator:
    return Translator(lang)


def chat_time(
    at: datetime,
    zone: tzinfo,
    lang: str,
    *,
    date: bool = True,
    clock: bool = True,
    label: bool = False,
) -> str:
    """`at` in the chat's `zone` the language's way (`05.03.2026 19:30`, `2026-03-05 19:30`): the
    date, the time of day, or both; with `label` the zone's abbreviation after it (`19:30 MSK`)."""
    local = at.astimezone(zone)
    parts = [local.strftime(DATE_FORMATS.get(lang, DATE_FORMATS["en"]))] if date else []
    if clock:
        parts.append(local.strftime("%H:%M"))
        if label:
            parts.append(local.tzname() or "")
    return " ".join(part for part in parts if part)
