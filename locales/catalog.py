"""The one message catalogue, `locales/<lang>.toml` (stdlib only); a missing key falls back to English."""

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final

LOCALES_DIR: Final = Path(__file__).parent
LANGUAGES: Final = ("ru", "en")
FALLBACK: Final = "en"


def language(lang: str) -> str:
    """The catalogue's language for a code such as `ru`, `en`, `ru-RU` or `de` (→ `en`)."""
    base = lang.split("-")[0].lower()
    return base if base in LANGUAGES else FALLBACK


@cache
def load(lang: str) -> Mapping[str, Any]:
    """Every text of one language, as the file holds it (read once)."""
    with (LOCALES_DIR / f"{lang}.toml").open("rb") as file:
        return tomllib.load(file)


def find(messages: Mapping[str, Any], path: str) -> Any:
    """What a loaded file holds at a dotted path (`"cli.messages"`), or None."""
    node: Any = messages
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def lookup(lang: str, key: str) -> str | None:
    """The text at a key (`"deal-recorded"`, `"sheet.pool"`), else English's; None when neither."""
    for source in (language(lang), FALLBACK):
        value = find(load(source), key)
        if isinstance(value, str):
            return value
    return None


def _merged(lang: str, key: str) -> dict[str, Any]:
    """A table's entries (texts and sub-tables alike), the language's over English's."""
    merged: dict[str, Any] = {}
    for source in (FALLBACK, language(lang)):
        node = find(load(source), key)
        if isinstance(node, Mapping):
            merged.update(node)
    return merged


@cache
def table(lang: str, key: str) -> Mapping[str, str]:
    """The texts of a table (`"sheet"`, `"cli.messages"`) in a language, English filling gaps."""
    return {k: v for k, v in _merged(lang, key).items() if isinstance(v, str)}


def keys(lang: str, key: str) -> tuple[str, ...]:
    """The names in a table (texts and sub-tables alike), English and the language's together."""
    return tuple(_merged(lang, key))


def plural(lang: str, key: str, shown: str) -> str:
    """The word after a number as shown, by CLDR category (a fraction's is `other`): `2,5 виста`."""
    forms = find(load(language(lang)), f"plural.{key}") or find(load(FALLBACK), f"plural.{key}")
    digits = shown.lstrip("+−-")
    n = int(digits) if digits.isdigit() else None
    if n is None:
        category = "other"
    elif language(lang) == "ru":
        few = 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14
        category = "one" if n % 10 == 1 and n % 100 != 11 else "few" if few else "many"
    else:
        category = "one" if n == 1 else "other"
    return str(forms.get(category) or forms.get("other") or forms.get("many"))
