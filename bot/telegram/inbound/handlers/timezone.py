"""/tz Region/City: the chat's time zone, in which its dates and times are shown."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import Caller, GameService, UnitOfWork
from bot.core.zones import parse_zone, set_zone, zone_of_chat
from bot.telegram.outbound.outbox import Reply
from bot.texts.i18n import Translator
from bot.texts.times import chat_time

router = Router(name=__name__)


@router.message(Command("tz", "timezone"))
async def tz_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """`/tz Europe/Moscow` sets the zone (any case; checked against the zone database);
    `/tz` alone shows it."""
    typed = (command.args or "").strip()
    if not typed:
        zone = await zone_of_chat(game.store, caller.chat_id, t.lang)
        now = chat_time(game.clock(), zone, t.lang, date=False, label=True)
        await reply.text(t("tz-shown", zone=str(zone), time=now))
        return
    zone = parse_zone(typed)
    await set_zone(uow, caller, zone)
    now = chat_time(game.clock(), zone, t.lang, date=False, label=True)
    await reply.text(t("tz-set", zone=zone.key, time=now))
