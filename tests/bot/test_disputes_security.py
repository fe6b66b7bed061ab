"""Votes cannot be forged (issue 6, "Done when"): a press by someone who does not vote, a button of
an unknown vote, of another chat's game, of a closed vote, a press repeated or delivered twice, and
data that is not ours change nothing and are answered politely with a short notice."""

from __future__ import annotations

from typing import Any

from aiogram.methods import AnswerCallbackQuery, TelegramMethod

from bot.storage import SqliteStore
from bot.telegram.keyboards import VoteCb
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver
from tests.bot.test_disputes import DEAL_1, DEAL_1_FIXED, buttons
from tests.bot.test_game_flow import count_events, open_game


async def disputed(chat: ChatDriver) -> tuple[VoteCb, VoteCb]:
    """A game with deal #1 and Boris's open dispute of it: its (✅, ❌)."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    return buttons(await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}"))


async def nothing_changes(
    chat: ChatDriver, store: SqliteStore, press: Any, expected: str
) -> list[TelegramMethod[Any]]:
    """Run `press`; no event is written, and the only answer is a short toast saying `expected`."""
    events = await count_events(store)
    answer: list[TelegramMethod[Any]] = await press
    assert await count_events(store) == events
    assert len(answer) == 1 and isinstance(answer[0], AnswerCallbackQuery), answer
    assert expected in (answer[0].text or "")
    assert len(answer[0].text or "") <= 200
    return answer


async def test_a_press_by_someone_who_does_not_play_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    yes, _ = await disputed(chat)
    await nothing_changes(chat, store, chat.press(DMITRY, yes), "Only the game's players vote")


async def test_a_button_of_an_unknown_vote_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await disputed(chat)
    forged = VoteCb(game=1, vote=999, yes=True)
    await nothing_changes(chat, store, chat.press(ANNA, forged), "out of date")
    not_a_vote = VoteCb(game=1, vote=2, yes=True)  # event 2 exists, but it is no vote
    await nothing_changes(chat, store, chat.press(ANNA, not_a_vote), "out of date")
    no_game = VoteCb(game=77, vote=7, yes=True)
    await nothing_changes(chat, store, chat.press(ANNA, no_game), "out of date")


async def test_a_button_of_another_chats_vote_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    yes, _ = await disputed(chat)
    elsewhere = ChatDriver(chat.dispatcher, chat.bot, chat_id=-1009999, title="Elsewhere")
    await elsewhere.send(CLARA, "/newgame sochi")
    # Clara plays in game 1 and presses its button from another chat: refused there.
    await nothing_changes(chat, store, elsewhere.press(CLARA, yes), "out of date")
    await nothing_changes(chat, store, elsewhere.press(ANNA, yes), "out of date")


async def test_a_press_on_a_closed_vote_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    yes, no = await disputed(chat)
    await chat.press(CLARA, yes)  # 2 of 3: passed
    await nothing_changes(chat, store, chat.press(ANNA, no), "already closed")
    await nothing_changes(chat, store, chat.press(BORIS, no), "already closed")


async def test_a_repeated_press_changes_nothing_and_a_changed_one_counts(
    chat: ChatDriver, store: SqliteStore
) -> None:
    yes, no = await disputed(chat)
    await nothing_changes(chat, store, chat.press(BORIS, yes), "already counted")
    await chat.press(ANNA, no)
    await nothing_changes(chat, store, chat.press(ANNA, no), "already counted")
    events = await count_events(store)
    changed = await chat.press(ANNA, yes)  # a vote may be changed while the vote is open
    assert await count_events(store) > events
    assert "Agreed" in "".join(getattr(r, "text", "") or "" for r in changed)


async def test_a_press_delivered_twice_is_taken_once(chat: ChatDriver, store: SqliteStore) -> None:
    _, no = await disputed(chat)
    update = chat.callback_update(ANNA, no, message_id=1)
    first = await chat.feed(update)
    assert any(isinstance(r, AnswerCallbackQuery) for r in first)
    events = await count_events(store)
    assert await chat.feed(update) == []  # the same update again: skipped before any handler
    assert await count_events(store) == events


async def test_data_that_is_not_ours_is_answered_and_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await disputed(chat)
    for data in ("v:1:7:maybe", "v:x:y:1", "v:1", "zz:1:2", ""):
        await nothing_changes(chat, store, chat.press(ANNA, data), "out of date")


async def test_the_arbiters_press_on_a_vote_the_players_still_decide_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await chat.send(ANNA, "/newgame sochi arbiter=@dmitry_p")
    for user in (ANNA, BORIS, CLARA):
        await chat.send(user, "/join")
    await chat.send(ANNA, f"/deal {DEAL_1}")
    yes, _ = buttons(await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}"))
    await nothing_changes(chat, store, chat.press(DMITRY, yes), "only a tied or timed-out")
