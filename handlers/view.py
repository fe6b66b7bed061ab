"""/score, /sheet, /history, /rules, /export: anyone in the chat may look."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import Caller, GameService, UnitOfWork
from bot.texts.history import history_lines
from bot.texts.i18n import Translator
from bot.texts.views import chunks, opened_text, rules_text, score_text, sheet_caption
from bot.tg.reply import Reply, render_png

router = Router(name=__name__)


@router.message(Command("score"))
async def score_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    snap = await game.look(uow, caller)
    if snap.sheet is None or snap.settlement is None:
        await reply.text(opened_text(t, snap.state, False))
        return
    for part in chunks(score_text(t, snap.state, snap.sheet, snap.settlement).split("\n")):
        await reply.text(part)


@router.message(Command("sheet"))
async def sheet_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    command: CommandObject,
    uow: UnitOfWork,
) -> None:
    snap = await game.look(uow, caller)
    if snap.sheet is None or snap.settlement is None:
        await reply.text(opened_text(t, snap.state, False))
        return
    caption = sheet_caption(t, snap.state, snap.sheet)
    if (command.args or "").strip().lower() == "full":  # every total, as a document
        png = await render_png(snap.sheet, t.lang, snap.settlement, game, snap.state, full=True)
        if png is not None:
            await reply.document(png, f"sheet-{snap.state.number}.png", caption)
            return
    await reply.sheet_of(snap.state, snap.sheet, snap.settlement, caption)


@router.message(Command("history"))
async def history_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    snap = await game.look(uow, caller)
    for part in chunks(history_lines(t, snap.state, snap.sheet)):
        await reply.text(part)


@router.message(Command("rules"))
async def rules_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    snap = await game.look(uow, caller)
    for part in chunks(rules_text(t, snap.state).split("\n")):
        await reply.text(part)


@router.message(Command("export"))
async def export_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """The protocol file (replays with `python -m scoring replay`) and the JSON event log."""
    exported = await game.export(caller.chat_id, uow)
    game_id = exported.state.game_id
    protocol, events = exported.protocol.encode(), exported.events.encode()
    number = exported.state.number
    await reply.document(protocol, f"game-{game_id}.pref", t("export-protocol", game=number))
    await reply.document(events, f"game-{game_id}-events.json", t("export-events", game=number))
