"""Every handler and filter of the dispatcher is awaited on the event loop: aiogram runs any other one
(a plain function, a magic filter `F.…`, a bare `State`) in a worker thread for every update it
checks, so magic filters go in aiogram's `MagicData(F.event.…)` and states in `StateFilter`."""

from __future__ import annotations

from aiogram import Dispatcher, Router
from aiogram.dispatcher.event.handler import CallableObject


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
