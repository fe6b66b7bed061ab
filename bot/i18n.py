"""Moved to `bot.texts.i18n` (issue 10): this name stays until every caller imports the new one."""

from bot.texts.i18n import (
    LANGUAGES,
    LOCALES_DIR,
    MINUS,
    Safe,
    Translator,
    load,
    plural_category,
    quote,
    translator,
)

__all__ = [
    "LANGUAGES",
    "LOCALES_DIR",
    "MINUS",
    "Safe",
    "Translator",
    "load",
    "plural_category",
    "quote",
    "translator",
]
