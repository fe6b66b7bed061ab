"""Telegram's own ways in, through the real dispatcher: the private /start with its "add to a
group" button and deep links, the greeting when the bot is added to a group (`my_chat_member`),
and the inline mode (`@bot 7♠ -1 vist pass` priced under every convention, `@bot` alone the
sender's games to share), in Russian and English."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from aiogram.methods import AnswerInlineQuery, SendMessage, TelegramMethod
from aiogram.types import InlineKeyboardMarkup, InlineQueryResultArticle, Update

from bot.storage import SqliteStore
from bot.telegram.keyboards import HelpCb
from bot.texts.help import Topic
from tests.bot.factories import (
    ANNA,
    BORIS,
    DMITRY,
    GROUP_ID,
    START,
    ChatDriver,
    TgUser,
    texts,
)
from tests.bot.mocked_bot import BOT_USER
from tests.bot.test_game_flow import count_events, open_game
from tests.e2e.fake_telegram import ADMIN_RIGHTS

RU_ANNA = TgUser(ANNA.id, "Anna", "anna_p", "ru")
_ids = itertools.count(900_000)


def private(chat: ChatDriver, user: TgUser) -> ChatDriver:
    return ChatDriver(chat.dispatcher, chat.bot, chat_id=user.id, chat_type="private")


def buttons(request: Any) -> list[tuple[str, str]]:
    markup = request.reply_markup
    assert isinstance(markup, InlineKeyboardMarkup), request
    return [
        (b.text, b.url or b.callback_data or "") for row in markup.inline_keyboard for b in row
    ]


async def feed(chat: ChatDriver, raw: dict[str, Any]) -> list[TelegramMethod[Any]]:
    update = Update.model_validate({"update_id": next(_ids), **raw}, context={"bot": chat.bot})
    return await chat.feed(update)


async def inline(chat: ChatDriver, user: TgUser, query: str) -> AnswerInlineQuery:
    sent = await feed(
        chat,
        {
            "inline_query": {
                "id": f"iq{next(_ids)}",
                "from": user.raw(),
                "query": query,
                "offset": "",
                "chat_type": "supergroup",
            }
        },
    )
    answers = [r for r in sent if isinstance(r, AnswerInlineQuery)]
    assert len(answers) == 1, sent
    return answers[0]


def articles(answer: AnswerInlineQuery) -> list[InlineQueryResultArticle]:
    found = [r for r in answer.results if isinstance(r, InlineQueryResultArticle)]
    assert len(found) == len(answer.results)
    return found


def message_text(article: InlineQueryResultArticle) -> str:
    return str(getattr(article.input_message_content, "message_text", ""))


async def added(chat: ChatDriver, by: TgUser, status: str = "member") -> list[TelegramMethod[Any]]:
    return await feed(
        chat,
        {
            "my_chat_member": {
                "chat": chat.chat(),
                "from": by.raw(),
                "date": int(START.timestamp()),
                "old_chat_member": {"status": "left", "user": BOT_USER},
                "new_chat_member": {"status": status, "user": BOT_USER}
                if status != "administrator"
                else {"status": "administrator", "user": BOT_USER, **ADMIN_RIGHTS},
            }
        },
    )


# -- /start in private -------------------------------------------------------------------------
async def test_private_start_greets_with_an_add_to_group_button_and_the_open_games(
    chat: ChatDriver,
) -> None:
    await open_game(chat)
    room = private(chat, ANNA)
    sent = await room.send(ANNA, "/start")
    assert len(sent) == 1 and isinstance(sent[0], SendMessage)
    assert "Your open games" in sent[0].text and "Friday pulka" in sent[0].text
    shown = buttons(sent[0])
    assert shown[0] == (
        "➕ Add to a group",
        f"https://t.me/{BOT_USER['username']}?startgroup=added",
    )
    assert shown[1][1] == HelpCb(topic=Topic.HOME).pack()


async def test_a_game_deep_link_shows_the_game_to_its_player_only(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    before = await count_events(store)
    link = f"/start game_{GROUP_ID}_1"
    sent = await private(chat, BORIS).send(BORIS, link)
    assert [type(r).__name__ for r in sent] == ["SendPhoto", "SendMessage"]  # sheet, then score
    shown = texts(sent)
    assert "Game #1</b>, 1 deals" in shown and "Anna: +" in shown
    refused = await private(chat, DMITRY).say(DMITRY, link)  # not a player of it
    assert "only to its players" in refused and "Anna" not in refused
    unknown = await private(chat, BORIS).say(BORIS, f"/start game_{GROUP_ID}_7")
    assert "only to its players" in unknown
    assert await count_events(store) == before  # a look records nothing


async def test_start_inline_explains_the_inline_mode_in_the_users_language(
    chat: ChatDriver,
) -> None:
    answer = await private(chat, RU_ANNA).say(RU_ANNA, "/start inline")
    assert f"@{BOT_USER['username']} 7п -1 вист пас" in answer


# -- added to a group ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("user", "status", "first"),
    [(ANNA, "member", "🃏 Hello!"), (RU_ANNA, "administrator", "🃏 Привет!")],
)
async def test_added_to_a_group_the_bot_greets_in_three_lines_with_how_to_start(
    chat: ChatDriver, user: TgUser, status: str, first: str
) -> None:
    sent = await added(chat, user, status)
    assert len(sent) == 1 and isinstance(sent[0], SendMessage)
    assert sent[0].chat_id == GROUP_ID
    assert sent[0].text.startswith(first) and sent[0].text.count("\n") == 2
    [(_label, data)] = buttons(sent[0])
    assert data == HelpCb(topic=Topic.RECORDING).pack()
    message_id = chat.bot.session.message_ids[GROUP_ID]
    shown = await chat.press(user, HelpCb(topic=Topic.RECORDING), message_id)
    assert any("/newgame" in str(getattr(r, "text", "")) for r in shown)


async def test_a_group_that_chose_its_language_is_greeted_in_it(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/lang ru")
    sent = await added(chat, TgUser(1050, "Kate", language_code="en"))
    assert sent[0].text.startswith("🃏 Привет!")  # type: ignore[attr-defined]


async def test_the_start_of_the_add_to_group_link_is_not_a_second_greeting(
    chat: ChatDriver,
) -> None:
    assert await chat.send(ANNA, "/start added") == []
    assert "/newgame" in await chat.say(ANNA, "/start")


# -- inline mode -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("user", "query", "head", "sochi"),
    [
        (ANNA, "7♠ -1 vist pass", "Every convention", "Sochi: Declarer −50.7 · Whister +33.3"),
        (
            RU_ANNA,
            "7п -1 вист пас",
            "Все договорённости",
            "Сочи: Играющий −50,7 · Вистующий +33,3",
        ),
    ],
)
async def test_an_inline_deal_is_priced_under_every_convention(
    chat: ChatDriver, user: TgUser, query: str, head: str, sochi: str
) -> None:
    """7♠ down one, one whister: Sochi writes the declarer 4 on the mountain (2 × 2, remise
    of a 7), the whister 16 for his tricks and 4 + 4 consolation each; settled, the declarer
    pays 50⅔ whists (conventions.md; the same numbers `/deal` gives)."""
    answer = await inline(chat, user, query)
    results = articles(answer)
    assert results[0].title == f"💰 {head}"
    assert len(results) == 6  # every convention, then one each
    everything = message_text(results[0])
    assert sochi in everything
    assert everything.count("\n") == 6  # the deal, the heading, five conventions
    sochi_alone = message_text(results[1])
    assert ("mountain +4" in sochi_alone) or ("гора +4" in sochi_alone)
    assert not answer.is_personal and answer.cache_time and answer.cache_time > 0


async def test_an_inline_deal_a_convention_forbids_says_so(chat: ChatDriver) -> None:
    answer = await inline(chat, ANNA, "6♠ three_down")
    everything = message_text(articles(answer)[0])
    assert "Odessa: not allowed" in everything and "Sochi: Declarer −40" in everything


async def test_an_unreadable_inline_query_answers_with_the_fault_and_an_example(
    chat: ChatDriver,
) -> None:
    [result] = articles(await inline(chat, ANNA, "7♠ -1 vist pass jump"))
    assert result.title.startswith("❗")
    assert "jump" in message_text(result) and "For example" in message_text(result)


async def test_bot_alone_offers_the_senders_running_games_to_share(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    answer = await inline(chat, BORIS, "")
    [game] = articles(answer)
    assert game.title == "Game #1 · Friday pulka"
    assert "Anna +" in (game.description or "")
    assert "Game #1</b>, 1 deals" in message_text(game)
    [(_label, url)] = buttons(game)
    assert url == f"https://t.me/{BOT_USER['username']}?start=game_{GROUP_ID}_1"
    assert answer.is_personal
    [none] = articles(await inline(chat, DMITRY, ""))  # no game of his
    assert none.title == "You have no running games"


def test_polling_and_the_webhook_ask_telegram_for_inline_queries_and_chat_member_changes(
    chat: ChatDriver,
) -> None:
    """Both take `allowed_updates` from the routers (bot/telegram/polling.py, bot/telegram/webhook.py):
    without these two kinds Telegram would never send the inline queries or the joins."""
    used = set(chat.dispatcher.resolve_used_update_types())
    assert {"message", "callback_query", "inline_query", "my_chat_member"} <= used
