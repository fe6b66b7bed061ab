"""Seats named at once (notation.md "Players"): `Name=@username` names and links a seat in one
go, an `@username` seat answers to its handle at once, and "✋ This is me" under the opened game
links a seat to the account that presses it — only the account with that username."""

from __future__ import annotations

from typing import Any

from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, TelegramMethod
from aiogram.types import InlineKeyboardMarkup

from bot.core import Core, looks
from bot.core.newgame import parse_newgame
from bot.core.state import Player
from bot.telegram.keyboards import ClaimCb
from scoring.notation import Table, format_record, parse_record
from tests.bot.factories import ANNA, ChatDriver, TgUser

MISHA = TgUser(2001, "Миша", "misha_k", "ru")
GRISHA = TgUser(2002, "Гриша Иванов", "grig77", "ru")
TANYA = TgUser(2003, "Таня", "tanya_v", "ru")
MALLORY = TgUser(2004, "Mallory", "mallory_x", "en")


def claim_buttons(answer: list[TelegramMethod[Any]]) -> dict[str, ClaimCb]:
    """The "✋ This is me" buttons of the last message or edit in `answer`, by their text."""
    for request in reversed(answer):
        if isinstance(request, SendMessage | EditMessageText):
            markup = request.reply_markup
            if not isinstance(markup, InlineKeyboardMarkup):
                return {}
            return {
                b.text: ClaimCb.unpack(b.callback_data or "")
                for row in markup.inline_keyboard
                for b in row
                if (b.callback_data or "").startswith("me:")
            }
    return {}


def toast(answer: list[TelegramMethod[Any]]) -> str:
    answers = [r for r in answer if isinstance(r, AnswerCallbackQuery)]
    assert len(answers) == 1, answer
    return answers[0].text or ""


def opening_id(chat: ChatDriver) -> int:
    """The id of the bot's last message in the chat (the opening, right after /newgame)."""
    return chat.bot.session.message_ids[chat.chat_id]


def test_name_equals_username_seats_a_named_player_held_by_that_account() -> None:
    spec = parse_newgame("sochi Миша=@misha_k Гриша=@grig77 Таня", Player("Аня", 1, "anya"))
    assert spec.players == [
        Player("Миша", None, "misha_k"),
        Player("Гриша", None, "grig77"),
        Player("Таня"),
    ]


async def test_newgame_issue_example_names_and_links_in_one_go(
    chat: ChatDriver, game: Core
) -> None:
    """issue 27, Deliver 3: `/newgame sochi Миша=@misha_k Гриша=@grig77 Таня`."""
    opened = await chat.say(MISHA, "/newgame sochi Миша=@misha_k Гриша=@grig77 Таня")
    assert "Миша (@misha_k)" in opened and "Гриша (@grig77)" in opened
    recorded = await chat.say(GRISHA, "/deal Миша 6п = вист:Гриша пас:Таня")
    assert "Нет такого игрока" not in recorded
    state = (await looks.snapshot(game, chat.chat_id)).state
    assert state.names == ("Миша", "Гриша", "Таня")
    assert state.players[1].user_id == GRISHA.id  # linked by acting, the given name kept
    assert len(state.records) == 1


async def test_a_username_seat_answers_to_its_handle_before_its_owner_speaks(
    chat: ChatDriver, game: Core
) -> None:
    await chat.send(MISHA, "/newgame sochi @misha_k @grig77 @tanya_v")
    answer = await chat.say(MISHA, "/deal @misha_k 6п = вист:@grig77 пас:tanya_v")
    assert "Нет такого игрока" not in answer
    assert len((await looks.snapshot(game, chat.chat_id)).state.records) == 1


async def test_this_is_me_links_the_seat_with_the_first_name_at_once(
    chat: ChatDriver, game: Core
) -> None:
    """The issue's example: after the press, `/deal Миша 6п = вист:Гриша пас:Таня` is read."""
    answer = await chat.send(MISHA, "/newgame sochi @misha_k @grig77 @tanya_v")
    message_id = opening_id(chat)
    buttons = claim_buttons(answer)
    assert set(buttons) == {"✋ Это я: @misha_k", "✋ Это я: @grig77", "✋ Это я: @tanya_v"}
    pressed = await chat.press(GRISHA, buttons["✋ Это я: @grig77"], message_id)
    assert toast(pressed) == "Гриша, это место ваше."
    edits = [r for r in pressed if isinstance(r, EditMessageText)]
    assert len(edits) == 1 and "Гриша (@grig77)" in edits[0].text
    assert set(claim_buttons(pressed)) == {"✋ Это я: @misha_k", "✋ Это я: @tanya_v"}
    await chat.press(MISHA, buttons["✋ Это я: @misha_k"], message_id)
    await chat.press(TANYA, buttons["✋ Это я: @tanya_v"], message_id)
    answer = await chat.send(MISHA, "/deal Миша 6п = вист:Гриша пас:Таня")
    state = (await looks.snapshot(game, chat.chat_id)).state
    assert state.names == ("Миша", "Гриша", "Таня")
    assert len(state.records) == 1
    assert claim_buttons(answer) == {}


