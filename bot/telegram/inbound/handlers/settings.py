"""/lang ru|en: the chat's language."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import GameError, lobby
from bot.telegram.inbound.context import Ctx
from bot.texts.i18n import LANGUAGES, translator

router = Router(name=__name__)


@router.message(Command("lang", "language"))
async def lang_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    lang = (command.args or "").strip().lower()
    if lang not in LANGUAGES:
        raise GameError("bad-locale", lang, {"valid": ", ".join(LANGUAGES)}, "/lang en")
    async with ctx.unit() as uow:
        await lobby.set_language(uow, ctx.caller, lang)
        await ctx.out.text(uow, translator(lang)("lang-set"))
        await uow.commit()
