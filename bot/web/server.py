"""The bot process's one web listener: the Mini App at `/app`, its API under `/api/`, `/healthz`."""

import asyncio
import logging
from pathlib import Path
from typing import Any, Final

from aiogram import Bot
from aiohttp import web

from bot.core import Core
from bot.core.health import HEARTS, Heartbeats
from bot.core.uow import Announce
from bot.sheet.model import FONT_DIR
from bot.web import api
from bot.web.auth import CONTEXT, Membership, WebContext

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).parent / "static"
NO_CACHE: Final = {"Cache-Control": "no-cache"}
PING_TIMEOUT: Final = 2.0  # seconds the database has to answer `SELECT 1`
HEALTH: Final = web.AppKey("prefbot_health", Heartbeats)


async def app_page(request: web.Request) -> web.StreamResponse:
    """The page itself; the start parameter arrives in its URL or in initData, read by app.js."""
    return web.FileResponse(STATIC / "app.html", headers=NO_CACHE)


async def healthz(request: web.Request) -> web.StreamResponse:
    """200 when the database answers `SELECT 1` (a round trip, never a scan) and every watched
    loop beat lately (`bot.core.health`), 503 naming what is stale otherwise (`"stale": [...]`)."""
    store = request.app[CONTEXT].core.store
    stale: list[str] = []
    database = "ok"
    try:
        await asyncio.wait_for(store.ping(), PING_TIMEOUT)
    except Exception as error:
        log.warning("health check: the database does not answer (%s)", error or type(error))
        database = "down"
        stale.append("database")
    ages = request.app[HEALTH].ages()
    stale += [age.name for age in ages if age.stale]
    seconds = {age.name: round(age.seconds, 1) for age in ages}
    body: dict[str, Any] = {"ok": not stale, "database": database, "ages": seconds}
    if stale:
        body["stale"] = stale
    return web.json_response(body, status=503 if stale else 200, headers=NO_CACHE)


def build_web_app(
    bot: Bot,
    core: Core,
    *,
    announce: Announce,
    default_locale: str = "ru",
    health: Heartbeats = HEARTS,
) -> web.Application:
    """The application: `/app` (and its files under `/app/`), `/api/*`, `/healthz` (the loops of
    `health` that the entry point watches); `announce` owes a Mini App deal's answer in its chat."""
    app = web.Application(client_max_size=64 * 1024)
    app[HEALTH] = health
    app[CONTEXT] = WebContext(bot.token, core, Membership(bot), announce, default_locale)
    app.router.add_get("/app", app_page)
    app.router.add_get("/app/", app_page)
    app.router.add_static("/app/static", STATIC)
    app.router.add_static("/app/fonts", FONT_DIR)
    app.router.add_get("/healthz", healthz)
    app.add_routes(api.routes)
    return app


async def start_web(app: web.Application, host: str, port: int) -> web.AppRunner:
    """Serve `app` on host:port beside long polling until `runner.cleanup()`."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("web listener on http://%s:%s (the Mini App at /app)", host, port)
    return runner
