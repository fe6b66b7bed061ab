"""The inline mode: a deal priced under every convention, or the sender's games to share."""

from __future__ import annotations

import hashlib
from typing import Any, Final

from aiogram import Bot, Router
from aiogram.types import (
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
)

from bot.core import looks
from bot.core.base import settlement as settle
from bot.domain import GameStatus
from bot.telegram.inbound.context import Ctx
from bot.telegram.keyboards import game_link_keyboard
from bot.telegram.outbound import at_once
from bot.texts import score as texts
from bot.texts.i18n import Translator
from bot.texts.score import score_text
from bot.texts.views import chunks, error_text
from scoring.errors import ScoringError
from scoring.pricing import price_deal

router = Router(name=__name__)

DEAL_CACHE: Final = 300  # seconds: a deal's price is the same for everybody
GAMES_CACHE: Final = 5  # seconds: a running game moves on
START_PAYLOAD: Final = "inline"  # the private /start the results' button opens


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
    await at_once.answer_inline(
        query, results, is_personal=personal, cache_time=cache, button=button
    )


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
    """The sender's running games, each with its score as a message to share."""
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
