"""/score, /sheet, /history, /rules, /export: looks at any game of the chat; /games and /game N with
their buttons (◀ ▶, History, Export); the inline mode: a deal priced under every convention, or the
sender's games to share."""

import hashlib
from enum import StrEnum
from typing import Any, Final

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Message,
)
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.core import GameError, UnitOfWork, archive, looks
from bot.core.base import settlement as settle
from bot.core.results import Exported, Snapshot
from bot.domain import GameStatus
from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import game_link_keyboard
from bot.telegram.outbound import at_once
from bot.telegram.outbound.outbox import Outbox, render_png
from bot.texts import score as texts
from bot.texts.history import games_text, history_lines, look_caption
from bot.texts.i18n import Translator
from bot.texts.score import score_text
from bot.texts.views import chunks, error_text, opened_text, rules_text
from scoring.errors import ScoringError
from scoring.pricing import price_deal

router = Router(name=__name__)
FULL_WORDS = frozenset({"full", "полный", "полностью", "весь"})
DEAL_CACHE: Final = 300  # seconds: a deal's price is the same for everybody
GAMES_CACHE: Final = 5  # seconds: a running game moves on
START_PAYLOAD: Final = "inline"  # the private /start the results' button opens


class GamesCb(CallbackData, prefix="gl"):
    """◀ ▶ under a list of games: the page to show (counted from 0)."""

    page: int


class GameAct(StrEnum):
    HISTORY = "h"
    EXPORT = "x"


class GameCb(CallbackData, prefix="gm"):
    """A button under an opened game: `game` is its number in the chat the button is in."""

    game: int
    act: GameAct


def pages_keyboard(t: Translator, page: archive.GamesPage) -> InlineKeyboardMarkup | None:
    if page.pages <= 1:
        return None
    builder = InlineKeyboardBuilder()
    for key, step in (("button-page-back", -1), ("button-page-next", 1)):
        if 0 <= page.page + step < page.pages:
            text = t.template(key).format(page=page.page + step + 1)  # shown counted from 1
            builder.button(text=text, callback_data=GamesCb(page=page.page + step))
    return builder.as_markup()


async def owe_history(uow: UnitOfWork, out: Outbox, snap: Snapshot) -> None:
    state = await archive.read_log(uow, snap.state)
    for part in chunks(history_lines(out.t, state, snap.sheet, out.zone)):
        await out.text(uow, part)


async def owe_export(uow: UnitOfWork, out: Outbox, exported: Exported) -> None:
    """The protocol file (replays with `python -m scoring replay`) and the JSON event log."""
    t, game_id, number = out.t, exported.state.game_id, exported.state.number
    protocol, events = exported.protocol.encode(), exported.events.encode()
    await out.document(uow, protocol, f"game-{game_id}.pref", t("export-protocol", game=number))
    await out.document(uow, events, f"game-{game_id}-events.json", t("export-events", game=number))


async def _look(ctx: Ctx, uow: UnitOfWork, command: str, args: str) -> Snapshot:
    """The game a look names: `N` after the command, else the chat's live (or last) game."""
    if not args.strip():
        return await looks.look(ctx.core, uow, ctx.caller)
    number = archive.parse_number(args, f"/{command}")
    return await archive.game_snapshot(ctx.core, ctx.caller.chat_id, number)


@router.message(Command("score"))
async def score_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        snap = await looks.look(ctx.core, uow, ctx.caller)
        if snap.sheet is None or snap.settlement is None:
            return await ctx.out.text(uow, opened_text(ctx.t, snap.state, False))
        await ctx.out.text(uow, score_text(ctx.t, snap.state, snap.sheet, snap.settlement))


@router.message(Command("sheet"))
async def sheet_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """The sheet as a picture; with the word `full` (anywhere), every total, as a document."""
    t, words = ctx.t, (command.args or "").split()
    kept = [w for w in words if w.casefold() not in FULL_WORDS]
    async with ctx.work() as uow:
        snap = await _look(ctx, uow, command.command, " ".join(kept))
        if snap.sheet is None or snap.settlement is None:
            return await ctx.out.text(uow, opened_text(t, snap.state, False))
        caption = look_caption(t, snap.state, snap.sheet)
        if len(kept) != len(words):  # the document, if it can be drawn; else the sheet as always
            png = await render_png(
                snap.sheet, t.lang, snap.settlement, ctx.core, snap.state, full=True
            )
            if png is not None:
                return await ctx.out.document(uow, png, f"sheet-{snap.state.number}.png", caption)
        await ctx.out.sheet_of(uow, snap.state, snap.sheet, snap.settlement, caption)


@router.message(Command("history"))
async def history_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        await owe_history(uow, ctx.out, await _look(ctx, uow, command.command, command.args or ""))


@router.message(Command("rules"))
async def rules_cmd(message: Message, ctx: Ctx) -> None:
    async with ctx.work() as uow:
        snap = await looks.look(ctx.core, uow, ctx.caller)
        await ctx.out.text(uow, rules_text(ctx.t, snap.state))


@router.message(Command("export"))
async def export_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    args, caller = command.args or "", ctx.caller
    async with ctx.work() as uow:
        if args.strip():
            snap = await _look(ctx, uow, command.command, args)
            exported = await archive.exported(uow, snap.state, ctx.now(), ctx.zone)
        else:
            exported = await looks.export(ctx.core, caller.chat_id, uow, ctx.zone, caller.topic)
        await owe_export(uow, ctx.out, exported)


async def _page(ctx: Ctx, page: int) -> archive.GamesPage:
    caller, lang = ctx.caller, ctx.t.lang
    if caller.private and caller.user_id is not None:
        return await archive.account_games(ctx.core, caller.user_id, caller.chat_id, page, lang)
    return await archive.chat_games(ctx.core, caller.chat_id, page, lang)


