"""The one message catalogue, `locales/<lang>.toml` (stdlib only); a missing key falls back to English."""

from __future__ import annotations

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


@cache
def table(lang: str, key: str) -> Mapping[str, str]:
    """The texts of a table (`"sheet"`, `"cli.messages"`) in a language, English filling gaps."""
    merged: dict[str, str] = {}
    for source in (FALLBACK, language(lang)):
        node = find(load(source), key)
        if isinstance(node, Mapping):
            merged.update({k: v for k, v in node.items() if isinstance(v, str)})
    return merged


def plural_category(lang: str, shown: str) -> str:
    """CLDR plural category of a number as shown (`"21"`, `"2,5"`): fractions are `other`."""
    digits = shown.lstrip("+−-")
    if not digits.isdigit():
        return "other"
    n = int(digits)
    if language(lang) == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    return "one" if n == 1 else "other"


def plural(lang: str, key: str, shown: str) -> str:
    """The word after a number as shown: `plural("ru", "whist", "2,5")` → `виста`."""
    forms = find(load(language(lang)), f"plural.{key}") or find(load(FALLBACK), f"plural.{key}")
    category = plural_category(lang, shown)
    return str(forms.get(category) or forms.get("other") or forms.get("many"))


def keys(lang: str, key: str) -> tuple[str, ...]:
    """The names in a table (texts and sub-tables alike), English and the language's together."""
    names: dict[str, None] = {}
    for source in (FALLBACK, language(lang)):
        node = find(load(source), key)
        if isinstance(node, Mapping):
            names.update(dict.fromkeys(node))
    return tuple(names)
