"""How updates arrive, none lost: long polling confirms a batch once it is handled to the end; the
webhook (on the one web listener of the process) answers 500 for an update to come again; an update
the bot promised to record by itself is kept and fed again once the database takes writes."""

import asyncio
import contextlib
import logging
import secrets
import signal
import time
from collections import defaultdict
from typing import Any, Final

from aiogram import Bot, Dispatcher
from aiogram.dispatcher.middlewares.user_context import UserContextMiddleware
from aiogram.exceptions import TelegramRetryAfter
from aiogram.types import Update
from aiohttp import web

from bot.core import Redeliver
from bot.core.health import POLLER, WEBHOOK, beat
from bot.settings import Settings

log = logging.getLogger(__name__)

LONGEST_PAUSE: Final = 5.0  # seconds between two tries while Telegram cannot be reached
FIRST_AGAIN: Final = 0.5  # seconds before a batch with an update to handle again is asked again
GIVE_UP: Final = 300.0  # seconds an update may fail before its last try
TICK: Final = 1.0  # seconds between two tries of the kept updates
LAST_TRY: Final = "last_try"  # data key: the transport will not deliver this update again
REDEEMING: Final = "redeeming"  # data key: this update is fed again from the kept ones
SECRET_HEADER: Final = "X-Telegram-Bot-Api-Secret-Token"


def chat_of(update: Update) -> int:
    """The chat an update belongs to (its user's for an inline query or the like; 0 else)."""
    context = UserContextMiddleware.resolve_event_context(update)
    return context.chat_id or context.user_id or 0


class Promises:
    def __init__(self) -> None:
        self._kept: dict[int, dict[int, Update]] = {}  # chat: its kept updates by id, in order
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)

    def keep(self, chat_id: int, update: Update) -> None:
        self._kept.setdefault(chat_id, {}).setdefault(update.update_id, update)

    def holds(self, chat_id: int) -> bool:
        return bool(self._kept.get(chat_id))

    async def redeem(self, dispatcher: Dispatcher, bot: Bot, chat_id: int) -> None:
        """Feed the chat's kept updates again, in order, until one must wait again."""
        async with self._locks[chat_id]:
            kept = self._kept.get(chat_id, {})
            while kept:
                update = next(iter(kept.values()))
                try:
                    await dispatcher.feed_update(bot, update, **{REDEEMING: True})
                except Redeliver:
                    return
                except Exception:  # the errors router answered what it could
                    log.exception("kept update %s failed", update.update_id)
                log.info("kept update %s recorded", kept.pop(update.update_id).update_id)
            self._kept.pop(chat_id, None)

    async def feed(self, dispatcher: Dispatcher, bot: Bot, update: Update, **data: Any) -> None:
        """An update from the transport: its chat's kept updates first, then the update itself."""
        if self.holds(chat_of(update)):
            await self.redeem(dispatcher, bot, chat_of(update))
        await dispatcher.feed_update(bot, update, **data)

    async def run(self, dispatcher: Dispatcher, bot: Bot, tick: float = TICK) -> None:
        """Try the kept updates every `tick` seconds (a chat that says nothing more is served too)."""
        while True:
            await asyncio.sleep(tick)
            for chat_id in list(self._kept):
                try:
                    await self.redeem(dispatcher, bot, chat_id)
                except Exception:
                    log.exception("the kept updates of chat %s could not be tried", chat_id)


