"""/help: a short screen with topic buttons, each topic shown in place."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import HelpCb, help_keyboard
from bot.telegram.outbound import at_once
from bot.texts.help import Topic, topic_text

router = Router(name=__name__)


async def bot_username(bot: Bot) -> str:
    """The bot's @username (aiogram keeps getMe's answer after the first call)."""
    return (await bot.me()).username or ""


@router.message(Command("help"))
async def help_cmd(message: Message, ctx: Ctx, bot: Bot) -> None:
    text = topic_text(ctx.t, Topic.HOME, await bot_username(bot))
    async with ctx.unit() as uow:
        await ctx.out.text(uow, text, help_keyboard(ctx.t, Topic.HOME))
        await uow.commit()


@router.callback_query(HelpCb.filter())
async def help_topic(query: CallbackQuery, callback_data: HelpCb, ctx: Ctx, bot: Bot) -> None:
    """A topic in place of the screen pressed (a message too old to edit: the topic anew)."""
    t, topic = ctx.t, callback_data.topic
    text = topic_text(t, topic, await bot_username(bot))
    message = query.message
    if isinstance(message, Message):
        if message.text != text:  # pressed twice: Telegram refuses an edit changing nothing
            await at_once.edit(message, text, help_keyboard(t, topic))
    elif message is not None:
        await at_once.send(bot, message.chat.id, text, help_keyboard(t, topic))
    await at_once.toast(query)
