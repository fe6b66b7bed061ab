"""A game in a group, through the real dispatcher with a mocked Bot (issue 4, Deliver 2–3)."""

from __future__ import annotations

import asyncio
import re
from fractions import Fraction
from typing import Any

from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.types import InlineKeyboardMarkup

from bot.core import Core, looks
from bot.storage import SqliteStore
from bot.telegram.keyboards import JoinCb, VoteCb
from tests.bot.factories import (
    ANNA,
    BORIS,
    CLARA,
    DMITRY,
    EVA,
    ChatDriver,
    FakeClock,
    sent,
    texts,
)

DEALS = (
    (ANNA, "Anna 6♠ = vist:Boris pass:Clara"),
    (BORIS, "Boris 7♥ -1 vist:Anna pass:Clara"),
    (CLARA, "Clara misere 1"),
    (ANNA, "pass Anna/2 Boris/3 Clara/5"),
    (BORIS, "Anna 6♣ -1 vist:Boris/3 vist:Clara/2"),
    (CLARA, "Boris 6♣ = pass:Anna pass:Clara"),
)


async def open_game(chat: ChatDriver, args: str = "sochi pool 10") -> None:
    answer = await chat.send(ANNA, f"/newgame {args}")
    assert isinstance(answer[0], SendMessage) and answer[0].reply_markup is not None
    await chat.press(ANNA, JoinCb(game=1))
    await chat.press(BORIS, JoinCb(game=1))
    await chat.send(CLARA, "/join")


async def count_events(store: SqliteStore) -> int:
    async with store.reading() as repo:
        return await repo.count_events()


def vote_button(answer: list[TelegramMethod[Any]], *, yes: bool) -> VoteCb:
    """The ✅ or ❌ of the vote message the bot sent first."""
    message = answer[0]
    assert isinstance(message, SendMessage)
    assert isinstance(message.reply_markup, InlineKeyboardMarkup)
    button = message.reply_markup.inline_keyboard[0][0 if yes else 1]
    return VoteCb.unpack(button.callback_data or "")


def balances(text: str) -> dict[str, str]:
    """`Name: +12.5` lines of a /score answer."""
    found: dict[str, str] = {}
    for name, value in re.findall(r"^(Anna|Boris|Clara): ([+−]?[\d.,]+)", text, re.MULTILINE):
        found.setdefault(name, value)
    return found


async def test_a_game_is_opened_joined_played_undone_and_scored(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    for user, line in DEALS:
        answer = await chat.send(user, f"/deal {line}")
        photos = [r for r in answer if isinstance(r, SendPhoto)]
        assert len(photos) == 1, "each deal is answered with the sheet picture"
    assert "#6" in (photos[0].caption or "")
    assert "Boris: pool +2" in (photos[0].caption or "")

    undone = await chat.say(CLARA, "/undo")
    assert "#6" in undone and "undone" in undone

    score = await chat.say(DMITRY, "/score")
    # `python -m scoring replay --json` on the first five deals (pool 10): 58, 2, -60.
    assert balances(score) == {"Anna": "+58", "Boris": "+2", "Clara": "−60"}
    history = await chat.say(DMITRY, "/history")
    assert "#5" in history and "#6" not in history and "(undone)" in history


async def test_the_score_matches_the_rules_engine_on_the_same_deals(
    chat: ChatDriver, game: Core
) -> None:
    from scoring.notation import Table, parse_record
    from scoring.replay import replay
    from scoring.rules import rules_for
    from scoring.settle import settle
    from scoring.sheet import Game

    await open_game(chat)
    for user, line in DEALS:
        await chat.send(user, f"/deal {line}")
    names = ("Anna", "Boris", "Clara")
    records = [parse_record(line, Table(names)) for _, line in DEALS]
    rules = rules_for("sochi", 3, {"pool_target": "10"})
    exact = settle(rules, replay(Game(rules, names), records).totals).balances
    snap = await looks.snapshot(game, chat.chat_id)
    assert snap.settlement is not None and snap.settlement.balances == exact
    assert sum(exact) == Fraction(0)


async def test_a_non_player_cannot_record_and_nothing_is_written(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    before = await count_events(store)
    answer = await chat.send(DMITRY, f"/deal {DEALS[0][1]}")
    assert not any(isinstance(r, SendPhoto) for r in answer)
    assert "Only the game's players" in texts(answer)
    assert await count_events(store) == before


async def test_anyone_in_the_chat_may_look(chat: ChatDriver) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEALS[0][1]}")
    for command in ("/score", "/history", "/rules", "/sheet", "/help"):
        answer = await chat.send(DMITRY, command)
        assert sent(answer), f"{command} answered nothing"
        assert "❗" not in texts(answer)


async def test_an_update_delivered_twice_changes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    update = chat.message_update(ANNA, f"/deal {DEALS[0][1]}")
    first = await chat.feed(update)
    assert any(isinstance(r, SendPhoto) for r in first)
    events = await count_events(store)
    again = await chat.feed(update)
    assert again == []
    assert await count_events(store) == events


async def test_two_deals_sent_at_once_get_consecutive_numbers(chat: ChatDriver) -> None:
    await open_game(chat)
    updates = [chat.message_update(user, f"/deal {line}") for user, line in DEALS[:4]]
    await asyncio.gather(*(chat.dispatcher.feed_update(chat.bot, u) for u in updates))
    captions = [r.caption or "" for r in chat.bot.requests if isinstance(r, SendPhoto)]
    # Sheets that waited together go out as the newest, with every caption (bot.telegram.outbound.sender).
    numbers = sorted(int(n) for c in captions for n in re.findall(r"<b>#(\d+)</b>", c))
    assert numbers == [1, 2, 3, 4]
    history = await chat.say(ANNA, "/history")
    assert all(f"#{n}" in history for n in (1, 2, 3, 4))


async def test_only_the_author_may_undo_within_the_pencil_time(
    chat: ChatDriver, clock: FakeClock, store: SqliteStore
) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEALS[0][1]}")
    assert "Only the author" in await chat.say(BORIS, "/undo")
    clock.advance(121)
    before = await count_events(store)
    refused = await chat.say(ANNA, "/undo")
    assert "pencil time (120 s) is over" in refused
    assert await count_events(store) == before


