"""The sender's side of delivery (bot/telegram/sender.py, docs/architecture.md "Delivery"): paced to
Telegram's limits, sheets that waited together sent as the newest, a reply for every deal even
when Telegram refuses its picture, and a chat never held for a lease by the sender's own
database trouble."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import pytest
from aiogram import Bot, Dispatcher
from aiogram.methods import SendMessage, SendPhoto, TelegramMethod
from aiogram.methods.base import TelegramType

from bot.app import build_dispatcher
from bot.core import looks
from bot.domain import Owed, OwedKind
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.storage.sqlite import SqliteRepo
from bot.telegram.outbound.outbox import CAPTION_LIMIT
from bot.telegram.outbound.pacing import Pacing
from bot.telegram.outbound.sender import Sender
from bot.texts.views import MESSAGE_LIMIT, plain_text
from tests.bot.factories import EVA, GROUP_ID, ChatDriver, FakeClock
from tests.bot.mocked_bot import MockedBot, MockedSession
from tests.render.factories import picture

DEALS = (
    "Anna 6♠ -1 vist:Boris pass:Clara",
    "Boris 6♠ -1 vist:Clara pass:Anna",
    "Clara 6♠ -1 vist:Anna pass:Boris",
)
NUMBER = re.compile(r"<b>#(\d+)</b>")


class Wall:
    """The sender's clock, moved by hand or by the sender's own waits."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0
        self.slept = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


class Timed(MockedSession):
    """Notes the wall time of every request."""

    def __init__(self, wall: Wall) -> None:
        super().__init__()
        self.wall = wall
        self.times: list[float] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        self.times.append(self.wall.now)
        return await super().make_request(bot, method, timeout)


@pytest.fixture
def wall() -> Wall:
    return Wall()


@pytest.fixture
def quiet(settings: Settings, store: SqliteStore, clock: FakeClock) -> Dispatcher:
    """A dispatcher whose outbox nobody delivers until the test says so."""
    return build_dispatcher(settings, store, clock)


@pytest.fixture
def timed(bot: MockedBot, wall: Wall) -> Timed:
    bot.session = Timed(wall)
    return bot.session


def sender_for(
    dispatcher: Dispatcher, bot: MockedBot, wall: Wall, pacing: Pacing | None = None
) -> Sender:
    return Sender(
        bot, dispatcher["core"], clock=wall, name="tests/0/s", pacing=pacing, sleep=wall.sleep
    )


async def owed_count(store: SqliteStore) -> int:
    async with store.reading() as repo:
        return await repo.owed_count()


async def deliver_all(sender: Sender, wall: Wall, store: SqliteStore) -> None:
    """What the sender's task does, on the wall clock: drain, then wait for the next due row."""
    for _ in range(1000):
        await sender.drain()
        if not await owed_count(store):
            return
        wall.now = sender.due if sender.due != float("inf") else wall.now + 0.5
    raise AssertionError("the outbox never emptied")


def photos(bot: MockedBot) -> list[SendPhoto]:
    return [r for r in bot.requests if isinstance(r, SendPhoto)]


def messages(bot: MockedBot) -> list[SendMessage]:
    return [r for r in bot.requests if isinstance(r, SendMessage)]


async def open_table(chat: ChatDriver) -> None:
    await chat.send(EVA, "/newgame sochi Anna Boris Clara")


async def play(chat: ChatDriver, deals: int, start: int = 0) -> None:
    for i in range(start, start + deals):
        await chat.send(EVA, f"/deal {DEALS[i % 3]}")


def numbers(text: str | None) -> list[int]:
    return [int(n) for n in NUMBER.findall(text or "")]


def most_in_a_minute(times: list[float]) -> int:
    return max(sum(1 for u in times if t <= u < t + 60) for t in times)


# -- pacing --------------------------------------------------------------------------------------


