"""/start and the greetings.

In a private chat `/start` greets with an "➕ Add to a group" button and lists the user's open
games; `/start game_<chat>_<n>` (a shared score's button) shows that game's sheet and score, but only to one
of its players: a private chat cannot tell who is in the group, and a game's numbers are its
players' business outside it; `/start inline` (the inline results' button) says how the inline
mode works. When the bot is added to a group it greets in three lines with a "how to start"
button. All of it records nothing and is answered directly.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from aiogram import Bot, F, Router
from aiogram.filters import (
    JOIN_TRANSITION,
    ChatMemberUpdatedFilter,
    CommandObject,
    CommandStart,
    MagicData,
)
from aiogram.types import ChatMemberUpdated, InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot.core import Caller, GameService, UnitOfWork
from bot.domain import GameStatus
from bot.telegram.deeplinks import GROUP_PAYLOAD, read_game_payload
from bot.telegram.inbound.handlers.help import bot_username
from bot.telegram.keyboards import greeting_keyboard, private_start_keyboard
from bot.telegram.outbound import direct
from bot.telegram.outbound.outbox import render_png
from bot.texts.i18n import LANGUAGES, Translator, translator
from bot.texts.views import chunks, open_games_text, opened_text, score_text, sheet_caption

router = Router(name=__name__)

LiveButton = Callable[[Translator, int, bool], InlineKeyboardButton | None]


@router.message(CommandStart(), MagicData(F.event.chat.type == "private"))
async def start_private(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    bot: Bot,
    uow: UnitOfWork,
    live_sheet: LiveButton | None = None,
) -> None:
    """A private /start also lets the bot write to the account there (a game's end tells him
    what he owes): the answer follows the commit of that."""
    if caller.user_id is not None:
        await game.start_account(uow, caller, t.lang)
    uow.after_commit(partial(_start_private, message, command, caller, t, game, bot, live_sheet))


async def _start_private(
    message: Message,
    command: CommandObject,
    caller: Caller,
    t: Translator,
    game: GameService,
    bot: Bot,
    live_sheet: LiveButton | None,
) -> None:
    payload = (command.args or "").strip()
    username = await bot_username(bot)
    games = await game.open_games(caller.user_id) if caller.user_id is not None else []
    wanted = read_game_payload(payload)
    if wanted is not None:
        found = [s for s, _ in games if (s.chat_id, s.number) == wanted]
        if not found:
            await direct.answer(message, t("start-game-not-yours"))
            return
        state = found[0]
        if state.status is not GameStatus.PLAYING:
            await direct.answer(message, opened_text(t, state, False))
            return
        sheet = game.sheet(state)
        settlement = game.settlement(state, sheet)
        png = await render_png(sheet, t.lang, settlement, game, state)
        if png is not None:  # the sheet as the group sees it, then its score
            caption = sheet_caption(t, state, sheet)
            await direct.answer_photo(message, png, f"sheet-{state.number}.png", caption)
        text = score_text(t, state, sheet, settlement)
        button = live_sheet(t, state.game_id, True) if live_sheet is not None else None
        markup = InlineKeyboardMarkup(inline_keyboard=[[button]]) if button else None
        parts = chunks(text.split("\n"))
        for part in parts[:-1]:
            await direct.answer(message, part)
        await direct.answer(message, parts[-1], reply_markup=markup)
        return
    if payload == "inline":
        await direct.answer(message, t("inline-usage", bot=username))
        return
    lines = [t("start-private", bot=username), "", open_games_text(t, games)]
    await direct.answer(
        message, "\n".join(lines), reply_markup=private_start_keyboard(t, username)
    )


@router.message(CommandStart())
async def start_group(message: Message, command: CommandObject, t: Translator) -> None:
    """`/start` in a group: the greeting; not after the "add to a group" link, whose joining
    the greeting of `added` answers already."""
    if (command.args or "").strip() == GROUP_PAYLOAD:
        return
    await direct.answer(message, t("group-greeting"), reply_markup=greeting_keyboard(t))


@router.my_chat_member(
    ChatMemberUpdatedFilter(JOIN_TRANSITION), MagicData(F.event.chat.type != "private")
)
async def added(
    event: ChatMemberUpdated, t: Translator, game: GameService, uow: UnitOfWork, bot: Bot
) -> None:
    """Added to a group (as a member or an administrator): three lines and "how to start", in
    the chat's language, or the language of whoever added the bot when the chat has none."""
    code = (event.from_user.language_code or "").split("-")[0].lower()
    if await game.locale(event.chat.id, uow) is None and code in LANGUAGES:
        t = translator(code)
    await direct.send(bot, event.chat.id, t("group-greeting"), greeting_keyboard(t))
