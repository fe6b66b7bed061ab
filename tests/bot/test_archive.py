"""The archive through the real dispatcher: /games a page at a time with ◀ ▶ (a chat's games;
in a private chat an account's in every chat), /game N, and /sheet N, /history N, /export N for
any game of the chat. Buttons are never trusted: a page is kept within the list, a game number is
looked up in the pressing chat only."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    SendDocument,
    SendMessage,
    SendPhoto,
)
from aiogram.types import InlineKeyboardMarkup

from bot.telegram.inbound.handlers.view import GameAct, GameCb, GamesCb
from tests.bot.archive_games import balance_lines, short_game
from tests.bot.factories import ANNA, BORIS, DMITRY, ChatDriver, FakeClock, texts


def keyboard_of(requests: list[object]) -> InlineKeyboardMarkup | None:
    for request in reversed(requests):
        markup = getattr(request, "reply_markup", None)
        if isinstance(markup, InlineKeyboardMarkup):
            return markup
    return None


async def test_games_lists_the_chats_games_newest_first_with_their_final_balances(
    chat: ChatDriver,
) -> None:
    scores = [await short_game(chat, which) for which in ("a", "b", "c")]
    await chat.send(ANNA, "/newgame sochi pool 10 me @boris_p @clara_p")
    listing = await chat.say(DMITRY, "/games")  # anyone in the chat may look
    lines = [line for line in listing.splitlines() if line.startswith("<b>#")]
    assert [line.split("</b>")[0] for line in lines] == ["<b>#4", "<b>#3", "<b>#2", "<b>#1"]
    assert "playing: Anna, boris_p, clara_p" in lines[0]
    for line, score in zip(reversed(lines[1:]), scores, strict=True):
        for name, value in balance_lines(score).items():
            assert f"{name} {value}" in line, (line, score)
        deals = re.search(r"\(ended\), (\d+) deals", score)
        assert deals is not None and f"· {deals.group(1)} deals: " in line
        assert "Sochi" in line and "2026-01-01" in line


async def test_the_list_pages_ten_at_a_time_and_the_buttons_page_it_in_place(
    chat: ChatDriver,
) -> None:
    for _ in range(12):
        await chat.send(ANNA, "/newgame sochi pool 2")
        await chat.send(ANNA, "/endgame")  # cancelled before its start, listed all the same
    first = await chat.send(ANNA, "/games")
    text = texts(first)
    assert "(12), page 1 of 2" in text and "#12" in text and "#3" in text and "#2 " not in text
    keyboard = keyboard_of(first)
    assert keyboard is not None
    (only,) = keyboard.inline_keyboard[0]
    assert only.text == "2 ▶" and GamesCb.unpack(only.callback_data or "").page == 1
    message_id = chat.bot.session.message_ids[chat.chat_id]  # the list's message
    pressed = await chat.press(BORIS, GamesCb(page=1), message_id=message_id)
    edit = next(r for r in pressed if isinstance(r, EditMessageText))
    assert "page 2 of 2" in edit.text and "#2" in edit.text and "#1" in edit.text
    assert "cancelled" in edit.text
    toast = next(r for r in pressed if isinstance(r, AnswerCallbackQuery))
    assert toast.text == "Page 2 of 2" and edit.message_id == message_id
    forged = await chat.press(BORIS, GamesCb(page=99), message_id=message_id)
    assert "page 2 of 2" in next(r for r in forged if isinstance(r, EditMessageText)).text


async def test_game_n_shows_its_sheet_and_score_with_history_and_export_buttons(
    chat: ChatDriver,
) -> None:
    await short_game(chat, "a")
    second = await short_game(chat, "b")
    answer = await chat.send(DMITRY, "/game 2")
    photo, score = answer[0], answer[-1]
    assert isinstance(photo, SendPhoto) and "Game #2 (ended), 4 deals" in (photo.caption or "")
    assert isinstance(score, SendMessage)
    assert balance_lines(score.text) == balance_lines(second)
    keyboard = keyboard_of(answer)
    assert keyboard is not None
    buttons = [GameCb.unpack(b.callback_data or "") for b in keyboard.inline_keyboard[0]]
    assert buttons == [GameCb(game=2, act=GameAct.HISTORY), GameCb(game=2, act=GameAct.EXPORT)]
    message_id = chat.bot.session.message_ids[chat.chat_id]
    history = texts(await chat.press(DMITRY, buttons[0], message_id=message_id))
    assert "Game #2: every event" in history and "7♥ -1" in history
    exported = await chat.press(DMITRY, buttons[1])
    documents = [r for r in exported if isinstance(r, SendDocument)]
    assert (documents[0].caption or "").startswith("📄 Game #2 as a protocol file")
    protocol = documents[0].document.data.decode()  # type: ignore[union-attr]
    assert "# pool: 2" in protocol and protocol.count("6♠ =") == 3


async def test_sheet_history_and_export_take_the_number_of_any_game_of_the_chat(
    chat: ChatDriver,
) -> None:
    await short_game(chat, "a")
    await short_game(chat, "b")
    await chat.send(ANNA, "/newgame sochi pool 10 me @boris_p @clara_p")
    sheet = await chat.send(DMITRY, "/sheet 1")
    assert isinstance(sheet[0], SendPhoto) and "Game #1 (ended)" in (sheet[0].caption or "")
    history = await chat.say(DMITRY, "/history #2")
    assert "Game #2: every event" in history and "7♥ -1" in history
    exported = [r for r in await chat.send(DMITRY, "/export 1") if isinstance(r, SendDocument)]
    assert len(exported) == 2 and "Game #1" in (exported[0].caption or "")
    assert "Game #3: every event" in await chat.say(DMITRY, "/history")  # the live game


async def test_a_game_number_the_chat_does_not_have_is_refused_quoting_it(
    chat: ChatDriver,
) -> None:
    await short_game(chat, "a")
    missing = await chat.say(ANNA, "/game 7")
    assert "no game #7" in missing and "<code>/games</code>" in missing
    bad = await chat.say(ANNA, "/history two")
    assert "by its number" in bad and "<code>/history two</code>" in bad
    assert "<code>/game 1</code>" in bad


async def test_a_button_opens_a_game_of_the_chat_it_is_pressed_in_only(
    chat: ChatDriver,
) -> None:
    """Another chat's History button (or a forged one) names a number: it is looked up here."""
    await short_game(chat, "a")
    other = ChatDriver(chat.dispatcher, chat.bot, chat_id=-100999, title="Other")
    pressed = await other.press(DMITRY, GameCb(game=1, act=GameAct.EXPORT))
    assert not any(isinstance(r, SendDocument) for r in pressed)
    toast = next(r for r in pressed if isinstance(r, AnswerCallbackQuery))
    assert "no game #1" in (toast.text or "")


