"""Wiring: the Bot, the Dispatcher with the core and the routers, the menu, the background tasks."""

import asyncio
import contextlib
import logging
import signal
from typing import Final

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import PRODUCTION, TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramAPIError, TelegramNetworkError, TelegramUnauthorizedError
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats
from aiohttp.web import AppRunner

from bot.core import Clock, Core, utc_now, votes
from bot.core.health import HEARTS, POLLER, SENDER, VOTE_CLOCK, WEBHOOK, Lease, beat
from bot.domain import Store
from bot.logs import update_context
from bot.settings import Settings
from bot.startup import StartupError, open_when_ready
from bot.storage.log import pruning
from bot.telegram import runtime
from bot.telegram.inbound.context import UpdateContext
from bot.telegram.inbound.fsm import fsm_backend
from bot.telegram.inbound.handlers import ROUTERS
from bot.telegram.inbound.transport import Promises, add_webhook, poll, set_webhook, until_stopped
from bot.telegram.outbound.outbox import ChatAnnouncer, close_expired_votes, remind_debts
from bot.telegram.outbound.pacing import Pacing
from bot.telegram.outbound.sender import Sender
from bot.texts.help import menu_commands
from bot.texts.i18n import LANGUAGES, translator
from bot.web.auth import live_sheet_button
from bot.web.server import build_web_app, start_web

log = logging.getLogger(__name__)


VOTE_TICK: Final = 1.0  # seconds between two looks for timed-out votes
REMIND_TICKS: Final = 5  # the clock looks for chats to remind of their debts every 5 ticks
RESCAN_TICKS: Final = 3  # the lease's holder reads other instances' open votes this often


def build_dispatcher(settings: Settings, store: Store, clock: Clock = utc_now) -> Dispatcher:
    runtime.keep_response_types()  # aiogram's response models kept from the garbage collector
    runtime.limit_malloc_arenas()
    core = Core(store, clock)
    storage, isolation = fsm_backend(settings, store)
    dispatcher = Dispatcher(
        storage=storage, events_isolation=isolation, core=core, settings=settings
    )
    if settings.miniapp_link:  # every sheet message carries the live sheet button
        token, link = settings.bot_token.get_secret_value(), settings.miniapp_link
        dispatcher["live_sheet"] = lambda t, game_id, private: live_sheet_button(
            t, token, game_id, link, private=private, app_url=settings.miniapp_url
        )
    dispatcher.update.outer_middleware(update_context)  # each log line names its update and chat
    dispatcher["announce"] = ChatAnnouncer(dispatcher.get("live_sheet"))  # the Mini App's deals
    promises = dispatcher["promises"] = Promises()  # what the bot said it would record by itself
    dispatcher.update.outer_middleware(UpdateContext(core, settings.default_locale, promises))
    for router in ROUTERS:  # the tests build many dispatchers; aiogram cannot detach a router
        router._parent_router = None
    dispatcher.include_routers(*ROUTERS)
    return dispatcher


async def set_commands(bot: Bot, default_locale: str) -> None:
    """The menus of groups and of private chats, in each language and (for the rest) the default."""
    try:
        for scope in (BotCommandScopeAllGroupChats(), BotCommandScopeAllPrivateChats()):
            private = isinstance(scope, BotCommandScopeAllPrivateChats)
            for code in (*LANGUAGES, None):  # None: any other language, in the default one
                pairs = menu_commands(translator(code or default_locale), private)
                menu = [BotCommand(command=c, description=d) for c, d in pairs]
                await bot.set_my_commands(menu, scope=scope, language_code=code)
    except TelegramAPIError as error:
        log.warning("the commands menu was not set: %s", error)


async def wait_for_telegram(bot: Bot, pause: float = 1.0, longest: float = 60.0) -> None:
    """`getMe` until Telegram answers: a refused token stops the start, a network error waits."""
    while True:
        try:
            log.info("running as @%s", (await bot.get_me()).username)
            return
        except TelegramUnauthorizedError:
            raise StartupError(
                "BOT_TOKEN was refused by Telegram (Unauthorized): take the current token from "
                "@BotFather (/mybots → API Token) and put it into .env or BOT_TOKEN."
            ) from None
        except TelegramNetworkError as error:
            log.warning("Telegram cannot be reached (%s); trying again in %.0f s", error, pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, longest)


