"""A moment as the chat reads it: in the chat's time zone (`bot.core.zones.chat_zone`), written
the language's way — `05.03.2026 19:30` in Russian, `2026-03-05 19:30` in English. One function
for every time a chat is shown (the archive's dates; vote deadlines can use it too)."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Final

DATE_FORMATS: Final = {"ru": "%d.%m.%Y", "en": "%Y-%m-%d"}
CLOCK: Final = "%H:%M"


def chat_time(
    at: datetime,
    zone: tzinfo,
    lang: str,
    *,
    date: bool = True,
    clock: bool = True,
    label: bool = False,
) -> str:
    """`at` (an aware datetime) in `zone`: the date, the time of day, or both; with `label` the
    zone's abbreviation after the time (`19:30 MSK`)."""
    local = at.astimezone(zone)
    parts: list[str] = []
    if date:
        parts.append(local.strftime(DATE_FORMATS.get(lang, DATE_FORMATS["en"])))
    if clock:
        parts.append(local.strftime(CLOCK))
        if label:
            parts.append(local.tzname() or "")
    return " ".join(part for part in parts if part)
