"""Updates the bot promised to record by itself once the database takes writes again."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from aiogram import Bot, Dispatcher
from aiogram.types import Update

from bot.core import Redeliver

log = logging.getLogger(__name__)

TICK: Final = 1.0  # seconds between two tries of the kept updates
REDEEMING: Final = "redeeming"  # data key: this update is fed again from here


def chat_of(update: Update) -> int:
    """The chat an update belongs to (its user's for an inline query or the like; 0 else)."""
    event = update.event
    chat = getattr(event, "chat", None) or getattr(getattr(event, "message", None), "chat", None)
    if chat is not None:
        return int(chat.id)
    user = getattr(event, "from_user", None)
    return int(user.id) if user is not None else 0


class Promises:
    def __init__(self) -> None:
        self._kept: dict[int, list[Update]] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def keep(self, chat_id: int, update: Update) -> None:
        kept = self._kept.setdefault(chat_id, [])
        if all(u.update_id != update.update_id for u in kept):
            kept.append(update)

    def holds(self, chat_id: int) -> bool:
        return bool(self._kept.get(chat_id))

    async def redeem(self, dispatcher: Dispatcher, bot: Bot, chat_id: int) -> bool:
        """Feed the chat's kept updates again, in order; whether none is left."""
        async with self._locks.setdefault(chat_id, asyncio.Lock()):
            kept = self._kept.get(chat_id, [])
            while kept:
                try:
                    await dispatcher.feed_update(bot, kept[0], **{REDEEMING: True})
                except Redeliver:
                    return False
                except Exception:  # the errors router answered what it could
                    log.exception("kept update %s failed", kept[0].update_id)
                log.info("kept update %s recorded", kept.pop(0).update_id)
            self._kept.pop(chat_id, None)
            return True

    async def feed(self, dispatcher: Dispatcher, bot: Bot, update: Update, **data: Any) -> None:
        """An update from the transport: its chat's kept updates first, then the update itself."""
        chat_id = chat_of(update)
        if self.holds(chat_id):
            await self.redeem(dispatcher, bot, chat_id)
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


def promises_of(dispatcher: Dispatcher) -> Promises:
    """The dispatcher's kept updates (`bot.app.build_dispatcher` sets them; a bare one gets its own)."""
    found = dispatcher.get("promises")
    if not isinstance(found, Promises):
        found = dispatcher["promises"] = Promises()
    return found
