"""/newgame, /join, /leave and the Join button."""

from __future__ import annotations

from dataclasses import replace

from aiogram import Router
from aiogram.enums import MessageEntityType
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.core import Player, lobby, parse_newgame, tournaments
from bot.core.lobby import locale_of
from bot.core.newgame import name_from_profile
from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import ClaimCb, JoinCb, opening_keyboard
from bot.telegram.outbound import at_once
from bot.texts.i18n import translator
from bot.texts.views import joined_text, left_text, opened_text, started_text

router = Router(name=__name__)


def mention_tokens(message: Message) -> tuple[str, dict[str, Player]]:
    """The arguments with each text mention replaced by a token, and the players they stand for."""
    text = message.text or ""
    mentions = [
        e
        for e in message.entities or []
        if e.type == MessageEntityType.TEXT_MENTION and e.user is not None
    ]
    encoded = text.encode("utf-16-le")
    pieces: list[str] = []
    players: dict[str, Player] = {}
    last = 0
    taken: set[str] = set()
    for index, entity in enumerate(sorted(mentions, key=lambda e: e.offset)):
        assert entity.user is not None
        start, end = entity.offset * 2, (entity.offset + entity.length) * 2
        pieces.append(encoded[last:start].decode("utf-16-le"))
        token = f"mention#{index}"
        pieces.append(f" {token} ")
        user = entity.user
        name = name_from_profile(user.first_name, user.username, taken)
        taken.add(name.casefold())
        players[token] = Player(name, user.id, user.username)
        last = end
    pieces.append(encoded[last:].decode("utf-16-le"))
    parts = "".join(pieces).split(maxsplit=1)
    return (parts[1] if len(parts) > 1 else ""), players


@router.message(Command("newgame", "new"))
async def newgame_cmd(message: Message, ctx: Ctx) -> None:
    caller = ctx.caller
    args, mentions = mention_tokens(message)
    spec = parse_newgame(args, caller.as_player(), mentions)
    user = message.from_user
    language = locale_of(user.language_code if user else None)
    async with ctx.work() as uow:
        admitted = await tournaments.admit(uow, caller, spec, args)
        opened = await lobby.new_game(uow, caller, spec, language)
        if admitted is not None:  # a tournament's table: the game counts in its round
            await tournaments.enter(uow, admitted, opened.state.game_id)
        t = translator(opened.locale or ctx.t.lang)  # a new group takes the opener's
        state = opened.state
        markup = opening_keyboard(t, state.game_id, state.players, not opened.started)
        await replace(ctx.out, t=t).text(uow, opened_text(t, state, opened.started), markup)


@router.message(Command("join"))
async def join_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    name = (command.args or "").strip() or None
    async with ctx.work() as uow:
        joined = await lobby.join(uow, ctx.caller, name)
        await ctx.out.text(uow, joined_text(ctx.t, joined.state, joined.player, joined.started))


@router.callback_query(JoinCb.filter())
async def join_button(query: CallbackQuery, callback_data: JoinCb, ctx: Ctx) -> None:
    t = ctx.t
    async with ctx.work() as uow:
        joined = await lobby.join(uow, ctx.caller, game_id=callback_data.game)
        state = joined.state
        if isinstance(query.message, Message):
            markup = opening_keyboard(t, state.game_id, state.players, not joined.started)
            await ctx.out.edit(uow, query.message.message_id, opened_text(t, state, False), markup)
        if joined.started:
            await ctx.out.text(uow, started_text(t, state, with_seats=True))
    await at_once.toast(query, t("joined-toast", name=joined.player.name))


@router.callback_query(ClaimCb.filter())
async def claim_button(query: CallbackQuery, callback_data: ClaimCb, ctx: Ctx) -> None:
    """ "✋ This is me": the seat is the presser's from now on; the button goes."""
    t = ctx.t
    async with ctx.work() as uow:
        claimed = await lobby.claim(uow, ctx.caller, callback_data.game, callback_data.seat)
        state = claimed.state
        if isinstance(query.message, Message):
            markup = opening_keyboard(t, state.game_id, state.players, not claimed.started)
            text = opened_text(t, state, claimed.started)
            await ctx.out.edit(uow, query.message.message_id, text, markup)
    await at_once.toast(query, t("claimed-toast", name=claimed.player.name))


@router.message(Command("leave"))
async def leave_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    name = (command.args or "").strip() or None
    async with ctx.work() as uow:
        left = await lobby.leave(uow, ctx.caller, name)
        await ctx.out.text(uow, left_text(ctx.t, left.state, left.player))
