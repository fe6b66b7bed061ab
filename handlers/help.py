"""/help and /start: every command with an example; in private chat also the user's open games."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message

from bot.core import Caller, GameService
from bot.texts.i18n import Translator
from bot.texts.views import chunks, help_lines, open_games_text
from bot.tg import direct

router = Router(name=__name__)


@router.message(Command("help"))
@router.message(CommandStart())
async def help_cmd(message: Message, caller: Caller, t: Translator, game: GameService) -> None:
    lines = help_lines(t)
    if caller.private and caller.user_id is not None:
        lines += ["", open_games_text(t, await game.open_games(caller.user_id))]
    for part in chunks(lines):
        await direct.answer(message, part)
