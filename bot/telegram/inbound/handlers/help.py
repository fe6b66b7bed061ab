"""/help: a short screen with topic buttons; a button shows its topic in the same message, and
◀ goes back. It records nothing: the screens are answered and edited directly."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.telegram.keyboards import HelpCb, help_keyboard
from bot.telegram.outbound import direct
from bot.texts.help import Topic, topic_text
from bot.texts.i18n import Translator

router = Router(name=__name__)


async def bot_username(bot: Bot) -> str:
    """The bot's @username (aiogram keeps getMe's answer after the first call)."""
    return (await bot.me()).username or ""


@router.message(Command("help"))
async def help_cmd(message: Message, t: Translator, bot: Bot) -> None:
    text = topic_text(t, Topic.HOME, await bot_username(bot))
    await direct.answer(message, text, reply_markup=help_keyboard(t, Topic.HOME))


@router.callback_query(HelpCb.filter())
async def help_topic(query: CallbackQuery, callback_data: HelpCb, t: Translator, bot: Bot) -> None:
    """A topic in place of the screen pressed (a message too old to edit: the topic anew)."""
    topic = callback_data.topic
    text = topic_text(t, topic, await bot_username(bot))
    message = query.message
    if isinstance(message, Message):
        if message.text != text:  # pressed twice: Telegram refuses an edit that changes nothing
            await direct.edit(message, text, help_keyboard(t, topic))
    elif message is not None:
        await direct.send(bot, message.chat.id, text, help_keyboard(t, topic))
    await direct.toast(query)
