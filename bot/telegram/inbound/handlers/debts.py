"""Settling up: `/debts`, `/paid @user`, `/remind 3d|off`, and the "✅ paid" buttons under a game's
end (in the group, and in the private message each debtor got)."""

from __future__ import annotations

from functools import partial

from aiogram import F, Router
from aiogram.enums import ChatMemberStatus
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.types import CallbackQuery, ChatMemberUpdated, Message

from bot.core import Caller, GameService, UnitOfWork
from bot.core.debts import parse_period
from bot.core.events import DebtSide
from bot.telegram.keyboards import DebtCb, debts_keyboard
from bot.telegram.outbound import direct
from bot.telegram.outbound.outbox import Reply
from bot.texts.debts import (
    account_debts_text,
    chat_debts_text,
    marked_text,
    marked_toast,
    paid_text,
    reminder_set_text,
)
from bot.texts.i18n import Translator, translator

router = Router(name=__name__)


@router.message(Command("debts"))
async def debts_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, reply: Reply
) -> None:
    """A look: the chat's open debts and their net (in private, the account's everywhere), with
    the buttons of the debts listed."""
    view = await game.debts(caller)
    if caller.private:
        text = account_debts_text(t, view, caller.user_id, caller.username)
        owing = [d for d in view.debts if d.debtor.is_user(caller.user_id, caller.username)]
        await reply.text(text, debts_keyboard(t, owing))
        return
    await reply.text(chat_debts_text(t, view), debts_keyboard(t, view.debts))


@router.message(Command("paid"))
async def paid_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    closed = await game.paid(uow, caller, command.args or "")
    await reply.text(paid_text(t, closed))


@router.message(Command("remind"))
async def remind_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """`/remind 3d` or `/remind off`; `/remind` alone says how it is set."""
    if not (command.args or "").strip():
        now = await game.reminder(caller.chat_id)
        await reply.text(reminder_set_text(t, now.every if now is not None else None))
        return
    every = parse_period(command.args or "")
    await game.set_reminder(uow, caller, every)
    await reply.text(reminder_set_text(t, every))


@router.my_chat_member(MagicData(F.event.chat.type == "private"))
async def private_chat_changed(
    event: ChatMemberUpdated, caller: Caller, game: GameService, uow: UnitOfWork
) -> None:
    """The user blocked the bot in private: a game's end writes to him there no more."""
    if event.new_chat_member.status == ChatMemberStatus.KICKED:
        await game.forget_account(uow, caller)


@router.callback_query(DebtCb.filter())
async def debt_button(
    query: CallbackQuery,
    callback_data: DebtCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """A "✅ paid" press: the debtor's says he paid, the creditor's closes the debt; the game's
    chat is told, and the presser gets a toast once it is saved."""
    marked = await game.mark_debt(uow, caller, callback_data.game, callback_data.debt)
    uow.after_commit(partial(direct.toast, query, marked_toast(t, marked)))
    if marked.side is DebtSide.RECEIVED:  # closed: its button has nothing more to do
        uow.after_commit(partial(direct.drop_button, query))
    here = marked.debt.chat_id
    chat_t = t if here == caller.chat_id else translator(await game.locale(here, uow) or t.lang)
    await Reply(uow, chat_t, here).text(marked_text(chat_t, marked))
