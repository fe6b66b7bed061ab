"""What settling up owes the chats: at a game's end one private message to each player who started
the bot in private (whom he owes, with the "✅ paid" buttons, and who owes him), written with the
game's end; and the reminders the vote clock's holder lists in the groups.

Nobody who has not started the bot is written to; a private chat that blocked the bot answers 403
and the sender gives the row up (`bot.telegram.outbound.posting`), never tries it again.
"""

from __future__ import annotations

import logging

from bot.core import Core, Player, UnitOfWork, looks
from bot.core import debts as debts_core
from bot.core.results import Ended
from bot.domain import Account, Owed, OwedKind
from bot.telegram.keyboards import debts_keyboard
from bot.texts.debts import private_ended_text, reminder_text
from bot.texts.i18n import translator
from bot.texts.views import chunks

log = logging.getLogger(__name__)


async def private_messages(uow: UnitOfWork, ended: Ended) -> list[Owed]:
    """One private message per player of the ended game who has started the bot (in his
    language): his debts with their buttons, then the debts owed to him."""
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
        markup = debts_keyboard(t, owing)
        keyboard = markup.model_dump_json(exclude_none=True) if markup is not None else None
        text = private_ended_text(t, mine, owing, title)
        rows.append(Owed(account.user_id, OwedKind.TEXT, text, t.lang, keyboard))
    return rows


def _is(player: Player, account: Account) -> bool:
    """The seat is this account's: by its id, or (a seat given as @username that never acted)
    by the username it started the bot with."""
    return player.is_user(account.user_id, account.username)


async def remind_debts(core: Core, default_locale: str) -> int:
    """List the open debts of every chat whose reminder is due, each chat in a unit of work of
    its own; how many chats were reminded. A chat whose unit fails is tried again next time."""
    reminded = 0
    for reminder in await debts_core.due_reminders(core):
        chat_id = reminder.chat_id
        try:
            t = translator(await looks.locale(core, chat_id) or default_locale)
            async with UnitOfWork(core) as uow:
                every, debts = await debts_core.remind(uow, chat_id)
                parts = chunks(reminder_text(t, debts, every).split("\n")) if debts else []
                markup = debts_keyboard(t, debts)  # the debts' buttons under the last part
                keyboard = markup.model_dump_json(exclude_none=True) if markup else None
                for index, part in enumerate(parts):
                    last = index == len(parts) - 1
                    uow.owe(Owed(chat_id, OwedKind.TEXT, part, t.lang, keyboard if last else None))
                await uow.commit()
            reminded += bool(debts)
        except Exception as error:
            log.warning("chat %s not reminded yet (%s: %s)", chat_id, type(error).__name__, error)
    return reminded
