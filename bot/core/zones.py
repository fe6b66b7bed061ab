"""The chat's time zone: the one it chose with `/tz`, else the one of its language."""

import logging
from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, tzinfo
from functools import cache
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.core.base import Caller
from bot.core.errors import GameError
from bot.core.lobby import chat_setting
from bot.core.uow import UnitOfWork
from bot.domain import Store

log = logging.getLogger(__name__)

DEFAULT_ZONES: Final[Mapping[str, str]] = {"ru": "Europe/Moscow"}


def chat_zone(chosen: str | None, lang: str | None) -> tzinfo:
    for name in (chosen, DEFAULT_ZONES.get(lang or "", "UTC")):
        if name:
            with suppress(ZoneInfoNotFoundError, ValueError):
                return ZoneInfo(name)
    log.warning("no time zone data on this machine: times are shown in UTC")
    return UTC


@cache
def _known() -> Mapping[str, str]:
    """Every IANA name this machine knows, by its case-folded spelling."""
    return {name.casefold(): name for name in available_timezones()}


def parse_zone(text: str) -> ZoneInfo:
    """An IANA zone name as typed (any case: `europe/moscow`); `bad-zone` quoting it otherwise."""
    typed = text.strip()
    name = _known().get(typed.casefold())
    if name is None:
        raise GameError("bad-zone", typed or "/tz", {}, "/tz Europe/Moscow")
    return ZoneInfo(name)


async def set_zone(uow: UnitOfWork, caller: Caller, zone: ZoneInfo) -> None:
    """/tz: the chat's time zone (who may change it: as with /lang)."""
    repo = await chat_setting(uow, caller, "zone-players-only", f"/tz {zone.key}")
    await repo.set_chat_time_zone(caller.chat_id, zone.key)


async def zone_of_chat(store: Store, chat_id: int, lang: str) -> tzinfo:
    async with store.reading() as repo:
        settings = await repo.chat_settings(chat_id)
    return chat_zone(settings.time_zone, settings.locale or lang)
