"""Nothing is said before it is committed (docs/architecture.md "Delivery"): through the real
dispatcher with a mocked Bot, a deal by buttons whose commit fails never shows "Recorded." nor the
step message as the record; a transient failure is tried again (and said once, when it commits),
or left for Telegram to deliver again with no word said; a database that takes no writes is told
once, and recorded when the update comes again after the space returns; looks still answer."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.types import Update

from bot.app import build_dispatcher
from bot.core import Redeliver
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.storage.sqlite import SqliteRepo
from bot.telegram.keyboards import JoinCb
from tests.bot.factories import ANNA, BORIS, CLARA, ChatDriver, FakeClock, texts
from tests.bot.mocked_bot import MockedBot, deliver_through
from tests.bot.test_deal_steps import StepMessage, open_game, open_steps
from tests.bot.test_disputes import DEAL_1, DEAL_1_FIXED, buttons, toast

BUTTONS = ("Contract", "Clara", "7♠", "Whist", "Pass", "−1")
LOCKED = sqlite3.OperationalError("database is locked")
FULL = sqlite3.OperationalError("database or disk is full")


class Faults:
    """Makes the commits that owe replies fail: `raising` is raised by each, `times` times
    (None: until cleared)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.raising: Exception | None = None
        self.times: int | None = None
        self.hits = 0
        original = SqliteRepo.owe

        async def owe(repo: SqliteRepo, rows: Any) -> None:
            if self.raising is not None and (self.times is None or self.hits < self.times):
                self.hits += 1
                raise self.raising
            await original(repo, rows)

        monkeypatch.setattr(SqliteRepo, "owe", owe)

    def fail(self, error: Exception, times: int | None = None) -> None:
        self.raising, self.times, self.hits = error, times, 0

    def clear(self) -> None:
        self.raising = None


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Faults:
    return Faults(monkeypatch)


async def deals(store: SqliteStore) -> int:
    async with store.reading() as repo:
        live = await repo.live_game(-1001234567890)
        assert live is not None
        return sum(e.kind == "deal" for e in await repo.events(live.game_id))


def said_recorded(requests: list[TelegramMethod[Any]]) -> bool:
    """A toast "Recorded." or the step message shown as deal #1."""
    toasts = [r.text or "" for r in requests if isinstance(r, AnswerCallbackQuery)]
    edits = [r.text for r in requests if isinstance(r, EditMessageText)]
    return any("Recorded" in t for t in toasts) or any("#1" in e for e in edits)


async def ready(chat: ChatDriver) -> tuple[StepMessage, Update]:
    """A deal drafted by buttons up to its ✅, and the ✅ press's update (to feed again)."""
    await open_game(chat)
    steps = await open_steps(chat)
    await steps.presses(ANNA, *BUTTONS)
    return steps, chat.callback_update(ANNA, steps.button("✅ Record"), steps.message_id)


async def test_a_deal_by_buttons_whose_commit_fails_never_says_recorded(
    chat: ChatDriver, bot: MockedBot, store: SqliteStore, faults: Faults
) -> None:
    """The commit fails for good (a bug): the press is told nothing was recorded, and neither
    the toast "Recorded." nor the step message as "#1 …" is sent; the steps stay open, so the
    same ✅ once the fault is gone records the deal."""
    steps, press = await ready(chat)
    faults.fail(RuntimeError("the disk controller said no"))
    answer = await chat.feed(press)
    assert not said_recorded(answer), texts(answer)
    alerts = [r for r in answer if isinstance(r, AnswerCallbackQuery) and r.show_alert]
    assert len(alerts) == 1 and "Nothing was recorded" in (alerts[0].text or "")
    assert await deals(store) == 0
    faults.clear()
    again = await steps.press(ANNA, "✅ Record")
    assert said_recorded(again) and await deals(store) == 1
    assert steps.markup is None and "#1" in steps.text


async def test_a_commit_failing_once_is_tried_again_and_says_recorded_once(
    chat: ChatDriver, bot: MockedBot, store: SqliteStore, faults: Faults
) -> None:
    _, press = await ready(chat)
    faults.fail(LOCKED, times=2)
    answer = await chat.feed(press)
    assert faults.hits == 2 and await deals(store) == 1
    toasts = [r.text for r in answer if isinstance(r, AnswerCallbackQuery)]
    assert toasts == ["Recorded."]
    assert [r.text for r in answer if isinstance(r, EditMessageText)] == [
        "<b>#1</b> <code>Clara 7♠ -1 vist:Anna pass:Boris</code>"
    ]
    assert "nothing was recorded" not in texts(answer).casefold()


