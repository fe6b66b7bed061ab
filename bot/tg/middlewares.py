"""Per-update state, as aiogram middlewares: who sent it and in which language to answer.

`UpdateContext` runs as an outer middleware on the update observer, so what it puts into `data`
(`caller`, `t`, and `reply`, the update's `bot.tg.reply.Reply`) reaches the handlers and the
`errors` router alike. It also drops an update that was
already accepted (Telegram delivers again what it did not see confirmed, e.g. after a crash).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.middlewares.user_context import EventContext
from aiogram.types import TelegramObject, Update

from bot.core import Caller, GameService
from bot.texts.i18n import LANGUAGES, translator
from bot.tg.reply import Reply

log = logging.getLogger(__name__)


class UpdateContext(BaseMiddleware):
    def __init__(self, game: GameService, default_locale: str) -> None:
        self.game = game
        self.default_locale = default_locale

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        assert isinstance(event, Update)
        if await self.game.was_handled(event.update_id):
            log.info("update %s was handled before; skipped", event.update_id)
            return None
        context: EventContext = data["event_context"]
        chat, user = context.chat, context.user
        caller = Caller(
            chat_id=chat.id if chat else (user.id if user else 0),
            user_id=user.id if user else None,
            first_name=user.first_name if user else None,
            username=user.username if user else None,
            update_id=event.update_id,
            chat_type=chat.type if chat else "private",
            chat_title=chat.title if chat else None,
        )
        t = translator(await self._locale(caller, user.language_code if user else None))
        message_id = event.message.message_id if event.message is not None else None
        data["caller"] = caller
        data["t"] = t
        data["reply"] = Reply(data["bot"], self.game, t, caller.chat_id, message_id)
        return await handler(event, data)

    async def _locale(self, caller: Caller, language_code: str | None) -> str:
        chosen = await self.game.locale(caller.chat_id)
        if chosen:
            return chosen
        if caller.private and language_code:
            code = language_code.split("-")[0].lower()
            if code in LANGUAGES:
                return code
        return self.default_locale
