"""Issue 11's edges through the real dispatcher: a forwarded command, an anonymous admin, an
over-long input, an edited /deal, and an update_id that comes back for another message."""

from __future__ import annotations

import html
import logging
from datetime import datetime, timedelta
from typing import Any

import pytest
from aiogram.types import Update

from bot.storage import SqliteStore
from bot.texts.i18n import translator
from bot.texts.views import MESSAGE_LIMIT, QUOTE_LIMIT
from tests.bot.factories import ANNA, BORIS, ChatDriver, FakeClock, TgUser, sent, texts
from tests.bot.test_bad_input import count_events, started_game

EN = translator("en")
GROUP_ANONYMOUS_BOT = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
DEAL = "/deal Clara 6♥ = pass:Anna pass:Boris"


def edited(chat: ChatDriver, user: TgUser, message_id: int, text: str, date: datetime) -> Update:
    """Telegram's `edited_message` update: the message as it is now, sent at `date`."""
    update = chat.message_update(user, text)
    raw: dict[str, Any] = update.model_dump(mode="json", by_alias=True, exclude_none=True)
    message = raw.pop("message")
    message.update(
        message_id=message_id,
        date=int(date.timestamp()),
        edit_date=int(date.timestamp()) + 30,
    )
    raw["edited_message"] = message
    return Update.model_validate(raw, context={"bot": chat.bot})


async def sent_deal(chat: ChatDriver, user: TgUser, text: str, date: datetime) -> int:
    """Send a /deal at `date`; its message id."""
    update = chat.message_update(user, text, date=int(date.timestamp()))
    assert update.message is not None
    await chat.feed(update)
    return update.message.message_id


@pytest.mark.parametrize(
    "forward",
    [
        {"forward_origin": {"type": "user", "date": 0, "sender_user": BORIS.raw()}},
        {"forward_origin": {"type": "hidden_user", "date": 0, "sender_user_name": "Boris"}},
        {"forward_from": BORIS.raw(), "forward_date": 0},  # Bot API before 7.0
    ],
    ids=["origin-user", "origin-hidden", "old-fields"],
)
async def test_a_forwarded_command_is_refused_in_one_line_and_records_nothing(
    chat: ChatDriver, store: SqliteStore, forward: dict[str, Any]
) -> None:
    await started_game(chat)
    before = await count_events(store)
    answer = await chat.send(ANNA, DEAL, **forward)
    assert len(sent(answer)) == 1
    assert texts(answer) == EN("refused-forwarded")
    assert "\n" not in texts(answer)
    assert await count_events(store) == before
    assert "#3" in await chat.say(ANNA, DEAL), "the same line typed is taken"


