"""/score, /sheet, /history, /rules, /export: looks at any game of the chat."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import UnitOfWork, archive, looks
from bot.core.results import Snapshot
from bot.telegram.inbound.archive import owe_export, owe_history
from bot.telegram.inbound.context import Ctx
from bot.telegram.outbound.outbox import render_png
from bot.texts.archive import look_caption
from bot.texts.score import score_text
from bot.texts.views import opened_text, rules_text

router = Router(name=__name__)
FULL_WORDS = frozenset({"full", "полный", "полностью", "весь"})


def _split_full(args: str) -> tuple[str, bool]:
    """The arguments without the word `full` (anywhere), and whether it was there."""
    words = args.split()
    kept = [w for w in words if w.casefold() not in FULL_WORDS]
    return " ".join(kept), len(kept) != len(words)


async def _look(ctx: Ctx, uow: UnitOfWork, command: str, args: str) -> Snapshot:
    """The game a look names: `N` after the command, else the chat's live (or last) game."""
    if not args.strip():
        return await looks.look(ctx.core, uow, ctx.caller)
    number = archive.parse_number(args, f"/{command}")
    return await archive.game_snapshot(ctx.core, ctx.caller.chat_id, number)


@router.message(Command("score"))
async def score_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.unit() as uow:
        snap = await looks.look(ctx.core, uow, ctx.caller)
        if snap.sheet is None or snap.settlement is None:
            await ctx.out.text(uow, opened_text(ctx.t, snap.state, False))
        else:
            await ctx.out.text(uow, score_text(ctx.t, snap.state, snap.sheet, snap.settlement))
        await uow.commit()


@router.message(Command("sheet"))
async def sheet_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    t = ctx.t
    args, full = _split_full(command.args or "")
    async with ctx.unit() as uow:
        snap = await _look(ctx, uow, command.command, args)
        if snap.sheet is None or snap.settlement is None:
            await ctx.out.text(uow, opened_text(t, snap.state, False))
        else:
            caption = look_caption(t, snap.state, snap.sheet)
            png = None
            if full:  # every total, as a document
                png = await render_png(
                    snap.sheet, t.lang, snap.settlement, ctx.core, snap.state, full=True
                )
            if png is not None:
                await ctx.out.document(uow, png, f"sheet-{snap.state.number}.png", caption)
            else:
                await ctx.out.sheet_of(uow, snap.state, snap.sheet, snap.settlement, caption)
        await uow.commit()


@router.message(Command("history"))
async def history_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    async with ctx.unit() as uow:
        snap = await _look(ctx, uow, command.command, command.args or "")
        await owe_history(uow, ctx.out, ctx.t, snap)
        await uow.commit()


@router.message(Command("rules"))
async def rules_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.unit() as uow:
        snap = await looks.look(ctx.core, uow, ctx.caller)
        await ctx.out.text(uow, rules_text(ctx.t, snap.state))
        await uow.commit()


@router.message(Command("export"))
async def export_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """The protocol file (replays with `python -m scoring replay`) and the JSON event log."""
    args, caller = command.args or "", ctx.caller
    async with ctx.unit() as uow:
        if args.strip():
            snap = await _look(ctx, uow, command.command, args)
            exported = await archive.exported(uow, snap.state, ctx.now(), ctx.zone)
        else:
            exported = await looks.export(ctx.core, caller.chat_id, uow, ctx.zone, caller.topic)
        await owe_export(uow, ctx.out, ctx.t, exported)
        await uow.commit()
