"""`/calc` through the real dispatcher with a mocked Bot (issue 16): a paper sheet settled in one
message or step by step, in a group or a private chat; it keeps nothing and leaves a running game be."""

from __future__ import annotations

import html
from typing import Any

import pytest
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.types import InlineKeyboardMarkup

from bot.storage import SqliteStore
from bot.telegram.inbound.handlers.calc import CalcAct, CalcCb, CalcStep
from bot.telegram.keyboards import HelpCb
from bot.texts.help import Topic
from bot.texts.i18n import translator
from tests.bot.factories import ANNA, BORIS, START, ChatDriver, TgUser, texts
from tests.bot.mocked_bot import BOT_USER
from tests.bot.test_bad_input import count_events, started_game

E3 = (
    "/calc sochi pool 10 stake 0.1\n"
    "Anna pool 10 mountain 14 whists Boris 30 Clara 16\n"
    "Boris pool 10 mountain 20 whists Anna 10 Clara 24\n"
    "Clara pool 6 mountain 4 whists Anna 40 Boris 8"
)
E3_RU = (
    "/calc сочи пуля 10 ставка 0,1\n"
    "Анна пуля 10 гора 14 висты Борис 30 Клара 16\n"
    "Борис пуля 10 гора 20 висты Анна 10 Клара 24\n"
    "Клара пуля 6 гора 4 висты Анна 40 Борис 8"
)


def private(chat: ChatDriver, user: TgUser) -> ChatDriver:
    return ChatDriver(chat.dispatcher, chat.bot, chat_id=user.id, chat_type="private")


def toast(requests: list[TelegramMethod[Any]]) -> str:
    answers = [r for r in requests if isinstance(r, AnswerCallbackQuery)]
    assert len(answers) == 1, requests
    return answers[0].text or ""


def keyboard_of(request: TelegramMethod[Any]) -> list[str]:
    markup = getattr(request, "reply_markup", None)
    assert isinstance(markup, InlineKeyboardMarkup)
    return [button.text for row in markup.inline_keyboard for button in row]


def reply_to(chat: ChatDriver, message_id: int) -> dict[str, Any]:
    """`reply_to_message` of a user's reply to the bot's message `message_id`."""
    return {
        "reply_to_message": {
            "message_id": message_id,
            "date": int(START.timestamp()),
            "chat": chat.chat(),
            "from": BOT_USER,
            "text": "…",
        }
    }


def last_id(chat: ChatDriver) -> int:
    return chat.bot.session.message_ids[chat.chat_id]


async def test_one_message_in_a_group_gives_balances_money_and_payments(
    chat: ChatDriver, store: SqliteStore
) -> None:
    """settlement.md E3 with a stake of 0.1: A −4, B −64, C +68 whists; money −0.40, −6.40, +6.80."""
    requests = await chat.send(ANNA, E3)
    photos = [r for r in requests if isinstance(r, SendPhoto)]
    assert len(photos) == 1  # the sheet as written, with the answer as its caption
    answer = texts(requests)
    assert "Anna: −4 · money −0.40" in answer
    assert "Boris: −64 · money −6.40" in answer
    assert "Clara: +68 · money +6.80" in answer
    assert "Boris → Clara: 6.40 (64 whists)" in answer
    assert "Anna → Clara: 0.40 (4 whists)" in answer
    assert "Clara — pool 6, mountain 4" in answer
    assert await count_events(store) == 0


async def test_one_message_in_a_private_chat_and_in_russian(chat: ChatDriver) -> None:
    room = private(chat, BORIS)
    assert "Clara: +68 · money +6.80" in await room.say(BORIS, E3)
    await room.send(BORIS, "/lang ru")
    answer = await room.say(BORIS, E3_RU)
    assert "Клара: +68 · деньги +6,80" in answer
    assert "Борис → Клара: 6,40 (64 виста)" in answer


