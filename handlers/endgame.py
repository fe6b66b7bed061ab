"""/endgame: end a finished game at once, or open a vote in which every player must agree (its
buttons are handled with every other vote's in `handlers.votes`)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.core import Caller, GameService, UnitOfWork
from bot.core.results import Ended
from bot.texts.i18n import Translator
from bot.texts.views import chunks, ended_text
from bot.tg import tournament_news
from bot.tg.reply import Reply

router = Router(name=__name__)


@router.message(Command("endgame", "end"))
async def endgame_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    result = await game.end_game(uow, caller)
    if isinstance(result, Ended):
        for part in chunks(ended_text(t, result).split("\n")):
            await reply.text(part)
        await tournament_news.ended(uow, t.lang, result.state)
        return
    await reply.vote(result)