async def test_25_answers_owed_in_a_group_go_10_at_once_then_never_over_20_a_minute(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore, wall: Wall, timed: Timed
) -> None:
    """25 /score in a group (and the /newgame answer before them): no minute of the sender's
    clock holds more than 20 of them, the first 10 go at once, every one arrives, in order."""
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    for _ in range(25):
        await chat.send(EVA, "/score")
    sender = sender_for(quiet, bot, wall, Pacing.of(Settings(bot_token="42:TEST")))
    start = wall.now
    await deliver_all(sender, wall, store)
    assert len(messages(bot)) == 26
    assert timed.times[:10] == [start] * 10
    assert most_in_a_minute(timed.times) <= 20
    assert timed.times == sorted(timed.times)
    assert wall.now - start == pytest.approx(16 * 6.0)  # one every 6 s after the burst


async def test_a_deal_s_picture_goes_at_once_under_pacing(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore, wall: Wall
) -> None:
    """The common case pays nothing: one deal, one photo, no wait and no row given back."""
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 1)
    sender = sender_for(quiet, bot, wall, Pacing.of(Settings(bot_token="42:TEST")))
    assert await sender.drain() == 2
    assert (len(photos(bot)), wall.slept, sender.due) == (1, 0.0, float("inf"))


async def test_a_429_pauses_its_chat_for_retry_after_while_other_chats_go_on(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore, wall: Wall, timed: Timed
) -> None:
    chat, other = ChatDriver(quiet, bot), ChatDriver(quiet, bot, chat_id=GROUP_ID - 1)
    await open_table(chat)
    await chat.send(EVA, "/score")
    sender = sender_for(quiet, bot, wall, Pacing.of(Settings(bot_token="42:TEST")))
    too_many = {
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }
    bot.session.add_result(SendMessage, 429, {"ok": False, "error_code": 429, **too_many})
    start = wall.now
    assert await sender.drain() == 0
    await open_table(other)
    assert await sender.drain() == 1  # the other chat's answer goes at once
    assert sender.pacing.ready_in(GROUP_ID, wall.now) >= 7
    await deliver_all(sender, wall, store)
    first_chat = [
        t
        for t, r in zip(timed.times, bot.requests, strict=True)
        if getattr(r, "chat_id", 0) == GROUP_ID
    ]
    assert first_chat[0] == start and min(first_chat[1:]) >= start + 7


# -- coalescing ----------------------------------------------------------------------------------


async def test_sheets_that_waited_together_go_as_the_newest_with_every_caption_in_order(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore, wall: Wall
) -> None:
    """Four deals, a /score, two deals, all waiting: the chat gets the /newgame answer, one
    picture (deal 4's) captioned #1…#4, the score, one picture captioned #5 and #6."""
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 4)
    await chat.send(EVA, "/score")
    await play(chat, 2, start=4)
    sender = sender_for(quiet, bot, wall)
    assert await sender.drain() == 1 + 4 + 1 + 2  # every row delivered, the skipped ones too
    assert await owed_count(store) == 0
    sent = [r for r in bot.requests if isinstance(r, SendMessage | SendPhoto)]
    assert [type(r) for r in sent] == [SendMessage, SendPhoto, SendMessage, SendPhoto]
    first, second = photos(bot)
    assert numbers(first.caption) == [1, 2, 3, 4]
    assert numbers(second.caption) == [5, 6]
    assert "/score" not in (first.caption or "") and numbers(sent[2].text) == []
    # The picture is the newest sheet: the same as the one drawn for deal 6 alone.
    async with store.reading() as repo:
        live = await repo.live_game(GROUP_ID)
        assert live is not None
        last_seq = (await repo.events(live.game_id))[-1].seq
        assert await repo.sheet_message(live.game_id) == bot.session.message_ids[GROUP_ID]
    async with store.transaction() as repo:
        await repo.owe(
            [Owed(GROUP_ID, OwedKind.SHEET, "again", "en", game_id=live.game_id, seq=last_seq)]
        )
    await sender.drain()
    alone = photos(bot)[-1]
    assert picture(alone.photo.data) == picture(second.photo.data)  # type: ignore[union-attr]