async def test_the_author_edits_the_last_deal_within_the_pencil_time(
    chat: ChatDriver, clock: FakeClock
) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEALS[0][1]}")
    clock.advance(60)
    edited = await chat.say(ANNA, "/edit Anna 6♠ -1 vist:Boris pass:Clara")
    assert "#1" in edited and "corrected" in edited and "Anna: mountain +2" in edited
    history = await chat.say(ANNA, "/history")
    assert "was: <s>Anna 6♠ = vist:Boris pass:Clara</s>" in history


async def test_an_undo_redraws_the_sheet_photo_when_it_is_near(chat: ChatDriver) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEALS[0][1]}")
    answer = await chat.send(ANNA, "/undo")
    assert any(r.__class__.__name__ == "EditMessageMedia" for r in answer)
    assert any(isinstance(r, SendMessage) and "undone" in r.text for r in answer)


async def test_players_given_at_newgame_start_the_game_in_that_order(chat: ChatDriver) -> None:
    opened = await chat.say(ANNA, "/newgame leningrad Clara @boris_p me")
    assert "The game is on" in opened
    assert "A. Clara (by name)" in opened and "C. Anna" in opened
    recorded = await chat.send(BORIS, "/deal Clara 6♠ = vist:Boris pass:Anna")
    assert any(isinstance(r, SendPhoto) for r in recorded)


