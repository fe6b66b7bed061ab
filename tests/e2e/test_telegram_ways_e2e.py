"""End-to-end through the fake Bot API: Telegram's own ways in, in Russian and English — the
command menus per scope and language, /help's topics editing one message, the greeting when the
bot is added to a group (`my_chat_member`), the private /start with its "add to a group" button
and a game's deep link, and the inline mode answered with `answerInlineQuery`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.fake_telegram import (
    ANNA,
    BORIS,
    BOT_USER,
    CLARA,
    DMITRY,
    Chat,
    private_chat,
)
from tests.e2e.harness import BotProcess, Member, contains

pytestmark = pytest.mark.asyncio(loop_scope="module")  # one bot process for the module

RU_GROUP = Chat(-1001500000271, "supergroup", "Пулька по пятницам")
EN_GROUP = Chat(-1001500000272, "supergroup", "Friday preferans")
GAME_GROUP = Chat(-1001500000273, "supergroup", "Game night")
BOT = str(BOT_USER["username"])


def texts_of(answer: dict[str, Any]) -> list[str]:
    return [str(r["input_message_content"]["message_text"]) for r in answer["results"]]


async def test_the_menus_are_set_per_scope_and_language(shared_bot: BotProcess) -> None:
    commands = shared_bot.server.commands
    for scope in ("all_group_chats", "all_private_chats"):
        assert {lang for s, lang in commands if s == scope} == {"ru", "en", ""}
    group = [c["command"] for c in commands["all_group_chats", "ru"]]
    assert group[:4] == ["newgame", "join", "leave", "deal"] and "start" not in group
    private = [c["command"] for c in commands["all_private_chats", "en"]]
    assert private[:4] == ["start", "games", "me", "calc"] and "deal" not in private
    assert commands["all_group_chats", "ru"][0]["description"].startswith("открыть пульку")


@pytest.mark.parametrize(
    ("chat", "user", "hello", "how"),
    [
        (EN_GROUP, CLARA, "Hello! I keep the score", "▶️ How to start"),
        (RU_GROUP, ANNA, "Привет! Я веду запись", "▶️ Как начать"),
    ],
)
async def test_added_to_a_group_the_bot_greets_in_three_lines_with_how_to_start(
    shared_bot: BotProcess, chat: Chat, user: Any, hello: str, how: str
) -> None:
    server = shared_bot.server
    since = server.cursor(chat)
    server.add_bot(chat, user, "administrator" if chat is RU_GROUP else "member")
    member = Member(shared_bot, chat, user)
    greeting = await member.wait(contains(hello), since=since)
    assert greeting.text.count("\n") == 2
    await member.press(greeting, how, contains("/newgame", "/deal"))  # the recording topic
    shown = server.message(chat, greeting.message_id)
    assert shown["text"].startswith("📝")


@pytest.mark.parametrize(
    ("chat", "user", "lang", "topics", "back"),
    [
        (EN_GROUP, CLARA, "en", ("✏️ Corrections", "💰 Settlement"), "◀ Back"),
        (RU_GROUP, ANNA, "ru", ("✏️ Исправления", "💰 Расчёт"), "◀ Назад"),
    ],
)
async def test_help_topics_edit_the_same_message_and_come_back(
    shared_bot: BotProcess, chat: Chat, user: Any, lang: str, topics: tuple[str, str], back: str
) -> None:
    member = Member(shared_bot, chat, user)
    await member.say(f"/lang {lang}", contains("English" if lang == "en" else "по-русски"))
    home = await member.say("/help", contains("/newgame"))
    assert home.text.count("\n") <= 4
    server = shared_bot.server
    since = server.cursor(chat)
    for label in topics:
        await member.press(home, label)
        assert server.message(chat, home.message_id)["text"] != home.text
        await member.press(home, back)
        assert server.message(chat, home.message_id)["text"] == home.text
    await server.wait_idle()
    assert all(sent.is_edit for sent in server.sent[chat.id][since:])  # no new message


@pytest.mark.parametrize(
    ("user", "query", "first", "sochi"),
    [
        (CLARA, "7♠ -1 vist pass", "Every convention", "Sochi: Declarer −50.7 · Whister +33.3"),
        (ANNA, "7п -1 вист пас", "Все договорённости", "Сочи: Играющий −50,7 · Вистующий +33,3"),
    ],
)
async def test_an_inline_deal_is_answered_with_its_price_under_every_convention(
    shared_bot: BotProcess, user: Any, query: str, first: str, sochi: str
) -> None:
    server = shared_bot.server
    answer = await server.wait_for_inline_answer(server.inline_query(user, query))
    titles = [r["title"] for r in answer["results"]]
    assert titles[0] == f"💰 {first}" and len(titles) == 6
    assert sochi in texts_of(answer)[0]
    assert any("гора +4" in t or "mountain +4" in t for t in texts_of(answer)[1:2])
    assert answer["button"]["start_parameter"] == "inline"
    content = answer["results"][0]["input_message_content"]
    assert content["parse_mode"] == "HTML"  # the bold heading is bold, not "<b>"
    shared_bot.assert_alive()


async def test_bot_alone_offers_the_senders_games_whose_link_opens_them_for_players_only(
    shared_bot: BotProcess,
) -> None:
    server = shared_bot.server
    server.add_chat(GAME_GROUP)
    anna = Member(shared_bot, GAME_GROUP, ANNA)
    await anna.say("/lang en", contains("English"))
    await anna.say("/newgame sochi pool 10", contains("Game #1"))
    for user in (ANNA, BORIS, CLARA):
        await Member(shared_bot, GAME_GROUP, user).say("/join", contains(user.first_name))
    await anna.say("/deal Anna 6♠ = vist:Boris pass:Clara", contains("#1"))
    answer = await server.wait_for_inline_answer(server.inline_query(CLARA, ""))
    [game] = answer["results"]
    assert game["title"] == f"Game #1 · {GAME_GROUP.title}"
    assert answer["is_personal"] is True
    [[button]] = game["reply_markup"]["inline_keyboard"]
    link = f"https://t.me/{BOT}?start=game_{GAME_GROUP.id}_1"
    assert button["url"] == link
    clara = Member(shared_bot, private_chat(CLARA), CLARA)
    since = server.cursor(private_chat(CLARA))
    shown = await clara.say(f"/start game_{GAME_GROUP.id}_1", contains("Game #1", "Anna: +"))
    assert shown.reply_markup is None  # no Mini App configured: no live sheet button
    assert server.sent[CLARA.id][since].is_photo  # the sheet first, as the group sees it
    russian = await server.wait_for_inline_answer(server.inline_query(BORIS, ""))
    assert [r["title"] for r in russian["results"]] == [f"Пулька #1 · {GAME_GROUP.title}"]
    dmitry = Member(shared_bot, private_chat(DMITRY), DMITRY)
    refused = await dmitry.say(f"/start game_{GAME_GROUP.id}_1", contains("🔒"))
    assert "Anna" not in refused.text
    nothing = await server.wait_for_inline_answer(server.inline_query(DMITRY, ""))
    assert [r["title"] for r in nothing["results"]] == ["У вас нет идущих пулек"]


async def test_the_private_start_has_an_add_to_a_group_button(shared_bot: BotProcess) -> None:
    clara = Member(shared_bot, private_chat(CLARA), CLARA)
    start = await clara.say("/start", contains("Hello!"))
    assert start.button("➕ Add to a group")["url"] == f"https://t.me/{BOT}?startgroup=added"
    anna = Member(shared_bot, private_chat(ANNA), ANNA)
    start = await anna.say("/start", contains("Привет!"))
    assert start.button("➕ Добавить в группу")["url"] == f"https://t.me/{BOT}?startgroup=added"