async def test_calc_works_beside_a_running_game_and_changes_nothing_of_it(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await started_game(chat)
    before = await count_events(store)
    score = await chat.say(ANNA, "/score")
    answer = await chat.say(BORIS, E3)
    assert "Anna: −4 · money −0.40" in answer
    assert await count_events(store) == before
    assert await chat.say(ANNA, "/score") == score


# A malformed sheet, the part at fault as the reply must quote it, and the line it is on.
MALFORMED: tuple[tuple[str, str, str, str], ...] = (
    ("/calc sochi\nAnna pool -3\nBoris\nClara", "calc-negative", "-3", "Anna pool -3"),
    ("/calc\nAnna whists Anna 5\nBoris\nClara", "calc-whists-self", "Anna", "Anna whists Anna 5"),
    ("/calc\nAnna whists Zed 5\nBoris\nClara", "calc-unknown-name", "Zed", "Anna whists Zed 5"),
    ("/calc\nA\nB\nC\nD\nE", "calc-player-count", "E", "E"),
    ("/calc\nAnna\nBoris\nanna", "calc-same-name", "anna", "anna"),
    ("/calc sochy\nA\nB\nC", "calc-unknown-word", "sochy", "sochy"),
    ("/calc sochi pool ten\nA\nB\nC", "calc-bad-number", "ten", "sochi pool ten"),
    ("/calc sochi stake 1/2\nA\nB\nC", "calc-bad-number", "1/2", "sochi stake 1/2"),
    ("/calc\nAnna mountain lots\nB\nC", "calc-bad-number", "lots", "Anna mountain lots"),
    ("/calc\nAnna hill 3\nB\nC", "calc-unknown-word", "hill", "Anna hill 3"),
    ("/calc whist_split=nice\nA\nB\nC", "bad-option-value", "nice", "whist_split=nice"),
    ("/calc\nAnna\nBoris", "calc-player-count", "", ""),
)


@pytest.mark.parametrize(("text", "code", "span", "line"), MALFORMED)
async def test_a_malformed_sheet_is_answered_with_the_part_at_fault_and_an_example(
    chat: ChatDriver, store: SqliteStore, text: str, code: str, span: str, line: str
) -> None:
    answer = await chat.say(ANNA, text)
    t = translator("en")
    assert t.template(f"error-{code}").split("{")[0] in answer
    if span:
        assert f"At fault: <code>{html.escape(span)}</code>" in answer
    if line:
        assert f"<code>{html.escape(line)}</code>" in answer.split("\n")[0]
    assert "For example: <code>" in answer
    assert await count_events(store) == 0


class Steps:
    """The step messages of one /calc: presses go to the latest prompt."""

    def __init__(self, chat: ChatDriver) -> None:
        self.chat = chat
        self.prompt = 0

    async def start(self, user: TgUser) -> list[TelegramMethod[Any]]:
        sent = await self.chat.send(user, "/calc")
        self.prompt = last_id(self.chat)
        return sent

    async def press(
        self, user: TgUser, step: CalcStep, v: str = "", act: CalcAct = CalcAct.PICK
    ) -> list[TelegramMethod[Any]]:
        data = CalcCb(owner=ANNA.id, step=step, act=act, v=v)
        return await self.chat.press(user, data, self.prompt)

    async def reply(self, user: TgUser, text: str) -> list[TelegramMethod[Any]]:
        sent = await self.chat.send(user, text, **reply_to(self.chat, self.prompt))
        if any(isinstance(r, SendMessage) and r.reply_markup for r in sent):
            self.prompt = last_id(self.chat)
        return sent


async def test_step_by_step_asks_with_buttons_and_prompts_and_answers_as_one_message(
    chat: ChatDriver, store: SqliteStore
) -> None:
    steps = Steps(chat)
    opened = await steps.start(ANNA)
    assert "Which convention?" in texts(opened)
    assert "Sochi" in keyboard_of(opened[0]) and "✖️ Cancel" in keyboard_of(opened[0])
    edited = await steps.press(ANNA, CalcStep.CONVENTION, "sochi")
    assert any(isinstance(r, EditMessageText) and "How many players" in r.text for r in edited)
    await steps.press(ANNA, CalcStep.PLAYERS, "3")
    pool = await steps.press(ANNA, CalcStep.POOL, "10")
    assert "Reply to this message" in texts(pool)
    first = await steps.reply(ANNA, "Anna Boris Clara")
    assert "Anna</b> (1 of 3)" in texts(first)
    second = await steps.reply(ANNA, "pool 10 mountain 14 whists Boris 30 Clara 16")
    assert "Boris</b> (2 of 3)" in texts(second)
    await steps.reply(ANNA, "Boris pool 10 mountain 20 whists Anna 10 Clara 24")
    answer = texts(await steps.reply(ANNA, "пуля 6 гора 4 висты Anna 40 Boris 8"))
    assert "Anna: −4" in answer and "Boris: −64" in answer and "Clara: +68" in answer
    assert "Boris → Clara: 64 whists" in answer
    assert "Clara pool 6 mountain 4 whists Anna 40 Boris 8" in answer  # the one-message form
    assert await count_events(store) == 0
    late = await steps.reply(ANNA, "pool 1")  # the steps are over: nothing answers
    assert late == []


async def test_only_the_opener_answers_the_steps(chat: ChatDriver) -> None:
    steps = Steps(chat)
    await steps.start(ANNA)
    refused = await steps.press(BORIS, CalcStep.CONVENTION, "sochi")
    assert "Only Anna answers this /calc" in toast(refused)
    assert not any(isinstance(r, EditMessageText) for r in refused)
    await steps.press(ANNA, CalcStep.CONVENTION, "leningrad")
    await steps.press(ANNA, CalcStep.PLAYERS, "3")
    await steps.press(ANNA, CalcStep.POOL, "20")
    assert await steps.reply(BORIS, "Boris Anna Clara") == []  # another's reply is not taken
    hint = await chat.send(ANNA, "Anna Boris Clara")  # in a group, only a reply counts
    assert "reply to my question" in texts(hint) and len(hint) == 1
    asked = await steps.reply(ANNA, "Anna Boris Clara")
    assert "Anna</b> (1 of 3)" in texts(asked)


async def test_back_goes_one_step_back_and_cancel_forgets_the_steps(chat: ChatDriver) -> None:
    steps = Steps(chat)
    await steps.start(ANNA)
    await steps.press(ANNA, CalcStep.CONVENTION, "odessa")
    await steps.press(ANNA, CalcStep.PLAYERS, "4")
    back = await steps.press(ANNA, CalcStep.POOL, act=CalcAct.BACK)
    assert "How many players?" in texts(back)
    stale = await steps.press(ANNA, CalcStep.POOL, "40")  # that step is gone
    assert "over or has moved on" in toast(stale)
    await steps.press(ANNA, CalcStep.PLAYERS, "3")
    pool = await steps.press(ANNA, CalcStep.POOL, "40")
    assert "Odessa, pool 40" in texts(pool)
    await steps.reply(ANNA, "Anna Boris Clara")
    await steps.reply(ANNA, "mountain 3")
    back = await steps.press(ANNA, CalcStep.PLAYER, act=CalcAct.BACK)
    assert "Anna</b> (1 of 3)" in texts(back)
    cancelled = await steps.press(ANNA, CalcStep.PLAYER, act=CalcAct.CANCEL)
    assert "cancelled" in texts(cancelled)
    assert await steps.reply(ANNA, "mountain 5") == []


async def test_wrong_names_or_numbers_in_the_steps_are_asked_again(chat: ChatDriver) -> None:
    room = private(chat, ANNA)
    steps = Steps(room)
    await steps.start(ANNA)
    await steps.press(ANNA, CalcStep.CONVENTION, "sochi")
    await steps.press(ANNA, CalcStep.PLAYERS, "3")
    await steps.press(ANNA, CalcStep.POOL, "20")
    assert "I need 3 different names" in texts(await room.send(ANNA, "Anna Anna Clara"))
    assert "(1 of 3)" in texts(await room.send(ANNA, "Anna Boris Clara"))  # private: no reply
    wrong = texts(await room.send(ANNA, "whists Zed 3"))
    assert "At fault: <code>Zed</code>" in wrong
    assert "(2 of 3)" in texts(await room.send(ANNA, "whists Boris 3"))


async def test_a_group_answer_that_is_no_reply_gets_a_one_line_hint_and_talk_is_left_alone(
    chat: ChatDriver,
) -> None:
    await chat.send(ANNA, "/lang ru")
    steps = Steps(chat)
    await steps.start(ANNA)
    await steps.press(ANNA, CalcStep.CONVENTION, "sochi")
    await steps.press(ANNA, CalcStep.PLAYERS, "3")
    await steps.press(ANNA, CalcStep.POOL, "10")
    hint = texts(await chat.send(ANNA, "Оля, Боря, Вова"))
    assert hint.count("\n") == 0 and "ответьте на мой вопрос" in hint
    assert await chat.send(ANNA, "сейчас посчитаем") == []  # talk is not an answer
    asked = texts(await steps.reply(ANNA, "Оля, Боря, Вова"))
    assert "Оля</b> (1 из 3)" in asked
    hint = texts(await chat.send(ANNA, "гора 42, висты: Боря 170, Вова 60"))
    assert "ответьте на мой вопрос" in hint
    await steps.reply(ANNA, "гора 42, висты: Боря 170, Вова 60")
    await steps.reply(ANNA, "гора 96; висты на Олю 64 и на Вову 178")
    answer = texts(await steps.reply(ANNA, "гора 132, висты: на Олю 88, на Борю 95"))
    plain = await chat.say(
        ANNA,
        "/calc сочи\nОля гора 42 висты Боря 170 Вова 60\nБоря гора 96 висты Оля 64 Вова 178\n"
        "Вова гора 132 висты Оля 88 Боря 95",
    )
    balances = answer.split("\n\n")[1]
    assert "Оля:" in balances and balances in plain  # read aloud, settled as written plainly


def test_calc_buttons_fit_telegrams_64_bytes() -> None:
    data = CalcCb(owner=9_999_999_999, step=CalcStep.CONVENTION, act=CalcAct.PICK, v="leningrad")
    assert len(data.pack().encode()) <= 64


async def test_help_shows_calc_under_settlement(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/help")
    topic = await chat.press(ANNA, HelpCb(topic=Topic.SETTLEMENT), last_id(chat))
    assert "/calc" in texts(topic)
