"""/deal, /lastround, /undo, /edit: records, each answered with its line and the sheet; /endgame,
/dispute, /arbiter, /rule and the ✅/❌ buttons of every vote (corrections.md "A vote")."""

from __future__ import annotations

from typing import Final

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.core import GameError, corrections, looks, records, split_late, votes
from bot.core.corrections import DISPUTE_EXAMPLE
from bot.core.results import Ended, VoteState
from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import VoteCb
from bot.telegram.outbound import at_once
from bot.texts import views
from bot.texts.votes import arbiter_text

router = Router(name=__name__)
TOASTS: Final = {"timeout": "vote-rejected-timeout", "arbiter": "vote-decided"}  # else counted


@router.message(Command("deal", "d"))
async def deal_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    text, late = split_late(command.args or "")
    async with ctx.work() as uow:  # the deal and its answer, in one transaction; then it is sent
        if late:
            await ctx.out.vote(uow, await corrections.propose_late(uow, ctx.caller, text))
        else:
            result = await records.record(uow, ctx.caller, text)
            await ctx.out.sheet(uow, result, views.recorded_text(ctx.t, result))


@router.message(Command("lastround"))
async def last_round_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        result = await records.record(uow, ctx.caller, "last-round")
        await ctx.out.sheet(uow, result, views.recorded_text(ctx.t, result))


@router.message(Command("undo"))
async def undo_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    if command.args:  # None when nothing follows the command
        raise GameError("undo-takes-nothing", command.args.strip(), {}, "/undo")
    async with ctx.work() as uow:
        result = await records.undo(uow, ctx.caller)
        await ctx.out.sheet(uow, result, views.undone_text(ctx.t, result), redraw=True)


@router.message(Command("edit"))
async def edit_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        result = await records.edit(uow, ctx.caller, command.args or "")
        await ctx.out.sheet(uow, result, views.edited_text(ctx.t, result), redraw=True)


@router.edited_message(Command("deal", "d"))
async def edited_deal(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """An edited /deal: as /edit would, if it wrote the sender's last, still pencilled record."""
    async with ctx.work() as uow:
        result = await records.edit_by_message(uow, ctx.caller, command.args or "", message.date)
        await ctx.out.sheet(uow, result, views.edited_by_message_text(ctx.t, result), redraw=True)


@router.message(Command("endgame", "end"))
async def endgame_cmd(message: Message, ctx: Ctx) -> None:
    """End a finished game at once, or open a vote every player must agree to."""
    async with ctx.work() as uow:
        result = await votes.end_game(uow, ctx.caller)
        if isinstance(result, Ended):
            await ctx.out.ended(uow, result)
        else:
            await ctx.out.vote(uow, result)


@router.message(Command("dispute"))
async def dispute_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    number, _, line = (command.args or "").strip().partition(" ")
    if not number:
        raise GameError("bad-deal-number", "/dispute", {}, DISPUTE_EXAMPLE)
    async with ctx.work() as uow:
        await ctx.out.vote(uow, await corrections.dispute(uow, ctx.caller, number, line))


@router.message(Command("arbiter"))
async def arbiter_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    ref = (command.args or "").strip()
    async with ctx.work() as uow:
        if not ref:
            snap = await looks.snapshot(ctx.core, ctx.caller.chat_id, topic=ctx.caller.topic)
            return await ctx.out.text(uow, arbiter_text(ctx.t, snap.state))
        result = await corrections.name_arbiter(uow, ctx.caller, ref)
        if isinstance(result, VoteState):
            await ctx.out.vote(uow, result)
        else:
            await ctx.out.text(uow, arbiter_text(ctx.t, result))


@router.message(Command("rule"))
async def rule_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/rule name=value`: a vote every player must agree to; `/rule` alone shows the rules."""
    text = (command.args or "").strip()
    async with ctx.work() as uow:
        if not text:
            snap = await looks.snapshot(ctx.core, ctx.caller.chat_id, topic=ctx.caller.topic)
            await ctx.out.text(uow, views.rules_text(ctx.t, snap.state))
        else:
            await ctx.out.vote(uow, await corrections.propose_rule(uow, ctx.caller, text))


@router.callback_query(VoteCb.filter())
async def vote_button(query: CallbackQuery, callback_data: VoteCb, ctx: Ctx) -> None:
    t, data = ctx.t, callback_data
    message_id = query.message.message_id if query.message is not None else None
    async with ctx.work() as uow:
        result = await votes.vote(uow, ctx.caller, data.game, data.vote, data.yes)
        await ctx.out.vote(uow, result, message_id=message_id)
    toast = TOASTS.get(result.reason or "", "vote-counted")
    if result.referred:
        toast = f"vote-referred-{result.vote.referred}-toast"
    await at_once.toast(query, t(toast))  # said once the ballot is saved
