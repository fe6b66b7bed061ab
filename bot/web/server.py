"""The web listener of the bot process: the Mini App's page at `/app`, its
JSON API under `/api/`, and `GET /healthz`.

`build_web_app` makes the aiohttp `Application`; it is the one listener of the process, so webhook
mode adds its route to the same application (aiogram's `aiogram.webhook.aiohttp_server`:
`SimpleRequestHandler(dispatcher, bot).register(app, path=…)` and `setup_application`). In long
polling, `start_web` runs it beside the polling loop on `WEB_LISTEN` and returns the runner to clean
up at exit.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Final

from aiogram import Bot
from aiohttp import web

from bot.core import GameService
from bot.core.announce import Announce
from bot.sheet.model import FONT_DIR
from bot.web.api import CONTEXT, WebContext, add_routes
from bot.web.auth import Membership

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).parent / "static"
NO_CACHE: Final = {"Cache-Control": "no-cache"}


async def app_page(request: web.Request) -> web.StreamResponse:
    """The page itself; the start parameter arrives in its URL or in initData, read by app.js."""
    return web.FileResponse(STATIC / "app.html", headers=NO_CACHE)


async def healthz(request: web.Request) -> web.StreamResponse:
    """200 when the database answers, 503 otherwise."""
    game = request.app[CONTEXT].game
    try:
        async with game.store.reading() as repo:
            await repo.count_events()
    except Exception as error:
        log.warning("health check: the database does not answer (%s)", error)
        return web.json_response({"ok": False, "database": "down"}, status=503)
    return web.json_response({"ok": True, "database": "ok"})


def build_web_app(
    bot: Bot,
    game: GameService,
    *,
    announce: Announce,
    default_locale: str = "ru",
    membership: Membership | None = None,
) -> web.Application:
    """The application: `/app` (and its files under `/app/`), `/api/*`, `/healthz`; `announce`
    owes a Mini App deal's answer in its chat."""
    app = web.Application(client_max_size=64 * 1024)
    app[CONTEXT] = WebContext(
        token=bot.token,
        game=game,
        bot=bot,
        membership=membership or Membership(bot),
        announce=announce,
        default_locale=default_locale,
    )
    app.router.add_get("/app", app_page)
    app.router.add_get("/app/", app_page)
    app.router.add_static("/app/static", STATIC)
    app.router.add_static("/app/fonts", FONT_DIR)
    app.router.add_get("/healthz", healthz)
    add_routes(app)
    return app


async def start_web(app: web.Application, host: str, port: int) -> web.AppRunner:
    """Serve `app` on host:port until `runner.cleanup()`; returns the runner."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    log.info("web listener on http://%s:%s (the Mini App at /app)", host, port)
    return runner