async def vote_clock(core: Core, default_locale: str, lease: Lease | None) -> None:
    """Each tick close the votes whose time is over; every `REMIND_TICKS` ticks remind of debts."""
    ticks = 0
    while True:
        await asyncio.sleep(VOTE_TICK)
        beat(VOTE_CLOCK)
        try:
            if lease is not None:  # several instances: the lease's holder ticks
                was = lease.held
                if not await lease.hold():
                    continue
                if not was or ticks % RESCAN_TICKS == 0:  # other instances' open votes
                    await votes.watch_open_votes(core)
            ticks += 1
            await close_expired_votes(core, default_locale)
            if ticks % REMIND_TICKS == 0:  # the reminders of debts run where the clock does
                await remind_debts(core, default_locale)
        except Exception:
            log.exception("closing timed-out votes failed; trying again")


async def run(settings: Settings) -> None:
    """Open the database, reach Telegram, set the menu, start the vote clock, then take updates:
    long polling, or in webhook mode (WEBHOOK_URL) on the web listener until stopped."""
    store = await open_when_ready(settings)
    log.info("database: %s", settings.database_setting())  # which one, masked
    url = settings.telegram_api_url
    bot = Bot(
        settings.bot_token.get_secret_value(),
        session=AiohttpSession(api=TelegramAPIServer.from_base(url) if url else PRODUCTION),
        default=DefaultBotProperties(parse_mode=ParseMode.HTML, link_preview_is_disabled=True),
    )
    tasks = [asyncio.create_task(pruning(store, utc_now), name="prune-updates")]
    web: AppRunner | None = None
    lease = Lease(store, seconds=settings.lease_seconds) if not store.serial else None
    try:
        dispatcher = build_dispatcher(settings, store)
        core: Core = dispatcher["core"]
        sender = Sender(bot, core, pacing=Pacing.of(settings))
        core.notify = sender.wake
        await wait_for_telegram(bot)
        # /healthz: each loop started from here on is watched (bot.core.health)
        for loop_name in (WEBHOOK if settings.webhook_url else POLLER, SENDER, VOTE_CLOCK):
            HEARTS.watch(loop_name)
        tasks.append(asyncio.create_task(sender.run(), name="sender"))
        keeping = dispatcher["promises"].run(dispatcher, bot)
        tasks.append(asyncio.create_task(keeping, name="promises"))
        if (address := settings.web_address()) is not None:  # the Mini App, /healthz, the webhook
            app = build_web_app(
                bot, core, announce=dispatcher["announce"], default_locale=settings.default_locale
            )
            if settings.webhook_url is not None:
                add_webhook(app, dispatcher, bot, settings)
            try:
                web = await start_web(app, *address)
            except OSError as error:
                raise StartupError(f"WEB_LISTEN={address[0]}:{address[1]}: {error}.") from None
        await set_commands(bot, settings.default_locale)
        watched = await votes.watch_open_votes(core)  # those that timed out while the bot was down
        if lease is None or await lease.hold():
            closed = await close_expired_votes(core, settings.default_locale)
            log.info("votes: %d game(s) with open votes, %d closed at start-up", watched, closed)
        clock = vote_clock(core, settings.default_locale, lease)
        tasks.append(asyncio.create_task(clock, name="vote-clock"))
        if settings.webhook_url is not None:
            await set_webhook(bot, dispatcher, settings)
            await until_stopped()
            return
        await bot.delete_webhook()  # a webhook left from webhook mode would refuse getUpdates
        log.info("polling for updates")
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(signum, stop.set)
        allowed = dispatcher.resolve_used_update_types()
        await poll(
            bot, dispatcher, stop, timeout=settings.polling_timeout, allowed_updates=allowed
        )
        log.info("stopped; what is still owed is sent after the restart")
    finally:
        for loop_name in (WEBHOOK, POLLER, SENDER, VOTE_CLOCK):
            HEARTS.forget(loop_name)
        if web is not None:
            await web.cleanup()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if lease is not None:
            with contextlib.suppress(Exception):
                await lease.release()
        await bot.session.close()
        await store.close()
