"""/start, /help and the greetings; a group upgraded to a supergroup moves its games along;
/lang ru|en and /tz Region/City: the chat's language, and the time zone of its dates and times."""

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart, MagicData
from aiogram.filters.chat_member_updated import JOIN_TRANSITION, ChatMemberUpdatedFilter
from aiogram.types import CallbackQuery, ChatMemberUpdated, Message

from bot.core import GameError, debts, lobby, looks, tournaments
from bot.core.base import settlement as settle
from bot.core.zones import parse_zone, set_zone
from bot.domain import GameStatus
from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import (
    GROUP_PAYLOAD,
    HelpCb,
    greeting_keyboard,
    help_keyboard,
    private_start_keyboard,
    read_game_payload,
)
from bot.telegram.outbound import at_once
from bot.texts.help import Topic, topic_text
from bot.texts.i18n import LANGUAGES, chat_time, translator
from bot.texts.score import score_text
from bot.texts.views import open_games_text, opened_text, sheet_caption

router = Router(name=__name__)


@router.message(MagicData(F.event.migrate_to_chat_id | F.event.migrate_from_chat_id))
async def migrated(message: Message, ctx: Ctx) -> None:
    """Either side of a group's upgrade: its games and tournaments go to the new chat id."""
    old = message.migrate_from_chat_id or message.chat.id
    new = message.migrate_to_chat_id or message.chat.id
    async with ctx.work() as uow:
        await looks.migrate_chat(uow, old, new)
        await tournaments.migrate(uow, old, new)


@router.message(CommandStart(), MagicData(F.event.chat.type == "private"))
async def start_private(message: Message, command: CommandObject, ctx: Ctx, bot: Bot) -> None:
    """A private /start also lets the bot write to the account, committed with the answer."""
    caller, t, out = ctx.caller, ctx.t, ctx.out
    payload = (command.args or "").strip()
    username = (await bot.me()).username or ""  # aiogram keeps getMe's answer after one call
    games = await looks.open_games(ctx.core, caller.user_id) if caller.user_id else []
    wanted = read_game_payload(payload)
    async with ctx.work() as uow:
        if caller.user_id is not None:
            await debts.start_account(uow, caller, t.lang)
        if wanted is not None:
            state = next((s for s, _ in games if (s.chat_id, s.number) == wanted), None)
            if state is None:
                await out.text(uow, t("start-game-not-yours"))
            elif state.status is not GameStatus.PLAYING:
                await out.text(uow, opened_text(t, state, False))
            else:  # the sheet as the group sees it, then its score
                sheet = ctx.core.sheet(state)
                settlement = settle(state, sheet)
                await out.sheet_of(uow, state, sheet, settlement, sheet_caption(t, state, sheet))
                await out.text(uow, score_text(t, state, sheet, settlement))
        elif payload == "inline":
            await out.text(uow, t("inline-usage", bot=username))
        else:
            lines = [t("start-private", bot=username), "", open_games_text(t, games)]
            await out.text(uow, "\n".join(lines), private_start_keyboard(t, username))


# The "add to a group" link's /start follows the greeting the bot's arrival gave: no second one.
@router.message(CommandStart(magic=F.args != GROUP_PAYLOAD))
@router.my_chat_member(
    ChatMemberUpdatedFilter(JOIN_TRANSITION), MagicData(F.event.chat.type != "private")
)
async def greet(event: Message | ChatMemberUpdated, ctx: Ctx) -> None:
    """`/start` in a group, or the bot added to one: three lines and "how to start", in ctx.t."""
    await ctx.say(ctx.t("group-greeting"), greeting_keyboard(ctx.t))


@router.message(Command("help"))
async def help_cmd(message: Message, ctx: Ctx, bot: Bot) -> None:
    text = topic_text(ctx.t, Topic.HOME, (await bot.me()).username or "")
    await ctx.say(text, help_keyboard(ctx.t, Topic.HOME))


@router.callback_query(HelpCb.filter())
async def help_topic(query: CallbackQuery, callback_data: HelpCb, ctx: Ctx, bot: Bot) -> None:
    """A topic in place of the screen pressed (a message too old to edit: the topic anew)."""
    t, topic = ctx.t, callback_data.topic
    text = topic_text(t, topic, (await bot.me()).username or "")
    message = query.message
    if isinstance(message, Message):
        if message.text != text:  # pressed twice: Telegram refuses an edit changing nothing
            await at_once.edit(message, text, help_keyboard(t, topic))
    elif message is not None:
        await at_once.send(bot, message.chat.id, text, help_keyboard(t, topic))
    await at_once.toast(query)


@router.message(Command("lang", "language"))
async def lang_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    lang = (command.args or "").strip().lower()
    if lang not in LANGUAGES:
        raise GameError("bad-locale", lang, {"valid": ", ".join(LANGUAGES)}, "/lang en")
    async with ctx.work() as uow:
        await lobby.set_language(uow, ctx.caller, lang)
        await ctx.out.text(uow, translator(lang)("lang-set"))


@router.message(Command("tz", "timezone"))
async def tz_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """`/tz Europe/Moscow` sets the zone (any case); `/tz` alone shows it."""
    t, typed = ctx.t, (command.args or "").strip()
    zone = ctx.zone  # the chat's, read as the update arrived
    async with ctx.work() as uow:
        if typed:
            zone = parse_zone(typed)
            await set_zone(uow, ctx.caller, zone)
        now = chat_time(ctx.now(), zone, t.lang, date=False, label=True)
        await ctx.out.text(uow, t("tz-set" if typed else "tz-shown", zone=str(zone), time=now))