async def test_this_is_me_pressed_by_another_account_changes_nothing(
    chat: ChatDriver, game: Core
) -> None:
    answer = await chat.send(ANNA, "/newgame sochi me @grig77 @tanya_v")
    message_id = opening_id(chat)
    button = claim_buttons(answer)["✋ This is me: @grig77"]
    refused = await chat.press(MALLORY, button, message_id)
    assert "only that account" in toast(refused) and "@grig77" in toast(refused)
    assert not [r for r in refused if isinstance(r, EditMessageText)]
    state = (await looks.snapshot(game, chat.chat_id)).state
    assert state.players[1] == Player("grig77", None, "grig77")


async def test_this_is_me_with_forged_data_is_checked_against_the_log(
    chat: ChatDriver, game: Core
) -> None:
    await chat.send(ANNA, "/newgame sochi me @grig77 @tanya_v")
    message_id = opening_id(chat)
    state = (await looks.snapshot(game, chat.chat_id)).state
    other_game = await chat.press(GRISHA, ClaimCb(game=state.game_id + 7, seat=1), message_id)
    assert "out of date" in toast(other_game)
    no_seat = await chat.press(GRISHA, ClaimCb(game=state.game_id, seat=9), message_id)
    assert "out of date" in toast(no_seat)
    anna_seat = await chat.press(GRISHA, ClaimCb(game=state.game_id, seat=0), message_id)
    assert "taken" in toast(anna_seat) and "Anna" in toast(anna_seat)
    assert (await looks.snapshot(game, chat.chat_id)).state.players[1].user_id is None


async def test_this_is_me_in_a_forming_game_keeps_the_join_button(chat: ChatDriver) -> None:
    answer = await chat.send(ANNA, "/newgame sochi me Гриша=@grig77")
    message_id = opening_id(chat)
    buttons = claim_buttons(answer)
    assert set(buttons) == {"✋ This is me: @grig77"}
    pressed = await chat.press(GRISHA, buttons["✋ This is me: @grig77"], message_id)
    assert toast(pressed) == "Гриша, this seat is yours."
    edit = next(r for r in pressed if isinstance(r, EditMessageText))
    assert isinstance(edit.reply_markup, InlineKeyboardMarkup)
    assert [b.text for row in edit.reply_markup.inline_keyboard for b in row] == ["✋ Join"]


def test_a_line_with_named_seats_round_trips() -> None:
    """notation.md: what the bot prints parses back to the same deal."""
    names = ("Миша", "Гриша", "Таня")
    table = Table(names, ("misha_k", "grig77", None))
    record = parse_record("@misha_k 6п = вист:@grig77 пас:Таня", table)
    printed = format_record(record, names, lang="ru")
    assert parse_record(printed, table) == record


def test_name_equals_me_seats_the_sender_under_the_name_he_gives() -> None:
    spec = parse_newgame("sochi Саша=я Гриша=@grig77 Таня", Player("Alexander", 1, "sasha_k"))
    assert spec.players[0] == Player("Саша", 1, "sasha_k")


async def test_one_username_for_two_seats_is_refused(chat: ChatDriver, game: Core) -> None:
    refused = await chat.say(ANNA, "/newgame sochi Миша=@misha_k Гриша=@misha_k Таня")
    assert "already a player" in refused and "@misha_k" in refused
    refused = await chat.say(ANNA, "/newgame sochi Миша=@mi Таня Гриша")
    assert "@mi" in refused


async def test_an_opener_named_seat_keeps_its_name_when_its_account_presses(
    chat: ChatDriver, game: Core
) -> None:
    answer = await chat.send(ANNA, "/newgame sochi me Гришка=@grig77 Таня")
    button = claim_buttons(answer)["✋ This is me: @grig77"]
    pressed = await chat.press(GRISHA, button, opening_id(chat))
    assert toast(pressed) == "Гришка, this seat is yours."
    state = (await looks.snapshot(game, chat.chat_id)).state
    assert state.players[1] == Player("Гришка", GRISHA.id, "grig77")
