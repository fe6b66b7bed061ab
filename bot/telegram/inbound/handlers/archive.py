"""/games and /game N: the chat's games a page at a time (in a private chat, the account's in
every chat), and any game of the chat opened again with its history and export. Reading only."""

from __future__ import annotations

from functools import partial

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.core import Caller, GameError, GameService, UnitOfWork, archive
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
from bot.telegram.outbound import direct
from bot.telegram.outbound.outbox import Reply
from bot.texts.archive import games_text, look_caption
from bot.texts.i18n import Safe, Translator
from bot.texts.views import opened_text, score_text

router = Router(name=__name__)


async def _page(game: GameService, caller: Caller, t: Translator, page: int) -> GamesPage:
    if caller.private and caller.user_id is not None:
        return await archive.account_games(game, caller.user_id, caller.chat_id, page, t.lang)
    return await archive.chat_games(game, caller.chat_id, page, t.lang)


def _text(t: Translator, caller: Caller, page: GamesPage) -> Safe:
    return games_text(t, page, private=caller.private)


@router.message(Command("games"))
async def games_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, reply: Reply
) -> None:
    page = await _page(game, caller, t, 0)
    await reply.text(_text(t, caller, page), pages_keyboard(t, page))


@router.callback_query(GamesCb.filter())
async def games_page(
    query: CallbackQuery,
    callback_data: GamesCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """◀ ▶: the page asked for, kept within the list as it stands now, shown in place (the toast
    once the page's edit is owed for good)."""
    page = await _page(game, caller, t, callback_data.page)
    toast = t("archive-page-toast", page=page.page + 1, pages=page.pages)
    uow.after_commit(partial(direct.toast, query, toast))
    if query.message is not None:
        keyboard = pages_keyboard(t, page)
        await reply.edit(query.message.message_id, _text(t, caller, page), keyboard)


@router.message(Command("game"))
async def game_cmd(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
) -> None:
    """Game N of this chat: its sheet, then its score with the History and Export buttons."""
    if caller.private:
        raise GameError("group-only", "/game", {}, "/games")
    number = archive.parse_number(command.args or "", "/game")
    snap = await archive.game_snapshot(game, caller.chat_id, number)
    keyboard = game_keyboard(t, number)
    if snap.sheet is None or snap.settlement is None:
        await reply.text(opened_text(t, snap.state, False), keyboard)
        return
    await reply.sheet_of(
        snap.state, snap.sheet, snap.settlement, look_caption(t, snap.state, snap.sheet)
    )
    await reply.text(score_text(t, snap.state, snap.sheet, snap.settlement), keyboard)


@router.callback_query(GameCb.filter())
async def game_button(
    query: CallbackQuery,
    callback_data: GameCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    reply: Reply,
    uow: UnitOfWork,
) -> None:
    """History or Export of the game the button names, looked up in the pressing chat."""
    snap = await archive.game_snapshot(game, caller.chat_id, callback_data.game)
    uow.after_commit(partial(direct.toast, query))
    if callback_data.act is GameAct.HISTORY:
        await owe_history(reply, t, snap)
    else:
        await owe_export(reply, t, archive.exported(snap.state, game.clock(), reply.zone))
