"""Filters that run on the event loop.

aiogram awaits a filter that is a coroutine function or a `Filter`; anything else (a plain function,
a magic filter `F.…`, a bare `State`) it runs in a worker thread through `asyncio.to_thread`, on
every update it is checked against. The migration handlers alone cost every message two trips to
a thread and back (issue 12: some 50 µs of CPU each, and a wait for the GIL when the loop is busy).
`tests/bot/test_filters.py` keeps every filter of the dispatcher awaitable.
"""

from __future__ import annotations

from typing import Any

from aiogram.filters import Filter
from aiogram.types import TelegramObject
from aiogram.utils.magic_filter import MagicFilter


class Magic(Filter):
    """A magic filter (`F.…`) resolved on the event loop, with the same result aiogram's own
    handling gives it (a dict from `.as_()` joins the handler's arguments)."""

    def __init__(self, magic: MagicFilter) -> None:
        self.magic = magic

    async def __call__(self, event: TelegramObject) -> Any:
        return self.magic.resolve(event)