async def test_the_scorekeeper_records_for_players_without_telegram(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await chat.send(EVA, "/newgame sochi Anna Boris Clara")
    answer = await chat.send(EVA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    assert any(isinstance(r, SendPhoto) for r in answer)
    before = await count_events(store)
    assert "Only the game's players" in await chat.say(DMITRY, "/deal Boris misere 0")
    assert await count_events(store) == before
    assert "undone" in await chat.say(EVA, "/undo")


async def test_four_players_when_asked_the_dealer_sits_out(chat: ChatDriver) -> None:
    await chat.send(EVA, "/newgame sochi players=4 Anna Boris Clara")
    assert "The game is on" in await chat.say(EVA, "/join Dmitry")
    refused = await chat.say(EVA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    assert "Anna deals this time" in refused
    assert "#1" in await chat.say(EVA, "/deal Boris 6♠ = vist:Clara pass:Dmitry")


async def test_join_button_data_is_checked_against_the_database(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi")
    answer = await chat.press(BORIS, JoinCb(game=99))
    toast = [r for r in answer if isinstance(r, AnswerCallbackQuery)]
    assert toast and "out of date" in (toast[0].text or "")
    forged = await chat.press(BORIS, "j:not-a-number")
    assert not any(isinstance(r, EditMessageText) for r in forged)
    await chat.press(ANNA, JoinCb(game=1))
    again = await chat.press(ANNA, JoinCb(game=1))
    assert "already in" in texts(again) or any(
        "already" in (r.text or "") for r in again if isinstance(r, AnswerCallbackQuery)
    )


async def test_leave_before_the_start_frees_the_seat(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi")
    await chat.send(BORIS, "/join")
    assert "Boris leaves (0 of 3)" in await chat.say(BORIS, "/leave")
    assert "Not in this game" in await chat.say(BORIS, "/leave")


async def test_endgame_needs_every_player_when_the_end_rule_is_not_met(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEALS[0][1]}")
    opened = await chat.send(ANNA, "/endgame")
    vote = vote_button(opened, yes=True)
    watcher = await chat.press(DMITRY, vote)
    assert "Only the game's players vote" in texts(watcher) or any(
        "Only" in (r.text or "") for r in watcher if isinstance(r, AnswerCallbackQuery)
    )
    await chat.press(BORIS, vote)
    ended = await chat.press(CLARA, vote)
    assert "every player agreed" in texts(ended)
    assert "There is no game" in await chat.say(ANNA, f"/deal {DEALS[1][1]}")
    assert "(ended)" in await chat.say(ANNA, "/score")


async def test_one_no_rejects_the_early_end(chat: ChatDriver) -> None:
    await open_game(chat)
    opened = await chat.send(ANNA, "/endgame")
    no = vote_button(opened, yes=False)
    assert "Rejected" in texts(await chat.press(BORIS, no))
    assert "Vote" not in await chat.say(ANNA, f"/deal {DEALS[0][1]}")


async def test_a_finished_game_ends_at_once(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi pool 2 Anna Boris Clara")
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    await chat.send(ANNA, "/deal Boris 6♠ = vist:Clara pass:Anna")
    last = await chat.say(ANNA, "/deal Clara 6♠ = vist:Anna pass:Boris")
    assert "end rule is met" in last
    assert "game is over" in await chat.say(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    assert "Game #1 is over" in await chat.say(ANNA, "/endgame")


async def test_a_group_upgraded_to_a_supergroup_keeps_its_game(chat: ChatDriver) -> None:
    chat.chat_id, chat.chat_type = -400, "group"
    await open_game(chat)
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    await chat.send(ANNA, None, migrate_to_chat_id=-100400)
    chat.chat_id, chat.chat_type = -100400, "supergroup"
    await chat.send(ANNA, None, migrate_from_chat_id=-400)
    assert "#2" in await chat.say(BORIS, "/deal Boris 7♥ -1 vist:Anna pass:Clara")


async def test_private_chat_shows_help_and_the_users_open_games(chat: ChatDriver) -> None:
    await open_game(chat)
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=ANNA.id, chat_type="private")
    answer = await private.say(ANNA, "/start")
    assert "/newgame" in answer and "Your open games" in answer and "Friday pulka" in answer
    assert "A game lives in a group" in await private.say(ANNA, "/newgame sochi")


async def test_lang_switches_the_chat_to_russian(chat: ChatDriver) -> None:
    await open_game(chat)
    assert "по-русски" in await chat.say(ANNA, "/lang ru")
    answer = await chat.say(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    assert "Anna: пуля +2" in answer and "Boris → Anna: 8 вистов" in answer
    assert "вист:Boris" in answer


async def test_an_unexpected_failure_is_logged_and_answered_without_a_traceback(
    chat: ChatDriver, game: Core, monkeypatch: object
) -> None:
    await open_game(chat)

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    import pytest

    patch = pytest.MonkeyPatch()
    patch.setattr(looks, "look", broken)
    try:
        answer = await chat.say(ANNA, "/score")
    finally:
        patch.undo()
    assert "Something went wrong" in answer and "Nothing was recorded" in answer
    assert "Traceback" not in answer and "disk on fire" not in answer


async def test_the_last_round_is_announced_once_in_odessa_only(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi Anna Boris Clara")
    assert "Odessa's end rule" in await chat.say(ANNA, "/lastround")
    await chat.send(ANNA, "/endgame")
    await chat.send(ANNA, "/newgame odessa Anna Boris Clara")
    assert "last round is announced" in await chat.say(ANNA, "/lastround")
    assert "already been announced" in await chat.say(ANNA, "/lastround")
    assert "#1" in await chat.say(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")


async def test_a_deal_the_engine_refuses_comes_with_an_example_for_this_table(
    chat: ChatDriver,
) -> None:
    await chat.send(EVA, "/newgame sochi players=4 Anna Boris Clara Dmitry")
    refused = await chat.say(EVA, "/deal Boris 6♠ = vist:Anna pass:Clara")
    assert "Anna deals this time" in refused
    assert "<code>/deal Dmitry 7♠ -1 vist:Boris pass:Clara</code>" in refused


async def test_a_press_after_the_voting_time_closes_the_vote_as_rejected(
    chat: ChatDriver, clock: FakeClock
) -> None:
    await open_game(chat)
    opened = await chat.send(ANNA, "/endgame")
    yes = vote_button(opened, yes=True)
    clock.advance(901)
    late = await chat.press(BORIS, yes)
    assert "Time is up" in texts(late)
    assert "already closed" in texts(await chat.press(CLARA, yes))
    assert "#1" in await chat.say(ANNA, f"/deal {DEALS[0][1]}")
