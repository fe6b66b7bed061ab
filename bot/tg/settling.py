"""What settling up owes the chats: at a game's end one private message to each player who started
the bot in private (whom he owes, with the "✅ paid" buttons, and who owes him), written with the
game's end; and the reminders the vote clock's holder lists in the groups.

Nobody who has not started the bot is written to; a private chat that blocked the bot answers 403
and the sender gives the row up (`bot.tg.posting`), never tries it again.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from bot.core import GameService, UnitOfWork
from bot.core.ledger import Debt
from bot.core.results import Ended
from bot.domain import Owed, OwedKind
from bot.texts.debts import private_ended_text, reminder_text
from bot.texts.i18n import translator
from bot.texts.views import chunks
from bot.tg.keyboards import debts_keyboard

log = logging.getLogger(__name__)


async def private_messages(uow: UnitOfWork, ended: Ended) -> list[Owed]:
    """One private message per player of the ended game who has started the bot (in his
    language): his debts with their buttons, then the debts owed to him."""
    debts = ended.debts
    by_user: dict[int, list[Debt]] = defaultdict(list)
    for debt in debts:
        for player in (debt.debtor, debt.creditor):
            if player.user_id is not None:
                by_user[player.user_id].append(debt)
    if not by_user:
        return []
    async with uow.reading() as repo:
        started = await repo.accounts(sorted(by_user))
        title = await repo.chat_title(ended.state.chat_id) if started else None
    rows: list[Owed] = []
    for user_id, lang in sorted(started.items()):
        t = translator(lang)
        mine = by_user[user_id]
        owing = [debt for debt in mine if debt.debtor.user_id == user_id]
        markup = debts_keyboard(t, owing)
        keyboard = markup.model_dump_json(exclude_none=True) if markup is not None else None
        text = private_ended_text(t, mine, user_id, title)
        rows.append(Owed(user_id, OwedKind.TEXT, text, t.lang, keyboard))
    return rows


async def remind_debts(game: GameService, default_locale: str) -> int:
    """List the open debts of every chat whose reminder is due, each chat in a unit of work of
    its own; how many chats were reminded. A chat whose unit fails is tried again next time."""
    reminded = 0
    for reminder in await game.due_reminders():
        chat_id = reminder.chat_id

        async def work(uow: UnitOfWork, chat_id: int = chat_id) -> int:
            t = translator(await game.locale(chat_id) or default_locale)  # before any write
            every, debts = await game.remind(uow, chat_id)
            if not debts:
                return 0
            for part in chunks(reminder_text(t, debts, every).split("\n")):
                uow.owe(Owed(chat_id, OwedKind.TEXT, part, t.lang))
            return 1

        try:
            reminded += await game.run(work)
        except Exception as error:
            log.warning("chat %s not reminded yet (%s: %s)", chat_id, type(error).__name__, error)
    return reminded