async def poll(
    bot: Bot,
    dispatcher: Dispatcher,
    stop: asyncio.Event,
    *,
    timeout: int = 10,
    allowed_updates: list[str] | None = None,
    give_up: float = GIVE_UP,
) -> None:
    """Fetch, handle the batch to the end, confirm it with the next offset; until `stop`. A
    batch's updates go per chat in order, chats concurrently."""
    handled: set[int] = set()  # fetched and handled, not confirmed yet
    failing: dict[int, float] = {}  # when an update to handle again first failed
    promises: Promises = dispatcher["promises"]  # set by `bot.app.build_dispatcher`

    async def feed(updates: list[Update]) -> list[Update]:
        """The chat's updates in order; those to come again."""
        left: list[Update] = []
        for index, update in enumerate(updates):
            uid = update.update_id
            if uid in handled:
                continue
            first = failing.get(uid)
            late = first is not None and time.monotonic() - first >= give_up
            try:
                await promises.feed(dispatcher, bot, update, **{LAST_TRY: late})
            except Redeliver as again:
                failing.setdefault(uid, time.monotonic())
                if not again.unwritable:  # the chat's later updates wait behind this one
                    return [*left, *updates[index:]]
                left.append(update)
                continue
            except Exception:  # the errors router answered what it could; the batch goes on
                log.exception("update %s failed", uid)
            handled.add(uid)
            failing.pop(uid, None)
        return left

    offset: int | None = None
    pause, again = 1.0, FIRST_AGAIN
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
        by_chat: dict[int, list[Update]] = defaultdict(list)
        for update in updates:
            by_chat[chat_of(update)].append(update)
        left = [u for part in await asyncio.gather(*map(feed, by_chat.values())) for u in part]
        offset = min(u.update_id for u in left) if left else updates[-1].update_id + 1
        handled = {u for u in handled if u >= offset}  # the rest is confirmed
        failing = {u: t for u, t in failing.items() if u >= offset}
        if not left:
            again = FIRST_AGAIN
            continue
        log.info("%d update(s) to handle again, from %s, in %.1f s", len(left), offset, again)
        await _sleep(stop, again)
        again = min(again * 2, LONGEST_PAUSE)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


def add_webhook(app: web.Application, dispatcher: Dispatcher, bot: Bot, settings: Settings) -> str:
    """The webhook route (one Telegram update per POST) on the web listener; returns its path."""
    path, secret = settings.webhook_path(), settings.webhook_secret
    assert path is not None and secret is not None, "webhook mode needs WEBHOOK_URL and its secret"
    expected = secret.get_secret_value()
    promises: Promises = dispatcher["promises"]

    async def handle(request: web.Request) -> web.Response:
        beat(WEBHOOK)
        if not secrets.compare_digest(request.headers.get(SECRET_HEADER, ""), expected):
            return web.Response(status=401, text="Unauthorized")
        try:
            update = Update.model_validate(await request.json(), context={"bot": bot})
        except ValueError as error:  # bad JSON, or pydantic's ValidationError
            log.warning("webhook: a request that is no update (%s)", type(error).__name__)
            return web.json_response({"ok": False}, status=400)
        try:
            await promises.feed(dispatcher, bot, update)
        except Redeliver as error:  # a 500 has Telegram send it again
            log.warning("update %s not handled yet (%s); answering 500", update.update_id, error)
            return web.json_response({"ok": False}, status=500)
        except Exception:
            log.exception("update %s failed; answering 500", update.update_id)
            return web.json_response({"ok": False}, status=500)
        return web.json_response({})

    app.router.add_post(path, handle)
    return path


async def set_webhook(bot: Bot, dispatcher: Dispatcher, settings: Settings) -> None:
    """Tell Telegram where to send updates (the queued ones stay queued: nothing is dropped)."""
    assert settings.webhook_url is not None and settings.webhook_secret is not None
    await bot.set_webhook(
        url=settings.webhook_url,
        secret_token=settings.webhook_secret.get_secret_value(),
        allowed_updates=dispatcher.resolve_used_update_types(),
        drop_pending_updates=False,
    )
    log.info("webhook set; Telegram sends updates to %s", settings.webhook_url)


async def until_stopped() -> None:
    stop, loop = asyncio.Event(), asyncio.get_running_loop()
    with contextlib.ExitStack() as handlers:  # each handler set is removed on the way out
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
                handlers.callback(loop.remove_signal_handler, sig)
        await stop.wait()
