"""Long polling that loses no update: a batch is handled to the end before it is confirmed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any, Final

from aiogram import Bot, Dispatcher
from aiogram.exceptions import TelegramRetryAfter
from aiogram.types import Update

from bot.core import Redeliver
from bot.core.health import POLLER, beat
from bot.telegram.inbound.context import LAST_TRY
from bot.telegram.inbound.promises import chat_of, promises_of

log = logging.getLogger(__name__)

LONGEST_PAUSE: Final = 5.0  # seconds between two tries while Telegram cannot be reached
FIRST_AGAIN: Final = 0.5  # seconds before a batch with an update to handle again is asked again
GIVE_UP: Final = 300.0  # seconds an update may fail before its last try


class Pending:
    """Updates fetched, not confirmed yet: those handled, and when the others first failed."""

    def __init__(
        self, give_up: float = GIVE_UP, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.give_up = give_up
        self.clock = clock
        self.handled: set[int] = set()
        self.failing: dict[int, float] = {}

    def last_try(self, update_id: int) -> bool:
        first = self.failing.get(update_id)
        return first is not None and self.clock() - first >= self.give_up

    def failed(self, update_id: int) -> None:
        self.failing.setdefault(update_id, self.clock())

    def done(self, update_id: int) -> None:
        self.handled.add(update_id)
        self.failing.pop(update_id, None)

    def confirmed(self, offset: int) -> None:
        """Everything before `offset` is confirmed: Telegram will not send it again."""
        self.handled = {u for u in self.handled if u >= offset}
        self.failing = {u: t for u, t in self.failing.items() if u >= offset}


async def handle_batch(
    bot: Bot, dispatcher: Dispatcher, updates: list[Update], pending: Pending, **kwargs: Any
) -> list[Update]:
    """Every update of the batch, per chat in order, chats concurrently; those to come again."""

    async def feed(updates: list[Update]) -> list[Update]:
        left: list[Update] = []
        for index, update in enumerate(updates):
            if update.update_id in pending.handled:
                continue
            last = {LAST_TRY: True} if pending.last_try(update.update_id) else {}
            try:
                await promises_of(dispatcher).feed(dispatcher, bot, update, **kwargs, **last)
            except Redeliver as again:
                pending.failed(update.update_id)
                if not again.unwritable:  # the chat's later updates wait behind this one
                    return [*left, *updates[index:]]
                left.append(update)
                continue
            except Exception:  # the errors router answered what it could; the batch goes on
                log.exception("update %s failed", update.update_id)
            pending.done(update.update_id)
        return left

    by_chat: dict[int, list[Update]] = defaultdict(list)
    for update in updates:
        by_chat[chat_of(update)].append(update)
    left = await asyncio.gather(*(feed(part) for part in by_chat.values()))
    return [update for part in left for update in part]


async def poll(
    bot: Bot,
    dispatcher: Dispatcher,
    stop: asyncio.Event,
    *,
    timeout: int = 10,
    allowed_updates: list[str] | None = None,
    give_up: float = GIVE_UP,
    **kwargs: Any,
) -> None:
    """Fetch, handle the batch to the end, confirm it with the next offset; until `stop`."""
    offset: int | None = None
    pause = 1.0
    again = FIRST_AGAIN
    pending = Pending(give_up)
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
            if offset is not None:  # the last batch confirmed; what this fetches comes again
                with contextlib.suppress(Exception):
                    await bot.get_updates(offset=offset, timeout=0, limit=1, request_timeout=5)
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
        left = await handle_batch(bot, dispatcher, updates, pending, **kwargs)
        offset = min(u.update_id for u in left) if left else updates[-1].update_id + 1
        pending.confirmed(offset)
        if not left:
            again = FIRST_AGAIN
            continue
        log.info("%d update(s) to handle again, from %s, in %.1f s", len(left), offset, again)
        await _sleep(stop, again)
        again = min(again * 2, LONGEST_PAUSE)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
