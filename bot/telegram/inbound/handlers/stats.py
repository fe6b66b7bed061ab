"""/stats, /top and /me: the players of a chat, and an account over every chat; settling up:
`/debts`, `/paid @user`, `/remind 3d|off`, and the "✅ paid" buttons."""

from aiogram import F, Router
from aiogram.enums import ChatMemberStatus
from aiogram.filters import Command, CommandObject, MagicData
from aiogram.types import CallbackQuery, ChatMemberUpdated, Message

from bot.core import GameError, debts, looks
from bot.core.events import DebtSide
from bot.core.stats import StatsFilter, account_key, account_stats, chat_stats, parse_query
from bot.telegram.inbound.archive import standings_png
from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import DebtCb, debts_keyboard
from bot.telegram.outbound import at_once
from bot.telegram.outbound.outbox import Outbox
from bot.texts import debts as debt_texts
from bot.texts.i18n import translator
from bot.texts.stats import me_text, player_text, stats_text, top_text

router = Router(name=__name__)


@router.message(Command("me"))
@router.message(Command("stats"), MagicData(F.event.chat.type == "private"))
async def me_cmd(message: Message, ctx: Ctx) -> None:
    """In a private chat (/stats too): the account in every chat; in a group: the sender's /stats."""
    caller, t, store = ctx.caller, ctx.t, ctx.core.store
    if caller.user_id is None:
        raise GameError("group-only", "/me", {}, "/stats")
    if not caller.private:
        stats = await chat_stats(store, caller.chat_id, StatsFilter(), ctx.now(), t.lang)
        mine = next((p for p in stats.players if p.key == account_key(caller.user_id)), None)
        found = mine or stats.find(caller.username or caller.first_name or str(caller.user_id))
        return await ctx.say(player_text(t, stats, found))
    await ctx.say(me_text(t, await account_stats(store, caller.user_id, ctx.now(), t.lang)))


@router.message(Command("stats"))
async def stats_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/stats [@user | Name] [month | year | all] [convention]` in a group."""
    caller, t = ctx.caller, ctx.t
    filt, player = parse_query(command.args or "")
    stats = await chat_stats(ctx.core.store, caller.chat_id, filt, ctx.now(), t.lang)
    if player is None:
        await ctx.say(stats_text(t, stats))
    else:
        await ctx.say(player_text(t, stats, stats.find(player)))


@router.message(Command("top"))
async def top_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """The standings by total: a picture with the text form as its caption."""
    caller, t = ctx.caller, ctx.t
    if caller.private:
        raise GameError("group-only", "/top", {}, "/me")
    filt, player = parse_query(command.args or "")
    if player is not None:
        raise GameError("bad-stats-filter", player, {}, "/top year")
    stats = await chat_stats(ctx.core.store, caller.chat_id, filt, ctx.now(), t.lang)
    text = top_text(t, stats)
    png = await standings_png(t, stats)
    if png is None:
        return await ctx.say(text)
    async with ctx.work() as uow:
        await ctx.out.photo(uow, png, f"top-{abs(caller.chat_id)}.png", text)


@router.message(Command("debts"))
async def debts_cmd(message: Message, ctx: Ctx) -> None:
    """A look: the chat's open debts and their net, with the buttons of the debts listed."""
    caller, t = ctx.caller, ctx.t
    if caller.private:
        view = await debts.account_debts(ctx.core, caller)
        owing = [d for d in view.debts if d.debtor.is_user(caller.user_id, caller.username)]
        text = debt_texts.account_debts_text(t, view, caller.user_id, caller.username)
        await ctx.say(text, debts_keyboard(t, owing))
    else:
        view = await debts.chat_debts(ctx.core, caller.chat_id)
        await ctx.say(debt_texts.chat_debts_text(t, view), debts_keyboard(t, view.debts))


@router.message(Command("paid"))
async def paid_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        closed = await debts.paid_all(uow, ctx.caller, command.args or "")
        await ctx.out.text(uow, debt_texts.paid_text(ctx.t, closed))


@router.message(Command("remind"))
async def remind_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/remind 3d` or `/remind off`; `/remind` alone says how it is set."""
    async with ctx.work() as uow:
        if command.args is None:
            now = await debts.reminder_of(ctx.core, ctx.caller.chat_id)
            every = now.every if now is not None else None
        else:
            every = debts.parse_period(command.args)
            await debts.set_reminder(uow, ctx.caller, every)
        await ctx.out.text(uow, debt_texts.reminder_set_text(ctx.t, every))


@router.my_chat_member(MagicData(F.event.chat.type == "private"))
async def private_chat_changed(event: ChatMemberUpdated, ctx: Ctx) -> None:
    """The user blocked the bot in private: a game's end writes to him there no more."""
    if event.new_chat_member.status == ChatMemberStatus.KICKED:
        async with ctx.work() as uow:
            await debts.forget_account(uow, ctx.caller)


@router.callback_query(DebtCb.filter())
async def debt_button(query: CallbackQuery, callback_data: DebtCb, ctx: Ctx) -> None:
    """A "✅ paid" press: the debtor's says he paid, the creditor's closes the debt."""
    caller, t = ctx.caller, ctx.t
    async with ctx.work() as uow:
        marked = await debts.mark(uow, caller, callback_data.game, callback_data.debt)
        here = marked.debt.chat_id
        chat_lang = await looks.locale(ctx.core, here, uow) if here != caller.chat_id else None
        chat_t = translator(chat_lang or t.lang) if here != caller.chat_id else t
        await Outbox(chat_t, here).text(uow, debt_texts.marked_text(chat_t, marked))
    await at_once.toast(query, debt_texts.marked_toast(t, marked))
    if marked.side is DebtSide.RECEIVED:  # closed: its button has nothing more to do
        await at_once.drop_button(query)
