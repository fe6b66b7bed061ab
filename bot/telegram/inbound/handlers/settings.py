"""/lang ru|en: the chat's language."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import Caller, GameError, GameService, UnitOfWork
from bot.telegram.outbound.outbox import Reply
from bot.texts.i18n import LANGUAGES, Translator, translator

router = Router(name=__name__)


@router.message(Command("lang", "language"))
async def lang_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    lang = (command.args or "").strip().lower()
    if lang not in LANGUAGES:
        raise GameError("bad-locale", lang, {"valid": ", ".join(LANGUAGES)}, "/lang en")
    await game.set_locale(uow, caller, lang)
    await reply.text(translator(lang)("lang-set"))
