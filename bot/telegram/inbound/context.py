"""The middleware that gives every handler `ctx` and retries a transient database failure."""

import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any, Final

from aiogram import BaseMiddleware
from aiogram.dispatcher.middlewares.user_context import EventContext
from aiogram.types import InlineKeyboardMarkup, Message, TelegramObject, Update

from bot.core import Caller, Core, GaveUp, Redeliver, UnitOfWork, Unsaved, attempts, looks
from bot.core.errors import Transient
from bot.core.lobby import locale_of
from bot.core.zones import chat_zone
from bot.domain import Fault
from bot.telegram.inbound.transport import LAST_TRY, REDEEMING, Promises
from bot.telegram.outbound import at_once
from bot.telegram.outbound.outbox import Outbox
from bot.texts.i18n import Translator, translator

log = logging.getLogger(__name__)

TOLD_KEPT: Final = 4096  # updates remembered as told "not saved yet" (so it is said once)

# Telegram's old forward fields (Bot API < 7.0); `forward_origin` replaced them.
_OLD_FORWARD_FIELDS = frozenset({"forward_from", "forward_from_chat", "forward_date"})


def refusal(message: Message | None) -> str | None:
    """Why a command is not taken: forwarded, or sent as a group or a channel."""
    if message is None or not (message.text or "").startswith("/"):
        return None
    if message.forward_origin is not None or _OLD_FORWARD_FIELDS & message.model_fields_set:
        return "refused-forwarded"
    if message.sender_chat is not None and not message.is_automatic_forward:  # not Telegram's own
        return "refused-anonymous"
    return None


Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Ctx:
    """One update's context: `work()` opens its unit of work; `out` owes the answers in it."""

    core: Core
    caller: Caller
    t: Translator
    zone: tzinfo
    out: Outbox

    @asynccontextmanager
    async def work(self) -> AsyncIterator[UnitOfWork]:
        async with UnitOfWork(self.core, self.caller) as uow:
            yield uow
            await uow.commit()

    async def say(self, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
        async with self.work() as uow:
            await self.out.text(uow, text, markup)

    def now(self) -> datetime:
        return self.core.clock()


class UpdateContext(BaseMiddleware):
    def __init__(self, core: Core, default_locale: str, promises: Promises) -> None:
        self.core, self.default_locale, self.promises = core, default_locale, promises
        self._told: deque[int] = deque(maxlen=TOLD_KEPT)

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        assert isinstance(event, Update)
        context: EventContext = data["event_context"]
        chat, user = context.chat, context.user
        message = event.message or event.edited_message
        pressed = event.callback_query.message if event.callback_query else None
        if message is None and isinstance(pressed, Message):  # the message under a pressed button
            message = pressed
        caller = Caller(
            chat_id=chat.id if chat else (user.id if user else 0),
            user_id=user.id if user else None,
            first_name=user.first_name if user else None,
            username=user.username if user else None,
            update_id=event.update_id,
            chat_type=chat.type if chat else "private",
            chat_title=chat.title if chat else None,
            message_id=message.message_id if message is not None else None,
            thread_id=context.thread_id,  # a forum topic is a table of its own
        )
        language = user.language_code if user else None
        redeeming = bool(data.get(REDEEMING))

        async def attempt() -> Any:
            try:
                arrival = await looks.arrival(self.core, caller)
            except Exception as error:
                if self.core.store.fault(error) is Fault.TRANSIENT:
                    raise Transient(str(error)) from error
                raise
            if arrival.seen:
                log.info("update %s was handled before; skipped", event.update_id)
                return None
            t = translator(self._language(arrival.chat.locale, language))
            zone = chat_zone(arrival.chat.time_zone, arrival.chat.locale or t.lang)
            message_id = event.message.message_id if event.message else None
            live = data.get("live_sheet")
            out = Outbox(t, caller.chat_id, message_id, live, zone, caller.thread_id)
            ctx = Ctx(self.core, caller, t, zone, out)
            data.update(ctx=ctx, caller=caller, t=t, out=out, zone=zone)
            refused = refusal(event.message)
            if refused is not None:
                log.info("update %s: %s, nothing recorded", event.update_id, refused)
                return await ctx.say(t(refused))
            return await handler(event, data)

        try:
            return await attempts.retrying(attempt, f"update {event.update_id}")
        except Unsaved as unsaved:
            if not unsaved.records and unsaved.owed:  # a look: its answer goes at once
                return await at_once.deliver(data["bot"], self.core, unsaved.owed)
            self.promises.keep(caller.chat_id, event)  # recorded by itself, as it says
            if data.get(LAST_TRY) and not redeeming:  # let go; the promise still holds it
                return None
            if not redeeming and event.update_id not in self._told:
                self._told.append(event.update_id)
                t = data.get("t") or translator(self._language(None, language))
                text, thread = t("store-unwritable"), caller.thread_id
                await at_once.send(data["bot"], caller.chat_id, text, thread_id=thread)
            raise Redeliver(str(unsaved), unwritable=True) from unsaved
        except Redeliver as again:
            if data.get(LAST_TRY):
                raise GaveUp(str(again)) from again
            raise

    def _language(self, chosen: str | None, language_code: str | None) -> str:
        """The chat's language, else the sender's own (ru* → ru, else en), else the default."""
        return chosen or (locale_of(language_code) if language_code else self.default_locale)
