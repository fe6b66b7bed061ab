"""The one `errors` router: a refused command becomes a localised message quoting the input at fault
with a correct example; anything unexpected is logged and answered without a traceback. The command
and its replies rolled back together (`bot.core.uow.Core.owing`); the answer is owed anew (the
outbox), and a button's toast goes at once. Replies are sent by the sender after the commit, so a
failed send never reaches this router: "nothing was recorded" is only said of what was not."""

from __future__ import annotations

import logging

from aiogram import Bot, Router
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import CallbackQuery, ErrorEvent

from bot.core import AlreadyHandled, GameService
from bot.texts.i18n import Safe, Translator, translator
from bot.texts.views import error_text, plain_text
from bot.tg.reply import Reply
from scoring.errors import ScoringError

router = Router(name=__name__)
log = logging.getLogger(__name__)
TOAST_LIMIT = 200


async def answer(event: ErrorEvent, bot: Bot, text: Safe, reply: Reply | None = None) -> None:
    """Answer where the update came from: the chat (owed), or the pressed button's toast."""
    update = event.update
    if update.callback_query is not None:
        plain = plain_text(text)
        if len(plain) > TOAST_LIMIT:
            plain = plain[: TOAST_LIMIT - 1] + "…"
        await bot.answer_callback_query(update.callback_query.id, plain, show_alert=True)
    elif (message := update.message or update.edited_message) is not None:
        if reply is not None:
            await reply.text(text)
        else:
            await bot.send_message(message.chat.id, text)


@router.callback_query()
async def unknown_button(query: CallbackQuery, t: Translator | None = None) -> None:
    """A press no other router took (forged or unreadable data): a polite word, nothing else."""
    await query.answer((t or translator("en"))("error-stale-button"))


@router.error(ExceptionTypeFilter(AlreadyHandled))
async def already_handled(event: ErrorEvent) -> None:
    log.info("update %s was handled before; nothing done", event.update.update_id)


@router.error(ExceptionTypeFilter(ScoringError))
async def refused(
    event: ErrorEvent, bot: Bot, t: Translator | None = None, reply: Reply | None = None
) -> None:
    assert isinstance(event.exception, ScoringError)
    await answer(event, bot, error_text(t or translator("en"), event.exception), reply)


@router.error()
async def unexpected(
    event: ErrorEvent,
    bot: Bot,
    game: GameService,
    t: Translator | None = None,
    reply: Reply | None = None,
) -> None:
    log.error("update %s failed", event.update.update_id, exc_info=event.exception)
    t = t or translator("en")
    try:
        recorded = await game.was_handled(event.update.update_id)
        text = t("error-internal-recorded" if recorded else "error-internal")
        await answer(event, bot, text, reply)
    except Exception:
        log.exception("could not tell the chat about the failure")
