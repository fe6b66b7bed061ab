"""/deal, /lastround, /undo, /edit: records, each answered with its line and the sheet."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import GameError, corrections, records, split_late
from bot.telegram.inbound.context import Ctx
from bot.texts.views import edited_by_message_text, edited_text, recorded_text, undone_text

router = Router(name=__name__)


@router.message(Command("deal", "d"))
async def deal_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    text, late = split_late(command.args or "")
    async with ctx.work() as uow:  # the deal and its answer, in one transaction; then it is sent
        if late:
            await ctx.out.vote(uow, await corrections.propose_late(uow, ctx.caller, text))
        else:
            result = await records.record(uow, ctx.caller, text)
            await ctx.out.sheet(uow, result, recorded_text(ctx.t, result))


@router.message(Command("lastround"))
async def last_round_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        result = await records.record(uow, ctx.caller, "last-round")
        await ctx.out.sheet(uow, result, recorded_text(ctx.t, result))


@router.message(Command("undo"))
async def undo_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """Undo the last record; the sheet is redrawn in place when it is near."""
    junk = (command.args or "").strip()
    if junk:
        raise GameError("undo-takes-nothing", junk, {}, "/undo")
    async with ctx.work() as uow:
        result = await records.undo(uow, ctx.caller)
        await ctx.out.sheet(uow, result, undone_text(ctx.t, result), redraw=True)


@router.message(Command("edit"))
async def edit_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """Correct the last record; the sheet is redrawn in place when it is near."""
    async with ctx.work() as uow:
        result = await records.edit(uow, ctx.caller, command.args or "")
        await ctx.out.sheet(uow, result, edited_text(ctx.t, result), redraw=True)


@router.edited_message(Command("deal", "d"))
async def edited_deal(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """An edited /deal: as /edit would, if it wrote the sender's last, still pencilled record."""
    async with ctx.work() as uow:
        result = await records.edit_by_message(uow, ctx.caller, command.args or "", message.date)
        await ctx.out.sheet(uow, result, edited_by_message_text(ctx.t, result), redraw=True)
