"""Settling up through the real dispatcher: a game's end leaves its transfers as open debts (events
of its log), the "✅ paid" presses of the debtor, the creditor and anyone else, `/paid`, `/debts`
in a group and in private, the private messages at a game's end, and the reminders."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from aiogram.methods import AnswerCallbackQuery, SendMessage, TelegramMethod
from aiogram.types import InlineKeyboardMarkup, Update

from bot.core import Core
from bot.core.events import Kind, Player
from bot.core.ledger import Debt
from bot.storage import SqliteStore
from bot.telegram.keyboards import DEBT_BUTTONS, DebtCb, JoinCb, debts_keyboard
from bot.telegram.outbound.outbox import remind_debts
from bot.texts.i18n import translator
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, FakeClock, TgUser, texts
from tests.bot.test_game_flow import vote_button

USERS = {"Anna": ANNA, "Boris": BORIS, "Clara": CLARA}
FIRST = ("Anna 6♠ = vist:Boris pass:Clara", "Boris 7♥ -1 vist:Anna pass:Clara")
SECOND = ("Clara 8♦ -2 vist:Anna pass:Boris",)


async def play(
    chat: ChatDriver, game: int, deals: tuple[str, ...], stake: str | None = "0.1"
) -> Any:
    """Open game `game` (with a stake, or in whists), seat the three by Join, record `deals`, end
    it by everyone's vote; the requests of the last press (the end)."""
    await chat.send(ANNA, "/newgame sochi pool 10" + (f" stake {stake}" if stake else ""))
    for user in (ANNA, BORIS, CLARA):
        await chat.press(user, JoinCb(game=game))
    for line in deals:
        await chat.send(ANNA, f"/deal {line}")
    opened = await chat.send(ANNA, "/endgame")
    vote = vote_button(opened, yes=True)
    await chat.press(BORIS, vote)
    return await chat.press(CLARA, vote)


def debt_buttons(requests: list[TelegramMethod[Any]]) -> list[tuple[str, DebtCb]]:
    """The "✅ paid" buttons the bot sent: (their text, their data)."""
    found = []
    for request in requests:
        markup = getattr(request, "reply_markup", None)
        if not isinstance(markup, InlineKeyboardMarkup):
            continue
        for row in markup.inline_keyboard:
            for button in row:
                if (button.callback_data or "").startswith("db:"):
                    found.append((button.text, DebtCb.unpack(button.callback_data or "")))
    return found


def parties(text: str) -> tuple[TgUser, TgUser]:
    """The debtor and creditor a button names (`✅ paid: Anna → Boris 1.00`)."""
    found = re.search(r"(Anna|Boris|Clara) → (Anna|Boris|Clara)", text)
    assert found is not None, text
    return USERS[found[1]], USERS[found[2]]


def toast(requests: list[TelegramMethod[Any]]) -> str:
    answers = [r for r in requests if isinstance(r, AnswerCallbackQuery)]
    assert answers, f"no toast in {requests}"
    return answers[-1].text or ""


async def kinds(store: SqliteStore, game_id: int) -> list[str]:
    async with store.reading() as repo:
        return [row.kind for row in await repo.events(game_id)]


async def test_a_games_end_opens_one_debt_per_transfer_as_events_of_its_log(
    chat: ChatDriver, store: SqliteStore
) -> None:
    ended = await play(chat, 1, FIRST)
    buttons = debt_buttons(ended)
    log = await kinds(store, 1)
    assert log.count(Kind.DEBT_OPENED) == len(buttons) >= 1
    assert log.index(Kind.GAME_ENDED) < log.index(Kind.DEBT_OPENED)
    assert "✅ paid" in buttons[0][0] and "every player agreed" in texts(ended)
    assert len([r for r in ended if isinstance(r, SendMessage) and r.chat_id == chat.chat_id]) <= 2


async def test_the_debtors_press_says_paid_and_the_creditors_closes_the_debt(
    chat: ChatDriver, store: SqliteStore
) -> None:
    ended = await play(chat, 1, FIRST)
    text, data = debt_buttons(ended)[0]
    debtor, creditor = parties(text)
    stranger = next(u for u in USERS.values() if u not in (debtor, creditor))
    assert "Only" in toast(await chat.press(stranger, data))
    assert "Only" in toast(await chat.press(DMITRY, data))
    said = await chat.press(debtor, data)
    assert "you paid" in toast(said) and "has paid" in texts(said)
    assert "already said you paid" in toast(await chat.press(debtor, data))
    assert "paid, waiting for" in await chat.say(ANNA, "/debts")
    closed = await chat.press(creditor, data)
    assert "closed" in toast(closed) and "settled" in texts(closed)
    assert "already settled" in toast(await chat.press(debtor, data))
    log = await kinds(store, 1)
    assert log.count(Kind.DEBT_MARKED) == 2  # the refused presses wrote nothing
    history = await chat.say(ANNA, "/history")  # the game's history tells it too
    assert f"{debtor.first_name} owes {creditor.first_name}" in history
    assert f"{debtor.first_name} has paid" in history and "received" in history