async def test_captions_too_long_for_one_picture_go_as_one_text_just_before_it(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore, wall: Wall
) -> None:
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 12)
    sender = sender_for(quiet, bot, wall)
    await sender.drain()
    assert await owed_count(store) == 0
    sent = [r for r in bot.requests if isinstance(r, SendMessage | SendPhoto)][1:]
    text, photo = sent[-2], sent[-1]
    assert isinstance(text, SendMessage) and isinstance(photo, SendPhoto)
    assert numbers(photo.caption)[-1] == 12
    shown = [n for r in sent for n in numbers(r.text if isinstance(r, SendMessage) else r.caption)]
    assert sorted(shown) == list(range(1, 13)) and len(set(shown)) == 12  # each caption once
    assert all(len(plain_text(p.caption or "")) <= CAPTION_LIMIT for p in photos(bot))
    assert len(photos(bot)) < 12


async def test_skipped_captions_go_as_one_message_and_a_longer_run_goes_on_in_the_next_round(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore, wall: Wall
) -> None:
    """Thirty waiting sheets: their captions would need two messages, so the run stops short of
    that and the rest goes in the next round — each text is one message, so a failed send sent
    again whole repeats nothing (a text of two parts would repeat its first part)."""
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 30)
    sender = sender_for(quiet, bot, wall)
    await sender.drain()
    assert await owed_count(store) == 0
    sent = [r for r in bot.requests if isinstance(r, SendMessage | SendPhoto)][1:]
    texts = [r for r in sent if isinstance(r, SendMessage)]
    assert len(texts) >= 2 and all(len(r.text) <= MESSAGE_LIMIT for r in texts)
    shown = [n for r in sent for n in numbers(r.text if isinstance(r, SendMessage) else r.caption)]
    assert sorted(shown) == list(range(1, 31))  # each caption once
    assert numbers(photos(bot)[-1].caption)[-1] == 30


# -- a reply for every deal ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "description"),
    [
        (400, "Bad Request: PHOTO_INVALID_DIMENSIONS"),
        (400, "Bad Request: IMAGE_PROCESS_FAILED"),
        (413, "Request Entity Too Large"),
    ],
)
async def test_a_picture_telegram_refuses_is_answered_with_the_text_sheet_and_the_caption(
    dispatcher: Dispatcher,
    chat: ChatDriver,
    bot: MockedBot,
    store: SqliteStore,
    status: int,
    description: str,
) -> None:
    await open_table(chat)
    bot.session.add_result(
        SendPhoto, status, {"ok": False, "error_code": status, "description": description}
    )
    answer = await chat.send(EVA, f"/deal {DEALS[0]}")
    assert [type(r) for r in answer] == [SendPhoto, SendMessage]
    text = answer[-1].text  # type: ignore[attr-defined]
    assert numbers(text) == [1] and DEALS[0] in plain_text(text)
    assert "Game #1, 1 deals" in plain_text(text) and "Balances" in plain_text(text)
    assert await owed_count(store) == 0


async def test_a_chat_that_blocked_the_bot_is_given_up_without_a_text_sheet(
    dispatcher: Dispatcher, chat: ChatDriver, bot: MockedBot, store: SqliteStore
) -> None:
    await open_table(chat)
    kicked = "Forbidden: bot was kicked from the supergroup chat"
    bot.session.add_result(SendPhoto, 403, {"ok": False, "error_code": 403, "description": kicked})
    answer = await chat.send(EVA, f"/deal {DEALS[0]}")
    assert [type(r) for r in answer] == [SendPhoto]
    assert await owed_count(store) == 0


async def test_a_caption_over_the_limit_goes_as_a_text_and_the_picture_gets_the_title(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore, wall: Wall
) -> None:
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 1)
    sender = sender_for(quiet, bot, wall)
    await sender.drain()
    async with store.reading() as repo:
        live = await repo.live_game(GROUP_ID)
        assert live is not None
        seq = (await repo.events(live.game_id))[-1].seq
    long = "\n".join(f"line {i}: " + "x" * 40 for i in range(40))
    async with store.transaction() as repo:
        await repo.owe([Owed(GROUP_ID, OwedKind.SHEET, long, "en", game_id=live.game_id, seq=seq)])
    before = len(bot.requests)
    await sender.drain()
    text, photo = bot.requests[before:]
    assert isinstance(text, SendMessage) and text.text == long
    assert isinstance(photo, SendPhoto) and photo.caption == "📝 Game #1, 1 deals"


