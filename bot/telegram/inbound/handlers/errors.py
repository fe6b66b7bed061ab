"""The one `errors` router: refusals localised, anything unexpected logged and answered."""

import logging

from aiogram import Bot, Router
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import CallbackQuery, ErrorEvent

from bot.core import AlreadyHandled, Core, GaveUp, Redeliver, looks
from bot.telegram.inbound.context import Ctx
from bot.telegram.outbound import at_once
from bot.texts.i18n import Safe, Translator, translator
from bot.texts.views import error_text, plain_text
from scoring.errors import ScoringError

router = Router(name=__name__)
log = logging.getLogger(__name__)
TOAST_LIMIT = 200


def _t(ctx: Ctx | None) -> Translator:
    """The update's language; English when the update failed before it had one."""
    return ctx.t if ctx is not None else translator("en")


async def answer(event: ErrorEvent, bot: Bot, text: Safe, ctx: Ctx | None) -> None:
    update = event.update
    if update.callback_query is not None:
        plain = plain_text(text)
        plain = plain if len(plain) <= TOAST_LIMIT else plain[: TOAST_LIMIT - 1] + "…"
        return await at_once.toast(update.callback_query, plain, alert=True)
    message = update.message or update.edited_message
    if message is None:
        return
    if ctx is not None:
        try:
            return await ctx.say(text)
        except Exception as error:  # the database takes nothing now: say it directly
            log.info("the answer to update %s goes directly (%s)", update.update_id, error)
    topic = message.message_thread_id if message.is_topic_message else None
    await at_once.send(bot, message.chat.id, text, thread_id=topic)


@router.callback_query()
async def unknown_button(query: CallbackQuery, ctx: Ctx | None = None) -> None:
    """A press no other router took (forged or unreadable data): a polite word, nothing else."""
    await at_once.toast(query, _t(ctx)("error-stale-button"))


@router.error(ExceptionTypeFilter(AlreadyHandled))
async def already_handled(event: ErrorEvent) -> None:
    log.info("update %s was handled before; nothing done", event.update.update_id)


@router.error(ExceptionTypeFilter(Redeliver))
async def again(event: ErrorEvent) -> None:
    """Nothing to say: the transport has the update come again."""
    raise event.exception


@router.error(ExceptionTypeFilter(GaveUp))
async def gave_up(event: ErrorEvent, bot: Bot, ctx: Ctx | None = None) -> None:
    log.warning("update %s given up: %s", event.update.update_id, event.exception)
    await answer(event, bot, _t(ctx)("store-gave-up"), ctx)


@router.error(ExceptionTypeFilter(ScoringError))
async def refused(event: ErrorEvent, bot: Bot, ctx: Ctx | None = None) -> None:
    error = event.exception
    assert isinstance(error, ScoringError)
    # A pressed button's toast says why nothing happened: a command to type has no place there.
    typed = event.update.callback_query is None
    await answer(event, bot, error_text(_t(ctx), error, with_example=typed), ctx)


@router.error()
async def unexpected(
    event: ErrorEvent, bot: Bot, core: Core, ctx: Ctx | None = None, last_try: bool = False
) -> None:
    """A database failure outside the update's unit of work comes again, but on its last try."""
    if core.store.fault(event.exception) is not None and not last_try:
        raise Redeliver(str(event.exception)) from event.exception
    log.error("update %s failed", event.update.update_id, exc_info=event.exception)
    try:
        recorded = await looks.was_handled(core, event.update.update_id)
        text = _t(ctx)("error-internal-recorded" if recorded else "error-internal")
        await answer(event, bot, text, ctx)
    except Exception:
        log.exception("could not tell the chat about the failure")
