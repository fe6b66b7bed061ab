"""Settling up as commands: paid/received marks of the debts a game's end opened, reminders."""

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import groupby
from operator import attrgetter
from typing import Final

from bot.core.base import Caller, Core
from bot.core.errors import GameError
from bot.core.events import DebtMarked, DebtSide, Player
from bot.core.ledger import Debt, Payment, all_debts, debts_of, net, open_debts
from bot.core.uow import UnitOfWork
from bot.domain import Reminder

PAID_EXAMPLE: Final = "/paid @anna"
REMIND_EXAMPLE: Final = "/remind 3d"
_PERIOD = re.compile(r"(\d{1,4})\s*([mhdw])", re.IGNORECASE)
_UNIT_SECONDS: Final = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
LONGEST_PERIOD: Final = 52 * 7 * 86400  # a year


@dataclass(frozen=True, slots=True)
class Marked:
    """A debt after a press: `side` says whose mark it was (RECEIVED closes it)."""

    debt: Debt
    side: DebtSide


def _is(player: Player, caller: Caller) -> bool:
    return player.is_user(caller.user_id, caller.username)


async def mark(uow: UnitOfWork, caller: Caller, game_id: int, seq: int) -> Marked:
    """A "✅ paid" press on debt `seq`: the debtor says he paid, the creditor closes it."""
    async with uow.reading() as repo:
        row = await repo.game(game_id)
    if row is None or (not caller.private and row.chat_id != caller.chat_id):
        raise GameError("stale-button", "", {}, "/debts")
    async with uow.command(replace(caller, chat_id=row.chat_id), game=game_id) as unit:
        state = unit.state
        debt = debts_of(game_id, row.chat_id, state.number, state.debt_rows).get(seq)
        if debt is None:
            raise GameError("stale-button", "", {}, "/debts")
        if debt.received:
            raise GameError("debt-closed", "", {}, "/debts")
        if _is(debt.creditor, caller):
            side = DebtSide.RECEIVED
        elif _is(debt.debtor, caller):
            if debt.paid:
                raise GameError("debt-paid-already", "", {"creditor": debt.creditor.name}, "")
            side = DebtSide.PAID
        else:
            params = {"debtor": debt.debtor.name, "creditor": debt.creditor.name}
            raise GameError("debt-not-yours", "", params, "/debts")
        await unit.append(DebtMarked(seq, side), caller.user_id)
    return Marked(debts_of(game_id, row.chat_id, state.number, state.debt_rows)[seq], side)


def _named(player: Player, ref: str) -> bool:
    """Whether `/paid` names this player: @username, a username without @, or his name."""
    wanted = ref.removeprefix("@").casefold()
    return wanted in ((player.username or "").casefold(), player.name.casefold()) and bool(wanted)


async def paid_all(uow: UnitOfWork, caller: Caller, ref: str) -> list[Debt]:
    """`/paid @user` by a creditor: every open debt of that player to him here, received."""
    if caller.private:
        raise GameError("group-only", "/paid", {}, PAID_EXAMPLE)
    ref = ref.strip()
    if not ref:
        raise GameError("debt-name-missing", "/paid", {}, PAID_EXAMPLE)
    async with uow.reading() as repo:
        debts = open_debts(all_debts(await repo.debt_events(caller.chat_id)))
    named = [d for d in debts if _is(d.creditor, caller) and _named(d.debtor, ref)]
    if not named:
        raise GameError("debt-none-from", ref, {"name": ref}, PAID_EXAMPLE)
    closed: list[Debt] = []
    for game_id, wanted in groupby(named, attrgetter("game_id")):  # a game's debts together
        async with uow.command(caller, game=game_id) as unit:
            now = debts_of(game_id, unit.state.chat_id, unit.state.number, unit.state.debt_rows)
            for debt in wanted:
                if now[debt.seq].open:  # a press may have closed it meanwhile
                    await unit.append(DebtMarked(debt.seq, DebtSide.RECEIVED), caller.user_id)
                    closed.append(replace(now[debt.seq], received=True))
    return closed


@dataclass(frozen=True, slots=True)
class DebtsView:
    """What `/debts` shows: the open debts, the net payments, and the chats' titles."""

    debts: list[Debt]
    net: list[Payment]
    titles: dict[int, str | None]


async def chat_debts(core: Core, chat_id: int) -> DebtsView:
    async with core.store.reading() as repo:
        debts = open_debts(all_debts(await repo.debt_events(chat_id)))
        return DebtsView(debts, net(debts), {chat_id: await repo.chat_title(chat_id)})


async def account_debts(core: Core, caller: Caller) -> DebtsView:
    """The account's open debts, owed and owing, in every chat (a private /debts)."""
    async with core.store.reading() as repo:
        found = open_debts(all_debts(await repo.account_debt_events(caller.user_id or 0)))
        debts = [d for d in found if _is(d.debtor, caller) or _is(d.creditor, caller)]
        titles = {chat: await repo.chat_title(chat) for chat in {d.chat_id for d in debts}}
    return DebtsView(debts, [], titles)


async def start_account(uow: UnitOfWork, caller: Caller, lang: str) -> None:
    """A private /start: the bot may write to this account in private from now on."""
    if caller.user_id is not None and caller.private:
        repo = await uow.holding(caller.chat_id)
        await repo.start_account(caller.user_id, uow.now(), lang, caller.username)


async def forget_account(uow: UnitOfWork, caller: Caller) -> None:
    """The account blocked the bot in private: it is not written to there any more."""
    if caller.user_id is not None and caller.private:
        repo = await uow.holding(caller.chat_id)
        await repo.forget_account(caller.user_id)


def parse_period(text: str) -> int | None:
    """`3d`, `12h`, `30m`, `1w` in seconds; None for `off`; GameError for anything else."""
    words = text.strip().lower()
    if words in ("off", "stop", "выкл", "нет"):
        return None
    found = _PERIOD.fullmatch(words)
    seconds = int(found[1]) * _UNIT_SECONDS[found[2].lower()] if found else 0
    if not 0 < seconds <= LONGEST_PERIOD:
        raise GameError("bad-period", text.strip() or "/remind", {}, REMIND_EXAMPLE)
    return seconds


async def set_reminder(uow: UnitOfWork, caller: Caller, every: int | None) -> None:
    if caller.private:
        raise GameError("group-only", "/remind", {}, REMIND_EXAMPLE)
    repo = await uow.holding(caller.chat_id)
    await repo.set_reminder(caller.chat_id, every)


async def reminder_of(core: Core, chat_id: int) -> Reminder | None:
    async with core.store.reading() as repo:
        return await repo.reminder(chat_id)


def due(reminder: Reminder, now: datetime) -> bool:
    return reminder.last_at is None or now >= reminder.last_at + timedelta(seconds=reminder.every)


async def due_reminders(core: Core) -> list[Reminder]:
    now = core.clock()
    async with core.store.reading() as repo:
        return [r for r in await repo.reminders() if due(r, now)]


async def remind(uow: UnitOfWork, chat_id: int) -> tuple[int, list[Debt]]:
    """The chat's due reminder period and its older open debts, marked reminded; else (0, [])."""
    repo = await uow.holding(chat_id)
    reminder = await repo.reminder(chat_id)
    now = uow.now()
    if reminder is None or not due(reminder, now):
        return 0, []
    before = now - timedelta(seconds=reminder.every)
    old = [d for d in open_debts(all_debts(await repo.debt_events(chat_id))) if d.at <= before]
    if not old or not await repo.reminded(chat_id, now, reminder.last_at):
        return 0, []
    return reminder.every, old
