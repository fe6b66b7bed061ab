"""Long polling that loses no update: a fetched batch is handled to the end — every
command committed with the replies it owes — before the next `getUpdates` confirms it with its
offset. A crash in the middle leaves the batch unconfirmed, so Telegram delivers it again, and
`processed_updates` (marked in each command's transaction) skips what was already recorded:
at-least-once in, exactly-once effect.

Inside a batch, each chat's updates are handled one after another in their order, different
chats concurrently. A stop (SIGTERM, SIGINT) ends the wait for updates at once, never a batch
being handled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from typing import Any, Final

from aiogram import Bot, Dispatcher
from aiogram.exceptions import TelegramRetryAfter
from aiogram.types import Update

from bot.core.health import POLLER, beat

log = logging.getLogger(__name__)

LONGEST_PAUSE: Final = 5.0  # seconds between two tries while Telegram cannot be reached


def chat_of(update: Update) -> int:
    """The chat an update belongs to (its user's for an inline query or the like; 0 else)."""
    event = update.event
    chat = getattr(event, "chat", None)
    if chat is None:
        message = getattr(event, "message", None)
        chat = getattr(message, "chat", None)
    if chat is not None:
        return int(chat.id)
    user = getattr(event, "from_user", None)
    return int(user.id) if user is not None else 0


async def _feed(bot: Bot, dispatcher: Dispatcher, updates: list[Update], **kwargs: Any) -> None:
    for update in updates:
        try:
            await dispatcher.feed_update(bot, update, **kwargs)
        except Exception:  # the errors router answered what it could; the batch goes on
            log.exception("update %s failed", update.update_id)


async def handle_batch(
    bot: Bot, dispatcher: Dispatcher, updates: list[Update], **kwargs: Any
) -> None:
    """Every update of the batch, serialised per chat, chats concurrently; returns when all
    are done."""
    by_chat: dict[int, list[Update]] = defaultdict(list)
    for update in updates:
        by_chat[chat_of(update)].append(update)
    await asyncio.gather(*(_feed(bot, dispatcher, part, **kwargs) for part in by_chat.values()))


async def poll(
    bot: Bot,
    dispatcher: Dispatcher,
    stop: asyncio.Event,
    *,
    timeout: int = 10,
    allowed_updates: list[str] | None = None,
    **kwargs: Any,
) -> None:
    """Fetch, handle the batch to the end, confirm it with the next offset; until `stop`."""
    offset: int | None = None
    pause = 1.0
    while not stop.is_set():
        beat(POLLER)
        fetch = asyncio.ensure_future(
            bot.get_updates(
                offset=offset,
                timeout=timeout,
                allowed_updates=allowed_updates,
                request_timeout=timeout + 10,
            )
        )
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({fetch, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not fetch.done():  # stopped while waiting: nothing fetched is left unhandled
            fetch.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await fetch
            await _confirm(bot, offset)
            return
        try:
            updates = fetch.result()
        except TelegramRetryAfter as error:
            await _sleep(stop, float(error.retry_after))
            continue
        except Exception as error:
            log.warning("getUpdates failed (%s); trying again in %.0f s", error, pause)
            await _sleep(stop, pause)
            pause = min(pause * 2, LONGEST_PAUSE)
            continue
        pause = 1.0
        if not updates:
            continue
        await handle_batch(bot, dispatcher, updates, **kwargs)
        offset = updates[-1].update_id + 1


async def _confirm(bot: Bot, offset: int | None) -> None:
    """Tell Telegram the last batch was handled (else it comes again after the restart, and
    `processed_updates` skips it); an update this fetches is not confirmed and comes again."""
    if offset is None:
        return
    with contextlib.suppress(Exception):
        await bot.get_updates(offset=offset, timeout=0, limit=1, request_timeout=5)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
