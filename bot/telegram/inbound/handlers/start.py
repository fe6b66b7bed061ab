"""/start and the greetings."""

from __future__ import annotations

from dataclasses import replace

from aiogram import Bot, F, Router
from aiogram.filters import (
    JOIN_TRANSITION,
    ChatMemberUpdatedFilter,
    CommandObject,
    CommandStart,
    MagicData,
)
from aiogram.types import ChatMemberUpdated, Message

from bot.core import debts, looks
from bot.core.base import settlement as settle
from bot.domain import GameStatus
from bot.telegram.deeplinks import GROUP_PAYLOAD, read_game_payload
from bot.telegram.inbound.context import Ctx
from bot.telegram.inbound.handlers.help import bot_username
from bot.telegram.keyboards import greeting_keyboard, private_start_keyboard
from bot.texts.i18n import LANGUAGES, translator
from bot.texts.score import score_text
from bot.texts.views import open_games_text, opened_text, sheet_caption

router = Router(name=__name__)


@router.message(CommandStart(), MagicData(F.event.chat.type == "private"))
async def start_private(message: Message, command: CommandObject, ctx: Ctx, bot: Bot) -> None:
    """A private /start also lets the bot write to the account, committed with the answer."""
    caller, t, out = ctx.caller, ctx.t, ctx.out
    payload = (command.args or "").strip()
    username = await bot_username(bot)
    games = await looks.open_games(ctx.core, caller.user_id) if caller.user_id else []
    wanted = read_game_payload(payload)
    async with ctx.unit() as uow:
        if caller.user_id is not None:
            await debts.start_account(uow, caller, t.lang)
        if wanted is not None:
            found = [s for s, _ in games if (s.chat_id, s.number) == wanted]
            if not found:
                await out.text(uow, t("start-game-not-yours"))
            elif found[0].status is not GameStatus.PLAYING:
                await out.text(uow, opened_text(t, found[0], False))
            else:  # the sheet as the group sees it, then its score
                state = found[0]
                sheet = ctx.core.sheet(state)
                settlement = settle(state, sheet)
                await out.sheet_of(uow, state, sheet, settlement, sheet_caption(t, state, sheet))
                await out.text(uow, score_text(t, state, sheet, settlement))
        elif payload == "inline":
            await out.text(uow, t("inline-usage", bot=username))
        else:
            lines = [t("start-private", bot=username), "", open_games_text(t, games)]
            await out.text(uow, "\n".join(lines), private_start_keyboard(t, username))
        await uow.commit()


@router.message(CommandStart())
async def start_group(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/start` in a group: the greeting, unless the "add to a group" link brought it."""
    if (command.args or "").strip() == GROUP_PAYLOAD:
        return
    async with ctx.unit() as uow:
        await ctx.out.text(uow, ctx.t("group-greeting"), greeting_keyboard(ctx.t))
        await uow.commit()


@router.my_chat_member(
    ChatMemberUpdatedFilter(JOIN_TRANSITION), MagicData(F.event.chat.type != "private")
)
async def added(event: ChatMemberUpdated, ctx: Ctx) -> None:
    """Added to a group: three lines and "how to start", in the chat's or adder's language."""
    t = ctx.t
    code = (event.from_user.language_code or "").split("-")[0].lower()
    async with ctx.unit() as uow:
        if await looks.locale(ctx.core, event.chat.id, uow) is None and code in LANGUAGES:
            t = translator(code)
        await replace(ctx.out, t=t).text(uow, t("group-greeting"), greeting_keyboard(t))
        await uow.commit()
