"""Webhook mode, on the one web listener of the process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal

from aiogram import Bot, Dispatcher
from aiogram.types import Update
from aiohttp import web
from pydantic import ValidationError

from bot.core import Redeliver
from bot.core.health import WEBHOOK, beat
from bot.settings import Settings
from bot.telegram.inbound.polling import promises_of

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def add_webhook(app: web.Application, dispatcher: Dispatcher, bot: Bot, settings: Settings) -> str:
    """The webhook route (one Telegram update per POST) on the web listener; returns its path."""
    path, secret = settings.webhook_path(), settings.webhook_secret
    assert path is not None and secret is not None, "webhook mode needs WEBHOOK_URL and its secret"

    async def handle(request: web.Request) -> web.Response:
        beat(WEBHOOK)
        if not secrets.compare_digest(
            request.headers.get(SECRET_HEADER, ""), secret.get_secret_value()
        ):
            return web.Response(status=401, text="Unauthorized")
        try:
            update = Update.model_validate(await request.json(), context={"bot": bot})
        except (ValueError, ValidationError) as error:
            log.warning("webhook: a request that is no update (%s)", type(error).__name__)
            return web.json_response({"ok": False}, status=400)
        try:
            await promises_of(dispatcher).feed(dispatcher, bot, update)
        except Redeliver as error:
            log.warning(
                "update %s not handled yet (%s); answering 500 so that it comes again",
                update.update_id,
                error,
            )
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