async def test_the_creditors_press_alone_closes_the_debt(chat: ChatDriver) -> None:
    ended = await play(chat, 1, FIRST)
    buttons = debt_buttons(ended)
    text, data = buttons[0]
    _, creditor = parties(text)
    assert "closed" in toast(await chat.press(creditor, data))
    listed = await chat.say(ANNA, "/debts")
    assert listed.count("(game #1)") == len(buttons) - 1


async def test_the_closing_press_takes_its_button_off_the_message_and_leaves_the_others(
    chat: ChatDriver,
) -> None:
    ended = await play(chat, 1, FIRST)
    buttons = debt_buttons(ended)
    shown = [key for key, markup in chat.bot.session.markups.items() if "db:" in str(markup)]
    assert len(shown) == 1
    text, data = buttons[0]
    debtor, creditor = parties(text)
    await chat.press(debtor, data, message_id=shown[0][1])  # "I paid": the creditor still must
    assert data.pack() in str(chat.bot.session.markups[shown[0]])
    await chat.press(creditor, data, message_id=shown[0][1])
    left = chat.bot.session.markups.get(shown[0], {})
    assert data.pack() not in str(left)
    assert str(left).count("db:") == len(buttons) - 1


async def test_a_forged_debt_button_is_refused_and_writes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    ended = await play(chat, 1, FIRST)
    _, data = debt_buttons(ended)[0]
    before = await kinds(store, 1)
    for forged in (DebtCb(game=1, debt=1), DebtCb(game=99, debt=data.debt)):
        assert "another game" in toast(await chat.press(ANNA, forged))
    elsewhere = ChatDriver(chat.dispatcher, chat.bot, chat_id=-1009, title="Other")
    assert "another game" in toast(await elsewhere.press(ANNA, data))
    assert await kinds(store, 1) == before


async def test_debts_lists_both_games_and_nets_them_per_pair(chat: ChatDriver) -> None:
    first = debt_buttons(await play(chat, 1, FIRST))
    second = debt_buttons(await play(chat, 2, SECOND))
    listed = await chat.say(BORIS, "/debts")
    assert listed.count("(game #1)") == len(first) and listed.count("(game #2)") == len(second)
    assert "Net over all open debts" in listed
    net = listed.split("Net over all open debts", 1)[1].strip().splitlines()[1:]
    assert 1 <= len(net) <= 2  # at most N − 1 among three players


async def test_paid_closes_everything_one_debtor_owes_the_creditor(chat: ChatDriver) -> None:
    ended = await play(chat, 1, FIRST)
    text, _ = debt_buttons(ended)[0]
    debtor, creditor = parties(text)
    assert "owes you nothing" in await chat.say(debtor, f"/paid @{creditor.username}")
    answer = await chat.say(creditor, f"/paid @{debtor.username}")
    assert "settled" in answer
    assert f"{debtor.first_name} → {creditor.first_name}" not in await chat.say(ANNA, "/debts")


async def test_a_private_start_lets_the_bot_write_each_player_at_the_games_end(
    chat: ChatDriver,
) -> None:
    for user in (ANNA, BORIS):
        private = ChatDriver(chat.dispatcher, chat.bot, chat_id=user.id, chat_type="private")
        assert "/newgame" in await private.say(user, "/start")
    ended = await play(chat, 1, FIRST)
    privately = {r.chat_id: r for r in ended if isinstance(r, SendMessage) and r.chat_id > 0}
    assert set(privately) == {ANNA.id, BORIS.id} & set(privately)  # never Clara: no /start
    assert CLARA.id not in privately
    for message in privately.values():
        assert "Game #1" in message.text and "Friday pulka" in message.text
        if "You owe" in message.text:  # a debtor's message carries his buttons
            assert debt_buttons([message])
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=ANNA.id, chat_type="private")
    mine = await private.say(ANNA, "/debts")
    assert "Your open debts" in mine or "You owe nobody" in mine


