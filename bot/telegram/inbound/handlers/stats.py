"""/stats, /top and /me: the players of a chat over its finished games, and an account over
every chat it played in. Reading only: projections of the logs (`bot.core.stats`)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.core import Caller, GameError, GameService
from bot.core.stats import account_key, account_stats, chat_stats, parse_query
from bot.telegram.inbound.archive import standings_png
from bot.telegram.outbound.outbox import Reply
from bot.texts.i18n import Translator
from bot.texts.stats import me_text, player_text, stats_text, top_text

router = Router(name=__name__)


@router.message(Command("stats"))
async def stats_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
) -> None:
    """`/stats [@user | Name] [month | year | all] [convention]`; in a private chat, /me."""
    if caller.private:
        await me_cmd(message, caller, t, game, reply)
        return
    query = parse_query(command.args or "")
    stats = await chat_stats(game.store, caller.chat_id, query.filter, game.clock(), t.lang)
    if query.player is None:
        await reply.text(stats_text(t, stats))
        return
    await reply.text(player_text(t, stats, stats.find(query.player)))


@router.message(Command("top"))
async def top_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
) -> None:
    """The standings by total: a picture with the text form as its caption."""
    if caller.private:
        raise GameError("group-only", "/top", {}, "/me")
    query = parse_query(command.args or "")
    if query.player is not None:
        raise GameError("bad-stats-filter", query.player, {}, "/top year")
    stats = await chat_stats(game.store, caller.chat_id, query.filter, game.clock(), t.lang)
    text = top_text(t, stats)
    png = await standings_png(t, stats)
    if png is None:
        await reply.text(text)
    else:
        await reply.photo(png, f"top-{abs(caller.chat_id)}.png", text)


@router.message(Command("me"))
async def me_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, reply: Reply
) -> None:
    """In a private chat: the account in every chat; in a group: the sender's /stats here."""
    if caller.user_id is None:
        raise GameError("group-only", "/me", {}, "/stats")
    if not caller.private:
        stats = await chat_stats(
            game.store, caller.chat_id, parse_query("").filter, game.clock(), t.lang
        )
        key = account_key(caller.user_id)
        found = next((p for p in stats.players if p.key == key), None)
        if found is None:
            found = stats.find(caller.username or caller.first_name or str(caller.user_id))
        await reply.text(player_text(t, stats, found))
        return
    records = await account_stats(game.store, caller.user_id, game.clock(), t.lang)
    await reply.text(me_text(t, records))
