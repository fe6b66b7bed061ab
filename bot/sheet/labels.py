"""The words of the sheet picture, in the chat's language: the `[sheet]` table of `locales/*.toml`
(`locales.catalog`). An unknown language falls back to English. `{name}`-style fields are filled
with `str.format`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from locales import catalog

LABELS: Final[Mapping[str, Mapping[str, str]]] = {
    lang: catalog.table(lang, "sheet") for lang in catalog.LANGUAGES
}


def labels(lang: str) -> Mapping[str, str]:
    """The picture's words for a language code such as `ru`, `en` or `ru-RU`."""
    return catalog.table(lang, "sheet")