@router.message(Command("games"))
async def games_cmd(message: Message, ctx: Ctx) -> None:
    page = await _page(ctx, 0)
    await ctx.say(games_text(ctx.t, page, private=ctx.caller.private), pages_keyboard(ctx.t, page))


@router.callback_query(GamesCb.filter())
async def games_page(query: CallbackQuery, callback_data: GamesCb, ctx: Ctx) -> None:
    """◀ ▶: the page asked for, within the list as it stands now, shown in place."""
    t = ctx.t
    page = await _page(ctx, callback_data.page)
    async with ctx.work() as uow:
        if query.message is not None:
            text = games_text(t, page, private=ctx.caller.private)
            await ctx.out.edit(uow, query.message.message_id, text, pages_keyboard(t, page))
    await at_once.toast(query, t("archive-page-toast", page=page.page + 1, pages=page.pages))


@router.message(Command("game"))
async def game_cmd(message: Message, command: CommandObject, ctx: Ctx) -> None:
    """Game N of this chat: its sheet, then its score with the History and Export buttons."""
    t = ctx.t
    if ctx.caller.private:
        raise GameError("group-only", "/game", {}, "/games")
    number = archive.parse_number(command.args or "", "/game")
    snap = await archive.game_snapshot(ctx.core, ctx.caller.chat_id, number)
    builder = InlineKeyboardBuilder()
    for act in GameAct:
        text = t.template(f"button-game-{act.name.lower()}")
        builder.button(text=text, callback_data=GameCb(game=number, act=act))
    keyboard = builder.as_markup()
    async with ctx.work() as uow:
        if snap.sheet is None or snap.settlement is None:
            return await ctx.out.text(uow, opened_text(t, snap.state, False), keyboard)
        caption = look_caption(t, snap.state, snap.sheet)
        await ctx.out.sheet_of(uow, snap.state, snap.sheet, snap.settlement, caption)
        await ctx.out.text(uow, score_text(t, snap.state, snap.sheet, snap.settlement), keyboard)


@router.callback_query(GameCb.filter())
async def game_button(query: CallbackQuery, callback_data: GameCb, ctx: Ctx) -> None:
    """History or Export of the game the button names, looked up in the pressing chat."""
    snap = await archive.game_snapshot(ctx.core, ctx.caller.chat_id, callback_data.game)
    async with ctx.work() as uow:
        if callback_data.act is GameAct.HISTORY:
            await owe_history(uow, ctx.out, snap)
        else:
            exported = await archive.exported(uow, snap.state, ctx.now(), ctx.zone)
            await owe_export(uow, ctx.out, exported)
    await at_once.toast(query)


# -- the inline mode ---------------------------------------------------------------------
def _article(key: tuple[Any, ...], title: str, about: str, text: str) -> InlineQueryResultArticle:
    """A result whose id (within Telegram's 64 bytes) is the same for the same `key`."""
    return InlineQueryResultArticle(
        id=hashlib.sha1(":".join(map(str, key)).encode()).hexdigest(),
        title=title[:256],
        description=about[:512],
        input_message_content=InputTextMessageContent(message_text=text),
    )


def _example(t: Translator) -> str:
    return t.template("inline-example").format(example=t.template("inline-example-deal"))


@router.inline_query()
async def inline_query(query: InlineQuery, ctx: Ctx, bot: Bot) -> None:
    t, text = ctx.t, query.query.strip()
    button = InlineQueryResultsButton(text=t.template("inline-how"), start_parameter=START_PAYLOAD)
    if text:
        results, personal, cache = _priced(text, t), False, DEAL_CACHE
    else:
        results, personal, cache = await _games(query, ctx, bot), True, GAMES_CACHE
    await at_once.answer_inline(query, results, personal=personal, cache_time=cache, button=button)


def _priced(text: str, t: Translator) -> list[InlineQueryResultArticle]:
    """Every convention's cost first, then one result per convention with its entries."""
    try:
        priced = price_deal(text, t.lang)
    except ScoringError as error:
        title = t.template("inline-not-understood")
        return [_article(("error", t.lang, text), title, _example(t), error_text(t, error))]
    names = texts.seat_names(t, priced)
    costs = " · ".join(texts.price_title(t, names, p) for p in priced.prices[:2]) + " …"
    every = texts.all_prices_text(t, text, names, priced)
    results = [_article(("all", t.lang, text), t.template("inline-all-title"), costs, every)]
    for price in priced.prices:
        title, shown = texts.price_title(t, names, price), texts.price_text(t, text, names, price)
        one = t.template("inline-one-description")
        results.append(_article((price.convention, t.lang, text), title, one, shown))
    return results


async def _games(query: InlineQuery, ctx: Ctx, bot: Bot) -> list[InlineQueryResultArticle]:
    t, username = ctx.t, (await bot.me()).username or ""
    results: list[InlineQueryResultArticle] = []
    for state, chat in await looks.open_games(ctx.core, query.from_user.id):
        if state.status is not GameStatus.PLAYING:
            continue
        sheet = ctx.core.sheet(state)
        settlement = settle(state, sheet)
        text = chunks(score_text(t, state, sheet, settlement).split("\n"))[0]
        about = texts.game_description(t, state, settlement)
        key = ("game", t.lang, state.game_id, state.last_seq)
        article = _article(key, texts.game_title(t, state, chat), about, text)
        article.reply_markup = game_link_keyboard(t, username, state.chat_id, state.number)
        results.append(article)
    usage = t("inline-usage", bot=username)
    none = _article(("none", t.lang), t.template("inline-no-games"), _example(t), usage)
    return results or [none]
