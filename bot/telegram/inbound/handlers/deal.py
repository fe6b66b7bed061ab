"""/deal, /lastround, /undo, /edit: records, each answered with its line, its entries and the sheet.
`/deal … late` proposes a forgotten deal instead (a vote, see `bot.telegram.inbound.handlers.votes`). An edited `/deal`
message corrects the record it wrote while the pencil rule holds, or is told how to correct it."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import Caller, GameError, GameService, UnitOfWork, split_late
from bot.telegram.outbound.outbox import Reply
from bot.texts.i18n import Translator
from bot.texts.views import edited_by_message_text, edited_text, recorded_text, undone_text

router = Router(name=__name__)


@router.message(Command("deal", "d"))
async def deal_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    text, late = split_late(command.args or "")
    if late:
        await reply.vote(await game.propose_late(uow, caller, text))
        return
    result = await game.record(uow, caller, text)
    await reply.sheet(result, recorded_text(t, result))


@router.message(Command("lastround"))
async def last_round_cmd(
    message: Message,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    result = await game.record(uow, caller, "last-round")
    await reply.sheet(result, recorded_text(t, result))


@router.message(Command("undo"))
async def undo_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """Undo the last record; the sheet is redrawn in place when it is near. /undo takes nothing
    after it: text there is refused (it may be a correction meant for /edit), nothing undone."""
    junk = (command.args or "").strip()
    if junk:
        raise GameError("undo-takes-nothing", junk, {}, "/undo")
    result = await game.undo(uow, caller)
    await reply.sheet(result, undone_text(t, result), redraw=True)


@router.message(Command("edit"))
async def edit_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """Correct the last record; the sheet is redrawn in place when it is near."""
    result = await game.edit(uow, caller, command.args or "")
    await reply.sheet(result, edited_text(t, result), redraw=True)


@router.edited_message(Command("deal", "d"))
async def edited_deal(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """An edited /deal: as /edit would, if it wrote the sender's last, still pencilled record."""
    result = await game.edit_by_message(uow, caller, command.args or "", message.date)
    await reply.sheet(result, edited_by_message_text(t, result), redraw=True)
