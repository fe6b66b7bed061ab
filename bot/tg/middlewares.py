"""Per-update state, as aiogram middlewares: who sent it and in which language to answer.

`UpdateContext` runs as an outer middleware on the update observer, so what it puts into `data`
(`caller`, `t`, and `reply`, the update's `bot.tg.reply.Reply`) reaches the handlers and the
`errors` router alike. It also drops an update that was
already accepted (Telegram delivers again what it did not see confirmed, e.g. after a crash): the
same update_id for the same chat and message; the id back for another message is a new update.

At the edges it answers, and records nothing for, a forwarded command (its forwarder did
not write it) and a command of an anonymous group admin or of a channel (`sender_chat`: everyone
who writes so is one sender, so nobody could be told apart as a player or a scorekeeper).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.middlewares.user_context import EventContext
from aiogram.types import Message, TelegramObject, Update

from bot.core import Caller, GameService
from bot.texts.i18n import LANGUAGES, translator
from bot.tg.reply import Reply

log = logging.getLogger(__name__)

# Telegram's old forward fields (Bot API < 7.0); `forward_origin` replaced them.
_OLD_FORWARD_FIELDS = frozenset({"forward_from", "forward_from_chat", "forward_date"})


def message_of(update: Update) -> Message | None:
    """The message an update is about: sent, edited, or the one under a pressed button."""
    if update.message is not None:
        return update.message
    if update.edited_message is not None:
        return update.edited_message
    query = update.callback_query
    if query is not None and isinstance(query.message, Message):
        return query.message
    return None


def is_command(message: Message) -> bool:
    return (message.text or "").startswith("/")


def forwarded(message: Message) -> bool:
    return message.forward_origin is not None or bool(
        _OLD_FORWARD_FIELDS & message.model_fields_set
    )


def anonymous(message: Message) -> bool:
    """Sent as a group (an anonymous admin: `from` is @GroupAnonymousBot) or as a channel; not a
    channel post Telegram itself forwards into its discussion group."""
    return message.sender_chat is not None and not message.is_automatic_forward


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
        context: EventContext = data["event_context"]
        chat, user = context.chat, context.user
        message = message_of(event)
        message_id = message.message_id if message is not None else None
        chat_id = chat.id if chat is not None else None
        if await self.game.was_handled(event.update_id, chat_id, message_id):
            log.info("update %s was handled before; skipped", event.update_id)
            return None
        caller = Caller(
            chat_id=chat.id if chat else (user.id if user else 0),
            user_id=user.id if user else None,
            first_name=user.first_name if user else None,
            username=user.username if user else None,
            update_id=event.update_id,
            chat_type=chat.type if chat else "private",
            chat_title=chat.title if chat else None,
            message_id=message_id,
        )
        t = translator(await self._locale(caller, user.language_code if user else None))
        sent = event.message
        reply = Reply(
            data["bot"],
            self.game,
            t,
            caller.chat_id,
            sent.message_id if sent else None,
            data.get("live_sheet"),
        )
        if sent is not None and is_command(sent) and (forwarded(sent) or anonymous(sent)):
            refusal = "refused-forwarded" if forwarded(sent) else "refused-anonymous"
            log.info("update %s: %s, nothing recorded", event.update_id, refusal)
            await reply.text(t(refusal))
            return None
        data["caller"] = caller
        data["t"] = t
        data["reply"] = reply
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
