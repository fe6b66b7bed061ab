"""/tz Region/City: the chat's time zone, in which its dates and times are shown."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core.zones import parse_zone, set_zone, zone_of_chat
from bot.telegram.inbound.context import Ctx
from bot.texts.times import chat_time

router = Router(name=__name__)


@router.message(Command("tz", "timezone"))
async def tz_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/tz Europe/Moscow` sets the zone (any case); `/tz` alone shows it."""
    t, typed = ctx.t, (command.args or "").strip()
    async with ctx.unit() as uow:
        if not typed:
            zone = await zone_of_chat(ctx.core.store, ctx.caller.chat_id, t.lang)
            now = chat_time(ctx.now(), zone, t.lang, date=False, label=True)
            await ctx.out.text(uow, t("tz-shown", zone=str(zone), time=now))
        else:
            zone = parse_zone(typed)
            await set_zone(uow, ctx.caller, zone)
            now = chat_time(ctx.now(), zone, t.lang, date=False, label=True)
            await ctx.out.text(uow, t("tz-set", zone=zone.key, time=now))
        await uow.commit()
