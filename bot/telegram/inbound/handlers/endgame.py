"""/endgame: end a finished game at once, or open a vote every player must agree to."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.core import votes
from bot.core.results import Ended
from bot.telegram.inbound.context import Ctx

router = Router(name=__name__)


@router.message(Command("endgame", "end"))
async def endgame_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.unit() as uow:
        result = await votes.end_game(uow, ctx.caller)
        if isinstance(result, Ended):
            await ctx.out.ended(uow, result)
        else:
            await ctx.out.vote(uow, result)
        await uow.commit()
