"""/lang ru|en and /tz Region/City: the chat's language, and the time zone of its dates and times."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import GameError, lobby
from bot.core.zones import parse_zone, set_zone, zone_of_chat
from bot.telegram.inbound.context import Ctx
from bot.texts.i18n import LANGUAGES, translator
from bot.texts.times import chat_time

router = Router(name=__name__)


@router.message(Command("lang", "language"))
async def lang_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    lang = (command.args or "").strip().lower()
    if lang not in LANGUAGES:
        raise GameError("bad-locale", lang, {"valid": ", ".join(LANGUAGES)}, "/lang en")
    async with ctx.work() as uow:
        await lobby.set_language(uow, ctx.caller, lang)
        await ctx.out.text(uow, translator(lang)("lang-set"))


@router.message(Command("tz", "timezone"))
async def tz_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/tz Europe/Moscow` sets the zone (any case); `/tz` alone shows it."""
    t, typed = ctx.t, (command.args or "").strip()
    async with ctx.work() as uow:
        if typed:
            chosen = parse_zone(typed)
            await set_zone(uow, ctx.caller, chosen)
        zone = chosen if typed else await zone_of_chat(ctx.core.store, ctx.caller.chat_id, t.lang)
        now = chat_time(ctx.now(), zone, t.lang, date=False, label=True)
        await ctx.out.text(uow, t("tz-set" if typed else "tz-shown", zone=str(zone), time=now))