async def test_a_debtor_marks_paid_from_his_private_message(chat: ChatDriver) -> None:
    for user in USERS.values():
        private = ChatDriver(chat.dispatcher, chat.bot, chat_id=user.id, chat_type="private")
        await private.send(user, "/start")
    ended = await play(chat, 1, FIRST)
    owing = [
        r for r in ended if isinstance(r, SendMessage) and r.chat_id > 0 and debt_buttons([r])
    ]
    assert owing
    message = owing[0]
    text, data = debt_buttons([message])[0]
    debtor, _ = parties(text)
    assert message.chat_id == debtor.id
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=debtor.id, chat_type="private")
    said = await private.press(debtor, data)
    assert "you paid" in toast(said)
    assert any(isinstance(r, SendMessage) and r.chat_id == chat.chat_id for r in said)


async def test_a_reminder_lists_old_debts_once_a_period(
    chat: ChatDriver, game: Core, clock: FakeClock
) -> None:
    await play(chat, 1, FIRST)
    assert "Reminders of debts are off" in await chat.say(ANNA, "/remind")
    assert "Reminders on" in await chat.say(ANNA, "/remind 1d")
    assert "older than 1 d" in await chat.say(BORIS, "/remind")
    assert await remind_debts(game, "en") == 0  # the debts are younger than a day
    clock.advance(86400)
    before = len(chat.bot.requests)
    assert await remind_debts(game, "en") == 1
    assert "Debts still open" in texts(chat.bot.requests[before:])
    assert debt_buttons(chat.bot.requests[before:])  # pressed from the reminder too
    assert await remind_debts(game, "en") == 0  # once per period
    clock.advance(86400)
    assert await remind_debts(game, "en") == 1
    assert "off" in await chat.say(ANNA, "/remind off")
    clock.advance(86400)
    assert await remind_debts(game, "en") == 0


async def test_a_bad_reminder_period_is_refused_with_an_example(chat: ChatDriver) -> None:
    answer = await chat.say(ANNA, "/remind soon")
    assert "soon" in answer and "/remind 3d" in answer


async def test_a_seat_given_by_username_is_written_to_once_its_account_started_the_bot(
    chat: ChatDriver,
) -> None:
    """Boris never acted in the group (his seat is still `@boris_p`), but started the bot in
    private: the end of the game (by its end rule) finds him by his username."""
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=BORIS.id, chat_type="private")
    await private.send(BORIS, "/start")
    await chat.send(ANNA, "/newgame sochi pool 2 stake 1 me @boris_p @clara_p")
    for line in (
        "Anna 6♠ = vist:Boris pass:Clara",
        "Boris 7♠ = pass:Anna pass:Clara",
        "Clara 6♠ -1 vist:Anna pass:Boris",
        "Clara 6♠ = pass:Anna pass:Boris",
    ):
        await chat.send(ANNA, f"/deal {line}")
    ended = await chat.send(ANNA, "/endgame")
    assert "end rule is met" in texts(ended) and debt_buttons(ended)
    to_boris = [r for r in ended if isinstance(r, SendMessage) and r.chat_id == BORIS.id]
    assert len(to_boris) == 1 and "Game #1" in to_boris[0].text
    assert not [r for r in ended if isinstance(r, SendMessage) and r.chat_id == CLARA.id]


def test_a_long_list_of_debts_gets_at_most_thirty_buttons() -> None:
    anna, boris = Player("Anna", 1), Player("Boris", 2)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    many = [Debt(n, 9, -1, n, anna, boris, Decimal("1.00"), True, at) for n in range(1, 120)]
    markup = debts_keyboard(translator("en"), many)
    assert markup is not None and len(markup.inline_keyboard) == DEBT_BUTTONS == 30


async def test_a_user_who_blocks_the_bot_is_not_written_to_at_the_games_end(
    chat: ChatDriver,
) -> None:
    for user in (ANNA, BORIS):
        private = ChatDriver(chat.dispatcher, chat.bot, chat_id=user.id, chat_type="private")
        await private.send(user, "/start")
    bot_user = {"id": 42, "is_bot": True, "first_name": "Pulka"}
    blocked = Update.model_validate(
        {
            "update_id": 990001,
            "my_chat_member": {
                "chat": {"id": BORIS.id, "type": "private", "first_name": "Boris"},
                "from": BORIS.raw(),
                "date": 1767290400,
                "old_chat_member": {"status": "member", "user": bot_user},
                "new_chat_member": {"status": "kicked", "user": bot_user, "until_date": 0},
            },
        },
        context={"bot": chat.bot},
    )
    await chat.feed(blocked)
    ended = await play(chat, 1, FIRST)
    privately = {r.chat_id for r in ended if isinstance(r, SendMessage) and r.chat_id > 0}
    assert privately == {ANNA.id}
