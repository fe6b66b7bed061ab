"""/stats, /top and /me: the players of a chat, and an account over every chat."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import GameError
from bot.core.stats import account_key, account_stats, chat_stats, parse_query
from bot.telegram.inbound.archive import standings_png
from bot.telegram.inbound.context import Ctx
from bot.texts.stats import me_text, player_text, stats_text, top_text

router = Router(name=__name__)


@router.message(Command("stats"))
async def stats_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/stats [@user | Name] [month | year | all] [convention]`; in a private chat, /me."""
    caller, t = ctx.caller, ctx.t
    if caller.private:
        await me_cmd(message, ctx)
        return
    query = parse_query(command.args or "")
    stats = await chat_stats(ctx.core.store, caller.chat_id, query.filter, ctx.now(), t.lang)
    if query.player is None:
        await ctx.say(stats_text(t, stats))
    else:
        await ctx.say(player_text(t, stats, stats.find(query.player)))


@router.message(Command("top"))
async def top_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """The standings by total: a picture with the text form as its caption."""
    caller, t = ctx.caller, ctx.t
    if caller.private:
        raise GameError("group-only", "/top", {}, "/me")
    query = parse_query(command.args or "")
    if query.player is not None:
        raise GameError("bad-stats-filter", query.player, {}, "/top year")
    stats = await chat_stats(ctx.core.store, caller.chat_id, query.filter, ctx.now(), t.lang)
    text = top_text(t, stats)
    png = await standings_png(t, stats)
    async with ctx.work() as uow:
        if png is None:
            await ctx.out.text(uow, text)
        else:
            await ctx.out.photo(uow, png, f"top-{abs(caller.chat_id)}.png", text)


@router.message(Command("me"))
async def me_cmd(message: Message, ctx: Ctx) -> None:
    """In a private chat: the account in every chat; in a group: the sender's /stats here."""
    caller, t, store = ctx.caller, ctx.t, ctx.core.store
    if caller.user_id is None:
        raise GameError("group-only", "/me", {}, "/stats")
    if not caller.private:
        stats = await chat_stats(store, caller.chat_id, parse_query("").filter, ctx.now(), t.lang)
        key = account_key(caller.user_id)
        found = next((p for p in stats.players if p.key == key), None)
        if found is None:
            found = stats.find(caller.username or caller.first_name or str(caller.user_id))
        await ctx.say(player_text(t, stats, found))
        return
    await ctx.say(me_text(t, await account_stats(store, caller.user_id, ctx.now(), t.lang)))
