"""What settling up owes: private messages at a game's end, and the debt reminders."""

from __future__ import annotations

import logging

from bot.core import Core, Player, UnitOfWork, looks
from bot.core import debts as debts_core
from bot.core.results import Ended
from bot.domain import Account, Owed, OwedKind
from bot.telegram.keyboards import as_json, debts_keyboard
from bot.texts.debts import private_ended_text, reminder_text
from bot.texts.i18n import translator
from bot.texts.views import chunks

log = logging.getLogger(__name__)


async def private_messages(uow: UnitOfWork, ended: Ended) -> list[Owed]:
    """One private message per player of the ended game who started the bot: his debts."""
    debts = ended.debts
    players = [player for debt in debts for player in (debt.debtor, debt.creditor)]
    ids = sorted({p.user_id for p in players if p.user_id is not None})
    names = sorted({p.username for p in players if p.user_id is None and p.username})
    if not ids and not names:
        return []
    async with uow.reading() as repo:
        started = await repo.accounts(ids, names)
        title = await repo.chat_title(ended.state.chat_id) if started else None
    rows: list[Owed] = []
    for account in started:
        mine = [d for d in debts if _is(d.debtor, account) or _is(d.creditor, account)]
        if not mine:
            continue
        t = translator(account.lang)
        owing = [debt for debt in mine if _is(debt.debtor, account)]
        text = private_ended_text(t, mine, owing, title)
        keyboard = as_json(debts_keyboard(t, owing))
        rows.append(Owed(account.user_id, OwedKind.TEXT, text, t.lang, keyboard))
    return rows


def _is(player: Player, account: Account) -> bool:
    """The seat is this account's: by its id, or by the username it started the bot with."""
    return player.is_user(account.user_id, account.username)


async def remind_debts(core: Core, default_locale: str) -> int:
    """Remind the chats whose reminder is due, each in a unit of work; how many."""
    reminded = 0
    for reminder in await debts_core.due_reminders(core):
        chat_id = reminder.chat_id
        try:
            t = translator(await looks.locale(core, chat_id) or default_locale)
            async with UnitOfWork(core) as uow:
                every, debts = await debts_core.remind(uow, chat_id)
                parts = chunks(reminder_text(t, debts, every).split("\n")) if debts else []
                keyboard = as_json(debts_keyboard(t, debts))  # under the last part
                for index, part in enumerate(parts):
                    last = index == len(parts) - 1
                    uow.owe(Owed(chat_id, OwedKind.TEXT, part, t.lang, keyboard if last else None))
                await uow.commit()
            reminded += bool(debts)
        except Exception as error:
            log.warning("chat %s not reminded yet (%s: %s)", chat_id, type(error).__name__, error)
    return reminded