async def test_an_anonymous_admin_is_asked_to_write_as_themselves(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await started_game(chat)
    before = await count_events(store)
    as_group = {"from": GROUP_ANONYMOUS_BOT, "sender_chat": chat.chat()}
    for command in (DEAL, "/join", "/undo", "/newgame sochi"):
        answer = await chat.send(ANNA, command, **as_group)
        assert texts(answer) == EN("refused-anonymous"), command
    assert await count_events(store) == before


async def test_a_channel_post_forwarded_into_its_group_is_not_refused(chat: ChatDriver) -> None:
    await started_game(chat)
    channel = {"id": -1009, "type": "channel", "title": "News"}
    extra = {
        "sender_chat": channel,
        "is_automatic_forward": True,
        "from": {"id": 777000, "is_bot": False, "first_name": "Telegram"},
    }
    answer = texts(await chat.send(ANNA, "/score", **extra))
    assert EN("refused-anonymous") not in answer


@pytest.mark.parametrize(
    "command",
    [
        "/deal Anna 7♠ = vist:Boris pass:Clara " + "x" * 4000,
        "/deal " + "Anna" * 1000,
        "/newgame sochi " + "n" * 4000,
        "/calc sochi " + "q" * 4000,
    ],
    ids=["long-word", "long-name", "long-newgame", "long-calc"],
)
async def test_an_over_long_input_is_answered_with_its_first_part_quoted(
    chat: ChatDriver, store: SqliteStore, command: str
) -> None:
    if command.startswith("/deal"):
        await started_game(chat)
    before = await count_events(store)
    answer = await chat.send(ANNA, command)
    messages = sent(answer)
    assert len(messages) == 1
    text = texts(answer)
    assert len(text) <= MESSAGE_LIMIT
    tail = command.split()[-1]
    assert html.escape(tail[:40], quote=False) in text, "its first part is quoted"
    assert tail not in text, "not the whole of it"
    assert "…" in text
    assert await count_events(store) == before


def test_quoted_input_is_capped() -> None:
    from bot.texts.views import capped

    assert capped("abc") == "abc"
    long = "y" * (QUOTE_LIMIT * 3)
    assert capped(long) == "y" * (QUOTE_LIMIT - 1) + "…"
    assert len(capped(long)) == QUOTE_LIMIT


async def test_an_edited_deal_in_the_pencil_window_corrects_its_record(
    chat: ChatDriver, store: SqliteStore, clock: FakeClock
) -> None:
    await started_game(chat)
    clock.advance(10)
    sent_at = clock()
    message_id = await sent_deal(chat, ANNA, DEAL, sent_at)
    before = await count_events(store)
    clock.advance(30)
    answer = texts(
        await chat.feed(
            edited(chat, ANNA, message_id, "/deal Clara 6♥ -1 vist:Anna pass:Boris", sent_at)
        )
    )
    assert EN("deal-edited-by-message") in answer
    assert "Clara 6♥ -1" in answer
    assert await count_events(store) == before + 1
    history = await chat.say(ANNA, "/history")
    assert "Clara 6♥ -1" in history


async def test_an_edited_deal_after_the_pencil_window_is_told_how_to_correct(
    chat: ChatDriver, store: SqliteStore, clock: FakeClock
) -> None:
    await started_game(chat)
    clock.advance(10)
    sent_at = clock()
    message_id = await sent_deal(chat, ANNA, DEAL, sent_at)
    before = await count_events(store)
    clock.advance(600)  # the pencil rule holds 120 s
    answer = await chat.feed(
        edited(chat, ANNA, message_id, "/deal Clara 6♥ -1 vist:Anna pass:Boris", sent_at)
    )
    text = texts(answer)
    assert len(sent(answer)) == 1
    assert EN.template("error-edited-deal").split("<code>")[0] in text
    assert "/dispute 3 Clara 6♥ -1 vist:Anna pass:Boris" in text
    assert await count_events(store) == before


async def test_an_edited_deal_that_is_not_the_last_record_changes_nothing(
    chat: ChatDriver, store: SqliteStore, clock: FakeClock
) -> None:
    await started_game(chat)
    clock.advance(10)
    first = await sent_deal(chat, ANNA, DEAL, clock())
    clock.advance(10)
    await sent_deal(chat, ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara", clock())
    before = await count_events(store)
    edit = edited(
        chat,
        ANNA,
        first,
        "/deal Clara 6♥ -1 vist:Anna pass:Boris",
        clock() - timedelta(seconds=10),
    )
    text = texts(await chat.feed(edit))
    assert EN.template("error-edited-deal").split("<code>")[0] in text
    assert await count_events(store) == before


async def test_an_edited_deal_of_someone_else_is_told_how_to_correct(
    chat: ChatDriver, store: SqliteStore, clock: FakeClock
) -> None:
    await started_game(chat)
    clock.advance(10)
    message_id = await sent_deal(chat, ANNA, DEAL, clock())
    before = await count_events(store)
    edit = edited(chat, BORIS, message_id, "/deal Clara 6♥ -1 vist:Anna pass:Boris", clock())
    text = texts(await chat.feed(edit))
    assert EN.template("error-edited-deal").split("<code>")[0] in text
    assert await count_events(store) == before


async def test_a_real_duplicate_is_skipped(chat: ChatDriver, store: SqliteStore) -> None:
    await started_game(chat)
    update = chat.message_update(ANNA, DEAL)
    assert "#3" in texts(await chat.feed(update))
    before = await count_events(store)
    assert await chat.feed(update) == []
    assert await count_events(store) == before


async def test_an_update_id_back_for_another_message_is_handled(
    chat: ChatDriver, store: SqliteStore, caplog: pytest.LogCaptureFixture
) -> None:
    await started_game(chat)
    first = chat.message_update(ANNA, DEAL, update_id=900_000)
    assert "#3" in texts(await chat.feed(first))
    again = chat.message_update(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara", update_id=900_000)
    with caplog.at_level(logging.WARNING):
        answer = texts(await chat.feed(again))
    assert "#4" in answer, "handled, not skipped"
    assert "update_id 900000 came back" in caplog.text
    assert await chat.feed(again) == [], "and now it is the duplicate"
