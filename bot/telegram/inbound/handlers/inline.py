"""The inline mode: a deal priced under every convention, or the sender's games to share."""

from __future__ import annotations

import hashlib
from typing import Final

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
from bot.texts.i18n import Translator
from bot.texts.score import (
    all_prices_text,
    game_description,
    game_title,
    price_text,
    price_title,
    score_text,
    seat_names,
)
from bot.texts.views import chunks, error_text
from scoring.errors import ScoringError
from scoring.pricing import price_deal

router = Router(name=__name__)

DEAL_CACHE: Final = 300  # seconds: a deal's price is the same for everybody
GAMES_CACHE: Final = 5  # seconds: a running game moves on
START_PAYLOAD: Final = "inline"  # the private /start the results' button opens


def _id(*parts: object) -> str:
    """A result id within Telegram's 64 bytes, the same for the same result."""
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()


def _article(id_: str, title: str, description: str, text: str) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=id_,
        title=title[:256],
        description=description[:512],
        input_message_content=InputTextMessageContent(message_text=text),
    )


@router.inline_query()
async def inline_query(query: InlineQuery, ctx: Ctx, bot: Bot) -> None:
    t = ctx.t
    text = query.query.strip()
    button = InlineQueryResultsButton(text=t.template("inline-how"), start_parameter=START_PAYLOAD)
    if not text:
        await at_once.answer_inline(
            query,
            await _games(query, ctx, bot),
            personal=True,
            cache_time=GAMES_CACHE,
            button=button,
        )
        return
    await at_once.answer_inline(
        query, _priced(text, t), personal=False, cache_time=DEAL_CACHE, button=button
    )


def _priced(text: str, t: Translator) -> list[InlineQueryResultArticle]:
    """Every convention's cost first, then one result per convention with its entries."""
    try:
        priced = price_deal(text, t.lang)
    except ScoringError as error:
        shown = error_text(t, error)
        return [
            _article(
                _id("error", t.lang, text),
                t.template("inline-not-understood"),
                t.template("inline-example").format(example=t.template("inline-example-deal")),
                shown,
            )
        ]
    names = seat_names(t, priced)
    results = [
        _article(
            _id("all", t.lang, text),
            t.template("inline-all-title"),
            " · ".join(price_title(t, names, p) for p in priced.prices[:2]) + " …",
            all_prices_text(t, text, names, priced),
        )
    ]
    for price in priced.prices:
        results.append(
            _article(
                _id(price.convention, t.lang, text),
                price_title(t, names, price),
                t.template("inline-one-description"),
                price_text(t, text, names, price),
            )
        )
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
        article = _article(
            _id("game", t.lang, state.game_id, state.last_seq),
            game_title(t, state, chat),
            game_description(t, state, settlement),
            text,
        )
        article.reply_markup = game_link_keyboard(t, username, state.chat_id, state.number)
        results.append(article)
    if not results:
        results.append(
            _article(
                _id("none", t.lang),
                t.template("inline-no-games"),
                t.template("inline-example").format(example=t.template("inline-example-deal")),
                t("inline-usage", bot=username),
            )
        )
    return results
