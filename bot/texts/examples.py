"""Examples the bot shows in the chat's notation: a Russian chat never reads English role words
(notation.md accepts both; the examples are built in the canonical English form)."""

from __future__ import annotations

import re
from typing import Final

_RU_WORDS: Final = {"vist": "вист", "pass": "пас", "half": "пол"}
_LINE_COMMANDS: Final = ("/deal", "/dispute", "/edit")  # the commands that take a deal line
_NO_TRUMP: Final = re.compile(r"^(\d+)(?:NT|nt)$")
_RU_TOKENS: Final = {"misere": "мизер", "three_down": "без трёх", "open": "светлую"}


def example_in(lang: str, example: str) -> str:
    """An example deal line with the chat's role words (Russian: `вист:`, `пас:`, `мизер`), so a
    Russian chat never reads English notation words; names and numbers stay."""
    if lang != "ru" or not example.startswith(_LINE_COMMANDS):
        return example
    words = []
    for word in example.split(" "):
        role, colon, rest = word.partition(":")
        if colon and role in _RU_WORDS:
            word = f"{_RU_WORDS[role]}:{rest}"
        word = _NO_TRUMP.sub(r"\1бк", word)
        words.append(_RU_TOKENS.get(word, word))
    return " ".join(words)