async def test_a_private_games_lists_every_game_the_account_sat_in_in_every_chat(
    chat: ChatDriver,
) -> None:
    await short_game(chat, "a")
    other = ChatDriver(chat.dispatcher, chat.bot, chat_id=-100999, title="Other table")
    await other.send(BORIS, "/newgame sochi pool 10 me @anna_p Clara")
    await other.send(ANNA, "/score")  # Anna's first act there links her seat
    await other.send(DMITRY, "/newgame leningrad")  # Dmitry's game: Anna does not sit in it
    await other.send(DMITRY, "/endgame")
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=ANNA.id, chat_type="private")
    listing = await private.say(ANNA, "/games")
    assert "Your games</b> (2)" in listing
    assert "#1</b> in «Other table»" in listing and "playing: Boris, Anna, Clara" in listing
    assert "#1</b> in «Friday pulka»" in listing and "4 deals: Anna" in listing
    boris = ChatDriver(chat.dispatcher, chat.bot, chat_id=BORIS.id, chat_type="private")
    assert "Your games</b> (1)" in await boris.say(BORIS, "/games")  # his seat there: unlinked


async def test_dates_are_in_the_chat_s_time_zone(chat: ChatDriver, clock: FakeClock) -> None:
    clock.now = datetime(2026, 3, 1, 22, 30, tzinfo=UTC)  # 1 March in UTC, 2 March in Moscow
    await short_game(chat, "a")
    assert "#1</b> · 2026-03-01" in await chat.say(ANNA, "/games")
    await chat.send(ANNA, "/tz Europe/Moscow")
    assert "#1</b> · 2026-03-02" in await chat.say(ANNA, "/games")
    await chat.send(ANNA, "/lang ru")
    assert "#1</b> · 02.03.2026 · Сочи · 4 раздачи" in await chat.say(ANNA, "/games")
