"""The one exception to the outbox: what Telegram wants answered in place, at once."""

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Final, TypeVar

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import EditMessageText, SendMessage, TelegramMethod
from aiogram.types import (
    BufferedInputFile,
    CallbackQuery,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    Message,
)

from bot.core import Core
from bot.domain import Owed, OwedKind, OwedRow
from bot.telegram.keyboards import without_button
from bot.telegram.outbound import posting
from bot.telegram.outbound.outbox import Markup
from bot.telegram.outbound.pacing import Pacing

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRIES: Final = 3  # tries after the first, for a 429, a 5xx or a dropped connection
LONGEST_WAIT: Final = 30.0  # seconds: a longer retry_after is not waited for in an update
PAUSE: Final = 0.5  # seconds before the first try again after a 5xx or a network error


async def call(method: TelegramMethod[T], bot: Bot | None = None) -> T | None:
    """`method` sent (through `bot`, or its bound bot); None when it was not (logged)."""
    return await retried(lambda: bot(method) if bot is not None else method, type(method).__name__)


async def retried(send: Callable[[], Awaitable[T]], name: str) -> T | None:
    """`send()` until it answers, a 429, a 5xx or a dropped connection tried again."""
    for attempt in range(RETRIES + 1):
        try:
            return await send()
        except (TelegramRetryAfter, TelegramServerError, TelegramNetworkError) as error:
            wait = PAUSE * 2**attempt  # after a 5xx or a dropped connection: longer each time
            if isinstance(error, TelegramRetryAfter):  # a 429 says how long
                wait = error.retry_after
            if attempt == RETRIES or wait > LONGEST_WAIT:
                log.warning("%s not sent after %d attempt(s): %s", name, attempt + 1, error)
                return None
            await asyncio.sleep(wait)
        except TelegramBadRequest as error:
            if "not modified" not in str(error):
                log.info("%s refused: %s", name, error)
            return None
        except TelegramAPIError as error:
            log.warning("%s refused: %s", name, error)
            return None
    return None  # pragma: no cover - the loop returns


async def answer(message: Message, text: str, **options: Any) -> Message | None:
    return await call(message.answer(text, **options))


async def answer_photo(
    message: Message, png: bytes, filename: str, caption: str | None = None
) -> Message | None:
    return await call(message.answer_photo(BufferedInputFile(png, filename), caption=caption))


async def edit(message: Message, text: str, markup: Markup = None) -> Message | bool | None:
    return await call(message.edit_text(text, reply_markup=markup))


async def edit_in(
    bot: Bot, chat_id: int, message_id: int, text: str, markup: Markup = None
) -> Message | bool | None:
    method = EditMessageText(
        chat_id=chat_id, message_id=message_id, text=text, reply_markup=markup
    )
    return await call(method, bot)


async def drop_button(query: CallbackQuery) -> None:
    """The pressed button taken off its message (what it did is done for good: a closed debt)."""
    message = query.message
    if not isinstance(message, Message) or message.reply_markup is None or not query.data:
        return  # too old for Telegram to show, or no buttons
    markup = without_button(message.reply_markup, query.data)
    await call(message.edit_reply_markup(reply_markup=markup))


async def toast(query: CallbackQuery, text: str | None = None, *, alert: bool = False) -> None:
    await call(query.answer(text, show_alert=alert))


async def send(
    bot: Bot, chat_id: int, text: str, markup: Markup = None, *, thread_id: int | None = None
) -> Message | None:
    message = SendMessage(
        chat_id=chat_id, message_thread_id=thread_id, text=text, reply_markup=markup
    )
    return await call(message, bot)


async def answer_inline(
    query: InlineQuery,
    results: Sequence[InlineQueryResultArticle],
    *,
    personal: bool,
    cache_time: int,
    button: InlineQueryResultsButton | None = None,
) -> None:
    """The inline query's results (`personal`: cached for this user only)."""
    await call(
        query.answer(list(results), cache_time=cache_time, is_personal=personal, button=button)
    )


async def deliver(bot: Bot, core: Core, rows: Sequence[Owed]) -> None:
    """What a look owed, sent now because the outbox cannot be written: by the sender's own
    poster, unpaced, each row retried as `call` retries (a redraw is a new photo: no row to mark)."""
    poster = posting.Poster(bot, core, Pacing.unlimited(), time.time, asyncio.sleep)
    for owed in rows:
        if owed.kind is OwedKind.REDRAW:
            owed = replace(owed, kind=OwedKind.SHEET)
        row = OwedRow(0, owed, 0)
        await retried(partial(poster.send, row), f"owed {owed.kind}")
