"""Every handler and filter of the dispatcher is awaited on the event loop (bot.tg.filters): aiogram
runs any other one in a worker thread for every update it checks."""

from __future__ import annotations

from aiogram import Dispatcher, F, Router
from aiogram.dispatcher.event.handler import CallableObject
from aiogram.types import Message

from bot.tg.filters import Magic
from tests.bot.factories import ANNA, ChatDriver
from tests.bot.mocked_bot import MockedBot


def callables(router: Router) -> list[tuple[str, CallableObject]]:
    found: list[tuple[str, CallableObject]] = []
    for kind, observer in router.observers.items():
        for handler in observer.handlers:
            name = (
                f"{router.name} {kind} {getattr(handler.callback, '__name__', handler.callback)}"
            )
            found += [(name, handler), *((f"{name}: filter", f) for f in handler.filters or ())]
    for sub in router.sub_routers:
        found += callables(sub)
    return found


def test_every_handler_and_filter_runs_on_the_event_loop(dispatcher: Dispatcher) -> None:
    found = callables(dispatcher)
    assert len(found) > 40  # the handlers of every router, and their filters
    assert [name for name, item in found if not item.awaitable] == []


async def test_a_magic_filter_on_the_loop_filters_as_aiogram_s_own(
    bot: MockedBot, chat: ChatDriver
) -> None:
    seen: list[str] = []
    probe = Router(name="probe")

    @probe.message(Magic(F.text.startswith("/ping")), Magic(F.text.as_("said")))
    async def ping(message: Message, said: str) -> None:
        seen.append(said)

    dispatcher = Dispatcher()
    dispatcher.include_router(probe)
    await dispatcher.feed_update(bot, chat.message_update(ANNA, "/ping me"))
    await dispatcher.feed_update(bot, chat.message_update(ANNA, "/pong"))
    assert seen == ["/ping me"]
