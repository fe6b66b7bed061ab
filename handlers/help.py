"""/help and /start: every command with an example; in private chat also the user's open games."""

from __future__ import annotations

from functools import partial

from aiogram import Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message

from bot.core import Caller, GameService, UnitOfWork
from bot.texts.i18n import Safe, Translator
from bot.texts.views import chunks, help_lines, open_games_text
from bot.tg import direct

router = Router(name=__name__)


@router.message(Command("help"))
@router.message(CommandStart())
async def help_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, uow: UnitOfWork
) -> None:
    """The commands; in private also the user's open games. A private /start lets the bot
    write to the account there (a game's end tells him what he owes): the answer follows the
    commit of that."""
    lines = help_lines(t)
    if caller.private and caller.user_id is not None:
        lines += ["", open_games_text(t, await game.open_games(caller.user_id))]
    parts = chunks(lines)
    if caller.private and (message.text or "").startswith("/start"):
        await game.start_account(uow, caller, t.lang)
        uow.after_commit(partial(_answer, message, parts))
        return
    await _answer(message, parts)


async def _answer(message: Message, parts: list[Safe]) -> None:
    for part in parts:
        await direct.answer(message, part)
