"""/endgame: end a finished game at once, or open a vote in which every player must agree (its
buttons are handled with every other vote's in `bot.telegram.inbound.handlers.votes`)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.core import Caller, GameService, UnitOfWork
from bot.core.results import Ended
from bot.telegram.outbound.outbox import Reply

router = Router(name=__name__)


@router.message(Command("endgame", "end"))
async def endgame_cmd(
    message: Message,
    caller: Caller,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    result = await game.end_game(uow, caller)
    if isinstance(result, Ended):
        await reply.ended(result)
        return
    await reply.vote(result)
