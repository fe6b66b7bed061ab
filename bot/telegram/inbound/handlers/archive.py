"""/games and /game N: the chat's games a page at a time, and one game opened again."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.core import GameError, archive
from bot.core.archive import GamesPage
from bot.telegram.inbound.archive import (
    GameAct,
    GameCb,
    GamesCb,
    game_keyboard,
    owe_export,
    owe_history,
    pages_keyboard,
)
from bot.telegram.inbound.context import Ctx
from bot.telegram.outbound import at_once
from bot.texts.archive import games_text, look_caption
from bot.texts.i18n import Safe
from bot.texts.score import score_text
from bot.texts.views import opened_text

router = Router(name=__name__)


async def _page(ctx: Ctx, page: int) -> GamesPage:
    caller, lang = ctx.caller, ctx.t.lang
    if caller.private and caller.user_id is not None:
        return await archive.account_games(ctx.core, caller.user_id, caller.chat_id, page, lang)
    return await archive.chat_games(ctx.core, caller.chat_id, page, lang)


def _text(ctx: Ctx, page: GamesPage) -> Safe:
    return games_text(ctx.t, page, private=ctx.caller.private)


@router.message(Command("games"))
async def games_cmd(message: Message, ctx: Ctx) -> None:
    page = await _page(ctx, 0)
    async with ctx.unit() as uow:
        await ctx.out.text(uow, _text(ctx, page), pages_keyboard(ctx.t, page))
        await uow.commit()


@router.callback_query(GamesCb.filter())
async def games_page(query: CallbackQuery, callback_data: GamesCb, ctx: Ctx) -> None:
    """◀ ▶: the page asked for, within the list as it stands now, shown in place."""
    t = ctx.t
    page = await _page(ctx, callback_data.page)
    async with ctx.unit() as uow:
        if query.message is not None:
            keyboard = pages_keyboard(t, page)
            await ctx.out.edit(uow, query.message.message_id, _text(ctx, page), keyboard)
        await uow.commit()
    await at_once.toast(query, t("archive-page-toast", page=page.page + 1, pages=page.pages))


@router.message(Command("game"))
async def game_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """Game N of this chat: its sheet, then its score with the History and Export buttons."""
    t = ctx.t
    if ctx.caller.private:
        raise GameError("group-only", "/game", {}, "/games")
    number = archive.parse_number(command.args or "", "/game")
    snap = await archive.game_snapshot(ctx.core, ctx.caller.chat_id, number)
    keyboard = game_keyboard(t, number)
    async with ctx.unit() as uow:
        if snap.sheet is None or snap.settlement is None:
            await ctx.out.text(uow, opened_text(t, snap.state, False), keyboard)
        else:
            caption = look_caption(t, snap.state, snap.sheet)
            await ctx.out.sheet_of(uow, snap.state, snap.sheet, snap.settlement, caption)
            text = score_text(t, snap.state, snap.sheet, snap.settlement)
            await ctx.out.text(uow, text, keyboard)
        await uow.commit()


@router.callback_query(GameCb.filter())
async def game_button(query: CallbackQuery, callback_data: GameCb, ctx: Ctx) -> None:
    """History or Export of the game the button names, looked up in the pressing chat."""
    snap = await archive.game_snapshot(ctx.core, ctx.caller.chat_id, callback_data.game)
    async with ctx.unit() as uow:
        if callback_data.act is GameAct.HISTORY:
            await owe_history(uow, ctx.out, ctx.t, snap)
        else:
            exported = await archive.exported(uow, snap.state, ctx.now(), ctx.zone)
            await owe_export(uow, ctx.out, ctx.t, exported)
        await uow.commit()
    await at_once.toast(query)
