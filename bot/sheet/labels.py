"""The words of the sheet picture, in the chat's language (ru, en). Only the picture uses these.

An unknown language falls back to English. `{name}`-style fields are filled with `str.format`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

LABELS: Final[Mapping[str, Mapping[str, str]]] = {
    "ru": {
        "pool": "Пуля",
        "mountain": "Гора",
        "whists": "Висты",
        "whists_on": "Висты → {name}",
        "closed": "закрыта",
        "centre_pool": "пуля",
        "centre_stake": "ставка {stake}",
        "target": "пуля {target}",
        "deals": "сдач: {count}",
        "next_dealer": "сдаёт: ",
        "finished": "пулька окончена",
        "overrides": "не как в пресете: ",
        "balance_now": "Если закончить сейчас:",
        "balance_final": "Итог:",
        "whists_unit": "в.",
        "last_deal": "Сдача {number}: ",
        "raspasy": "распасы",
        "misere": "мизер",
        "tricks": "(взяток: {count})",
        "three_down": "без трёх",
        "passed": "пас-пас",
        "half_whist": "полвиста",
        "no_trump": "БК",
        "adjust": "запись вручную",
        "last_round": "последний круг",
        "sochi": "Сочи",
        "leningrad": "Ленинград",
        "moscow": "Ростов",
        "odessa": "Одесса",
        "russian": "Русский",
    },
    "en": {
        "pool": "Pool",
        "mountain": "Mountain",
        "whists": "Whists",
        "whists_on": "Whists → {name}",
        "closed": "closed",
        "centre_pool": "pool",
        "centre_stake": "stake {stake}",
        "target": "pool {target}",
        "deals": "deals: {count}",
        "next_dealer": "deals next: ",
        "finished": "game over",
        "overrides": "differs from the preset: ",
        "balance_now": "If the game ended now:",
        "balance_final": "Result:",
        "whists_unit": "wh.",
        "last_deal": "Deal {number}: ",
        "raspasy": "raspasy",
        "misere": "misère",
        "tricks": "({count} tricks)",
        "three_down": "three down",
        "passed": "pass-pass",
        "half_whist": "half-whist",
        "no_trump": "NT",
        "adjust": "entry by hand",
        "last_round": "last round",
        "sochi": "Sochi",
        "leningrad": "Leningrad",
        "moscow": "Moscow (Rostov)",
        "odessa": "Odessa",
        "russian": "Russian",
    },
}


def labels(lang: str) -> Mapping[str, str]:
    """The picture's words for a language code such as `ru`, `en` or `ru-RU`."""
    return LABELS.get(lang.split("-")[0].lower(), LABELS["en"])