# -- the database failing under the sender -------------------------------------------------------


def failing(times: int, real: Any) -> Any:
    """`real`, but failing with "database is locked" its first `times` calls."""
    calls = {"n": 0}

    async def call(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] <= times:
            raise sqlite3.OperationalError("database is locked")
        return await real(*args, **kwargs)

    return call


async def test_a_mark_that_fails_is_written_again_at_once_and_the_chat_goes_on(
    quiet: Dispatcher,
    bot: MockedBot,
    store: SqliteStore,
    wall: Wall,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The database refuses the first "sent" mark: nothing is sent twice, the chat's next rows
    follow in the same drain, no lease is waited for."""
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 1)
    await chat.send(EVA, "/score")
    monkeypatch.setattr(SqliteRepo, "owed_sent", failing(1, SqliteRepo.owed_sent))
    sender = sender_for(quiet, bot, wall)
    start = wall.now
    await sender.drain()
    assert [type(r) for r in bot.requests] == [SendMessage, SendPhoto, SendMessage]
    assert await owed_count(store) == 0 and wall.now == start


async def test_a_mark_with_the_live_sheet_that_keeps_failing_is_written_without_it(
    quiet: Dispatcher,
    bot: MockedBot,
    store: SqliteStore,
    wall: Wall,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 1)

    async def broken(self: SqliteRepo, game_id: int, message_id: int | None) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(SqliteRepo, "set_sheet_message", broken)
    sender = sender_for(quiet, bot, wall)
    for _ in range(3):
        await sender.drain()
    assert len(photos(bot)) == 1 and await owed_count(store) == 0


async def test_a_give_back_that_fails_is_written_again_and_the_row_goes_after_its_back_off(
    quiet: Dispatcher,
    bot: MockedBot,
    store: SqliteStore,
    wall: Wall,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    sender = sender_for(quiet, bot, wall)
    await sender.drain()
    await play(chat, 1)
    bot.session.add_result(
        SendPhoto, 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}
    )
    monkeypatch.setattr(SqliteRepo, "owed_retry", failing(1, SqliteRepo.owed_retry))
    assert await sender.drain() == 0
    wall.now += 1  # the back-off, far below the lease
    assert await sender.drain() == 1
    assert len(photos(bot)) == 2 and await owed_count(store) == 0


async def test_claims_whose_answer_was_lost_are_given_back_at_once(
    quiet: Dispatcher,
    bot: MockedBot,
    store: SqliteStore,
    wall: Wall,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The claim statement claims, then its answer is lost (a dropped connection): the next
    round gives those claims back and sends them, without waiting out the lease."""
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    real = SqliteRepo.claim_owed
    lost = {"n": 0}

    async def claim_then_fail(self: SqliteRepo, claimant: str, now: float, until: float) -> Any:
        rows = await real(self, claimant, now, until)
        if not lost["n"]:
            lost["n"] += 1
            raise sqlite3.OperationalError("disk I/O error")
        return rows

    monkeypatch.setattr(SqliteRepo, "claim_owed", claim_then_fail)
    sender = sender_for(quiet, bot, wall)
    with pytest.raises(sqlite3.OperationalError):
        await sender.drain()
    assert await sender.drain() == 1
    assert len(messages(bot)) == 1 and await owed_count(store) == 0


async def test_a_database_fault_while_drawing_is_retried_and_never_gives_the_reply_up(
    quiet: Dispatcher,
    bot: MockedBot,
    store: SqliteStore,
    wall: Wall,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fifteen failed reads of the sheet (more than the attempts a bug of ours gets): the
    photo still goes when the database answers."""
    chat = ChatDriver(quiet, bot)
    await open_table(chat)
    await play(chat, 1)
    monkeypatch.setattr(looks, "sheet_at", failing(15, looks.sheet_at))
    sender = sender_for(quiet, bot, wall)
    await deliver_all(sender, wall, store)
    assert len(photos(bot)) == 1
