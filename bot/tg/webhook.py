"""Webhook mode, with aiogram's own aiohttp integration.

Chosen by `WEBHOOK_URL`: at start-up the bot calls `setWebhook(url=WEBHOOK_URL,
secret_token=WEBHOOK_SECRET)` and serves the path of `WEBHOOK_URL` on the one web listener of the
process (`WEB_LISTEN`, default 0.0.0.0:8080, beside the Mini App and `/healthz`). aiogram's
`SimpleRequestHandler` refuses (401) a request without the header
`X-Telegram-Bot-Api-Secret-Token: WEBHOOK_SECRET` before reading it, so it changes nothing. Updates
are handled in the request (`handle_in_background=False`): the 2xx goes only once the update's
command has committed; an unexpected failure (the database down, a bug) answers 500, so Telegram
sends the update again — a refused command (a `ScoringError`, answered in the chat) and an update
already handled are answers, 200. Telegram sends many updates at once; those of one chat are
serialised by the bot (the unit of work's per-chat locks, in-process and in the database).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.types import ErrorEvent, TelegramObject
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiohttp import web

from bot.core import AlreadyHandled
from bot.core.health import WEBHOOK, beat
from bot.settings import Settings
from scoring.errors import ScoringError

log = logging.getLogger(__name__)

# The failures of the update being handled in this request (a list per request, shared with the
# task aiogram runs the update in: that task copies this context).
_FAILURES: ContextVar[list[BaseException] | None] = ContextVar("webhook_failures", default=None)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


async def note_failures(handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
    """An outer middleware of the dispatcher's errors: an unexpected exception of the update (raised
    anywhere, the bot's own middlewares included) is noted for the request, then handled as ever
    (logged, a polite answer in the chat)."""
    if isinstance(event, ErrorEvent) and not isinstance(
        event.exception, ScoringError | AlreadyHandled
    ):
        failures = _FAILURES.get()
        if failures is not None:
            failures.append(event.exception)
    return await handler(event, data)


class CommittingRequestHandler(SimpleRequestHandler):
    """aiogram's handler for one bot, answering 500 when the update failed unexpectedly."""

    async def _handle_request(self, bot: Bot, request: web.Request) -> web.Response:
        beat(WEBHOOK)
        failures: list[BaseException] = []
        token = _FAILURES.set(failures)
        try:
            response = await super()._handle_request(bot, request)
        finally:
            _FAILURES.reset(token)
        if failures:
            log.warning(
                "update not handled (%s); answering 500 so that it comes again", failures[0]
            )
            return web.json_response({"ok": False}, status=500)
        return response


def add_webhook(app: web.Application, dispatcher: Dispatcher, bot: Bot, settings: Settings) -> str:
    """The webhook route on the web listener's application; returns its path."""
    path = settings.webhook_path()
    secret = settings.webhook_secret
    assert path is not None and secret is not None, "webhook mode needs WEBHOOK_URL and its secret"
    dispatcher.errors.outer_middleware(note_failures)
    handler = CommittingRequestHandler(
        dispatcher,
        bot,
        handle_in_background=False,
        secret_token=secret.get_secret_value(),
    )
    handler.register(app, path=path)
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
    """Wait for SIGTERM or SIGINT (the listener serves meanwhile)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