async def test_a_commit_failing_on_every_try_says_nothing_and_records_the_update_when_it_comes_again(
    chat: ChatDriver, bot: MockedBot, store: SqliteStore, faults: Faults
) -> None:
    """Transient on every attempt: the update is left to come again (`Redeliver`) with no word
    in the chat; Telegram's redelivery of the same update records it once and says so."""
    _, press = await ready(chat)
    faults.fail(LOCKED)
    before = len(bot.requests)
    with pytest.raises(Redeliver):
        await chat.feed(press)
    assert bot.requests[before:] == [] and await deals(store) == 0
    faults.clear()
    answer = await chat.feed(press)
    assert said_recorded(answer) and await deals(store) == 1
    assert await chat.feed(press) == []  # a third delivery: handled before, nothing done


async def test_a_full_disk_is_told_once_and_the_deal_recorded_when_the_space_returns(
    chat: ChatDriver, bot: MockedBot, store: SqliteStore, faults: Faults
) -> None:
    await open_game(chat)
    deal = chat.message_update(ANNA, "/deal Clara 7♠ -1 vist:Anna pass:Boris")
    faults.fail(FULL)
    before = len(bot.requests)
    for _ in range(3):  # delivered again and again while the disk is full
        with pytest.raises(Redeliver):
            await chat.feed(deal)
    told = bot.requests[before:]
    assert len(told) == 1 and isinstance(told[0], SendMessage)
    assert "not recorded yet" in told[0].text and "Nothing was recorded" not in told[0].text
    score = await chat.send(BORIS, "/score")  # a look still answers, directly
    assert "Anna" in texts(score) and await deals(store) == 0
    faults.clear()
    answer = await chat.feed(deal)
    assert await deals(store) == 1 and "#1" in texts(answer)


async def test_a_sheet_asked_for_on_a_full_disk_goes_out_at_once_as_its_picture(
    chat: ChatDriver, bot: MockedBot, store: SqliteStore, faults: Faults
) -> None:
    """A look whose answer cannot be written to the outbox is posted by the sender's own
    poster, at once: the sheet is still a photo with its caption."""
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL_1}")
    faults.fail(FULL)
    answer = await chat.send(BORIS, "/sheet")
    photos = [r for r in answer if isinstance(r, SendPhoto)]
    assert len(photos) == 1 and photos[0].chat_id == chat.chat_id
    assert await deals(store) == 1


async def test_a_toast_of_a_join_or_a_ballot_waits_for_its_commit(
    chat: ChatDriver, bot: MockedBot, store: SqliteStore, faults: Faults
) -> None:
    """A commit failing on every try shows no toast (the press is delivered again); the
    redelivered press commits and shows it, once."""
    await chat.send(ANNA, "/newgame sochi pool 10")
    faults.fail(LOCKED)
    join = chat.callback_update(BORIS, JoinCb(game=1), 1)
    with pytest.raises(Redeliver):
        await chat.feed(join)
    faults.clear()
    answer = await chat.feed(join)
    toasts = [r.text or "" for r in answer if isinstance(r, AnswerCallbackQuery)]
    assert len(toasts) == 1 and "Boris" in toasts[0]
    await chat.press(ANNA, JoinCb(game=1))
    await chat.send(CLARA, "/join")
    await chat.send(ANNA, f"/deal {DEAL_1}")
    yes, _ = buttons(await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}"))
    faults.fail(LOCKED)
    ballot = chat.callback_update(CLARA, yes, 1)
    before = len(bot.requests)
    with pytest.raises(Redeliver):
        await chat.feed(ballot)
    assert bot.requests[before:] == []
    faults.clear()
    answer = await chat.feed(ballot)
    assert toast(answer) == "Your vote is counted."


async def test_undo_with_text_after_it_is_refused_with_a_hint_and_undoes_nothing(
    chat: ChatDriver, store: SqliteStore
) -> None:
    await open_game(chat)
    await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    answer = await chat.say(ANNA, "/undo junk")
    assert "/undo takes nothing after it" in answer and "<code>junk</code>" in answer
    assert "/edit" in answer
    assert await deals(store) == 1
    async with store.reading() as repo:
        live = await repo.live_game(chat.chat_id)
        assert live is not None
        assert not [e for e in await repo.events(live.game_id) if e.kind == "deal_undone"]


async def test_lang_set_through_one_instance_is_the_language_of_the_other_at_once(
    settings: Settings, store: SqliteStore, clock: FakeClock, bot: MockedBot
) -> None:
    """Per-chat settings are read with each update: no instance keeps its own copy."""
    one, two = (build_dispatcher(settings, store, clock) for _ in range(2))
    for dispatcher in (one, two):
        deliver_through(dispatcher, bot)
    first, second = ChatDriver(one, bot), ChatDriver(two, bot)
    assert "There is no game in this chat" in await second.say(ANNA, "/score")
    await first.send(ANNA, "/lang ru")
    assert "В этом чате нет пульки" in await second.say(ANNA, "/score")
