"""/deal, /lastround, /undo, /edit: records, each answered with its line, its entries and the sheet.
`/deal … late` proposes a forgotten deal instead (a vote, see `handlers.votes`)."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.i18n import Translator
from bot.posting import post_result, show_vote
from bot.service import Caller, GameService, split_late
from bot.service.results import Recorded
from bot.views import edited_text, recorded_text, undone_text

router = Router(name=__name__)


async def _show(
    bot: Bot, game: GameService, t: Translator, caller: Caller, result: Recorded
) -> None:
    await post_result(bot, game, t, caller.chat_id, result, recorded_text(t, result))


@router.message(Command("deal", "d"))
async def deal_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    bot: Bot,
) -> None:
    text, late = split_late(command.args or "")
    if late:
        await show_vote(bot, game, t, await game.propose_late(caller, text))
        return
    await _show(bot, game, t, caller, await game.record(caller, text))


@router.message(Command("lastround"))
async def last_round_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, bot: Bot
) -> None:
    await _show(bot, game, t, caller, await game.record(caller, "last-round"))


@router.message(Command("undo"))
async def undo_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, bot: Bot
) -> None:
    result = await game.undo(caller)
    caption = undone_text(t, result)
    await post_result(
        bot, game, t, caller.chat_id, result, caption, redraw_near=message.message_id
    )


@router.message(Command("edit"))
async def edit_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    bot: Bot,
) -> None:
    result = await game.edit(caller, command.args or "")
    caption = edited_text(t, result)
    await post_result(
        bot, game, t, caller.chat_id, result, caption, redraw_near=message.message_id
    )
