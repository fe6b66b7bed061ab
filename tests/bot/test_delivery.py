"""Delivery (docs/architecture.md "Delivery"): a command's reply is owed in the command's own
transaction, the sender delivers it with retries, and polling confirms a batch only once it was
handled."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from typing import Any

import pytest
from aiogram import Bot, Dispatcher
from aiogram.methods import EditMessageText, GetUpdates, SendMessage, SendPhoto, TelegramMethod
from aiogram.methods.base import TelegramType

from bot.app import build_dispatcher
from bot.core import Caller, Core, UnitOfWork, attempts, records
from bot.domain import Owed, OwedKind
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.storage.sqlite import SqliteRepo
from bot.telegram.inbound.transport import poll
from bot.telegram.keyboards import JoinCb
from bot.telegram.outbound.outbox import close_expired_votes
from bot.telegram.outbound.sender import Sender
from bot.texts.i18n import translator
from tests.bot.factories import ANNA, BORIS, CLARA, EVA, GROUP_ID, ChatDriver, FakeClock, texts
from tests.bot.mocked_bot import MockedBot, MockedSession, deliver_through
from tests.bot.test_disputes import DEAL_1, DEAL_1_FIXED

LINE = "Anna 6♠ -1 vist:Boris pass:Clara"


class Wall:
    """The sender's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def quiet(settings: Settings, store: SqliteStore, clock: FakeClock) -> Dispatcher:
    """A dispatcher whose outbox nobody delivers until the test says so."""
    return build_dispatcher(settings, store, clock)


async def owed_count(store: SqliteStore) -> int:
    async with store.reading() as repo:
        return await repo.owed_count()


async def started(chat: ChatDriver) -> None:
    await chat.send(EVA, "/newgame sochi Anna Boris Clara")


async def test_a_deal_and_the_reply_it_owes_commit_together_and_the_sender_sends_it(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore
) -> None:
    chat = ChatDriver(quiet, bot)
    await started(chat)
    before = len(bot.requests)
    await chat.send(EVA, f"/deal {LINE}")
    assert len(bot.requests) == before, "a handler called Telegram itself"
    async with store.reading() as repo:
        assert await repo.count_events() > 0
        game = await repo.live_game(GROUP_ID)
        assert game is not None
        assert await repo.sheet_message(game.game_id) is None
    owed = await owed_count(store)
    assert owed >= 2  # the /newgame answer and the deal's sheet
    sender = Sender(bot, quiet["core"], clock=Wall(), name="tests/0/a")
    assert await sender.drain() == owed
    photos = [r for r in bot.requests if isinstance(r, SendPhoto)]
    assert len(photos) == 1 and photos[0].caption is not None and LINE in photos[0].caption
    async with store.reading() as repo:  # the live sheet is the photo Telegram answered with
        assert await repo.sheet_message(game.game_id) == bot.session.message_ids[GROUP_ID]
    assert await owed_count(store) == 0


async def test_a_command_whose_handler_fails_afterwards_records_nothing_and_owes_nothing(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore
) -> None:
    chat = ChatDriver(quiet, bot)
    await started(chat)
    game: Core = quiet["core"]
    async with store.reading() as repo:
        events, owed = await repo.count_events(), await repo.owed_count()
    caller = Caller(GROUP_ID, EVA.id, EVA.first_name, EVA.username, update_id=77)

    async def work(uow: UnitOfWork) -> None:
        await records.record(uow, caller, LINE)
        uow.owe(Owed(GROUP_ID, OwedKind.TEXT, "recorded", "en"))
        raise RuntimeError("the handler broke after the command")

    with pytest.raises(RuntimeError):
        await attempts.run(game, work, caller)
    async with store.reading() as repo:
        assert (await repo.count_events(), await repo.owed_count()) == (events, owed)
        assert not await repo.update_seen(77)  # Telegram's redelivery will be handled


async def test_a_429_waits_its_retry_after_and_the_reply_is_sent_once(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore
) -> None:
    chat = ChatDriver(quiet, bot)
    await started(chat)
    wall = Wall()
    sender = Sender(bot, quiet["core"], clock=wall, name="tests/0/b")
    await sender.drain()
    await chat.send(EVA, f"/deal {LINE}")
    too_many = {
        "description": "Too Many Requests: retry after 5",
        "parameters": {"retry_after": 5},
    }
    bot.session.add_result(SendPhoto, 429, {"ok": False, "error_code": 429, **too_many})
    assert await sender.drain() == 0
    wall.now += 4
    assert await sender.drain() == 0  # not before retry_after
    wall.now += 1
    assert await sender.drain() == 1
    photos = [r for r in bot.requests if isinstance(r, SendPhoto)]
    assert len(photos) == 2  # the refused attempt and the one that went through


async def test_a_failed_send_never_tells_the_chat_that_nothing_was_recorded(
    dispatcher: Dispatcher, chat: ChatDriver, bot: MockedBot, store: SqliteStore
) -> None:
    """The send fails after the command committed: the reply stays owed, no error is shown."""
    await started(chat)
    bad_gateway = {"ok": False, "error_code": 502, "description": "Bad Gateway"}
    bot.session.add_result(SendPhoto, 502, bad_gateway)
    answer = texts(await chat.send(EVA, f"/deal {LINE}"))
    assert "nothing was recorded" not in answer.casefold()
    assert await owed_count(store) == 1
    sender: Sender = dispatcher["sender"]
    sender.clock = lambda: Wall()() + 60  # after the back-off
    assert await sender.drain() == 1
    assert await owed_count(store) == 0


class Polled(MockedSession):
    """Answers getUpdates from `batches`; stops the loop at the call after the last batch, noting
    how many events were recorded by then."""

    def __init__(self, batches: list[list[dict[str, Any]]], stop: asyncio.Event) -> None:
        super().__init__()
        self.batches = batches
        self.stop = stop
        self.offsets: list[int | None] = []
        self.store: SqliteStore | None = None
        self.events_at_confirm: list[int] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if isinstance(method, GetUpdates):
            self.offsets.append(method.offset)
            if self.store is not None:
                async with self.store.reading() as repo:
                    self.events_at_confirm.append(await repo.count_events())
            if self.batches:
                batch = self.batches.pop(0)
            else:
                batch = []
                self.stop.set()
            self.add_result(GetUpdates, 200, {"ok": True, "result": batch})
        return await super().make_request(bot, method, timeout)


async def test_polling_confirms_a_batch_only_once_every_update_of_it_was_handled(
    settings: Settings, store: SqliteStore, clock: FakeClock
) -> None:
    stop = asyncio.Event()
    bot = MockedBot()
    dispatcher = build_dispatcher(settings, store, clock)
    driver = ChatDriver(dispatcher, bot)
    other = ChatDriver(dispatcher, bot, chat_id=GROUP_ID - 1)
    updates = [
        driver.message_update(EVA, "/newgame sochi Anna Boris Clara"),
        other.message_update(EVA, "/newgame sochi Anna Boris Clara"),
        driver.message_update(EVA, f"/deal {LINE}"),
        other.message_update(EVA, f"/deal {LINE}"),
    ]
    raw = [u.model_dump(mode="json", exclude_none=True, by_alias=True) for u in updates]
    session = Polled([raw], stop)
    session.store = store
    bot.session = session
    deliver_through(dispatcher, bot)
    await asyncio.wait_for(poll(bot, dispatcher, stop, timeout=0), 10)
    assert session.offsets == [None, updates[-1].update_id + 1]
    first, confirmed = session.events_at_confirm
    assert first == 0 and confirmed > 0
    async with store.reading() as repo:
        assert await repo.count_events() == confirmed  # nothing was handled after the confirm
        for chat_id in (GROUP_ID, GROUP_ID - 1):
            game = await repo.live_game(chat_id)
            assert game is not None
            kinds = [e.kind for e in await repo.events(game.game_id)]
            assert kinds[-1] == "deal"  # each chat: its /newgame, then its /deal
    sent = [r for r in bot.requests if isinstance(r, SendMessage | SendPhoto)]
    assert sum(isinstance(r, SendPhoto) for r in sent) == 2


async def test_the_vote_clock_closes_each_vote_in_the_transaction_of_its_messages(
    dispatcher: Dispatcher, bot: MockedBot, store: SqliteStore, clock: FakeClock
) -> None:
    """Two chats' votes time out in one tick: if their messages cannot be owed, neither vote
    closes and both stay watched (the next tick tries again); then both close, each message
    redrawn once."""
    game: Core = dispatcher["core"]
    chats = [ChatDriver(dispatcher, bot), ChatDriver(dispatcher, bot, chat_id=GROUP_ID - 7)]
    for number, chat in enumerate(chats, start=1):
        await chat.send(ANNA, "/newgame sochi pool 10 vote_seconds=60")
        await chat.press(ANNA, JoinCb(game=number))
        await chat.press(BORIS, JoinCb(game=number))
        await chat.send(CLARA, "/join")
        await chat.send(ANNA, f"/deal {DEAL_1}")
        await chat.send(BORIS, f"/dispute 1 {DEAL_1_FIXED}")
    clock.advance(61)

    async def refuse(self: SqliteRepo, rows: list[Owed]) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    async def closed() -> list[int]:
        async with store.reading() as repo:
            counts = []
            for chat in chats:
                live = await repo.live_game(chat.chat_id)
                assert live is not None
                kinds = [e.kind for e in await repo.events(live.game_id)]
                counts.append(kinds.count("vote_closed"))
            return counts

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SqliteRepo, "owe", refuse)
        assert await close_expired_votes(game, "en") == 0
    assert await closed() == [0, 0]
    before = len(bot.requests)
    assert await close_expired_votes(game, "en") == 2
    assert await closed() == [1, 1]
    edits = [r for r in bot.requests[before:] if isinstance(r, EditMessageText)]
    assert sorted(int(r.chat_id or 0) for r in edits) == sorted(c.chat_id for c in chats)


async def test_a_restarted_sender_frees_its_dead_predecessor_s_claims_at_once(
    quiet: Dispatcher, bot: MockedBot, store: SqliteStore
) -> None:
    """A SIGKILLed process leaves claims with a lease; the next one on the host frees those of
    dead pids (a live process's claims wait for their lease)."""
    async with store.transaction() as repo:
        await repo.owe([Owed(1, OwedKind.TEXT, "a", "en"), Owed(2, OwedKind.TEXT, "b", "en")])
    dead, live = "box/999999999/x", f"box/{os.getppid()}/y"
    now = Wall()()
    async with store.transaction() as repo:
        (first,) = [r for r in await repo.claim_owed(dead, now, now + 30) if r.owed.chat_id == 1]
        await repo.owed_retry(first.id, dead, now, "killed")  # chat 1's row back, to reclaim:
        assert len(await repo.claim_owed(live, now, now + 30)) == 1
        assert len(await repo.claim_owed(dead, now, now + 30)) == 0  # chat 2's is still dead's
    sender = Sender(bot, quiet["core"], clock=Wall(), name=f"box/{os.getpid()}/z")
    assert await sender.release_dead() == 1
    async with store.reading() as repo:
        assert sorted(await repo.owed_claimants()) == sorted([live])


class Telegram(MockedSession):
    """getUpdates as Telegram answers it: every update not yet confirmed by an offset, in order;
    `stop` is set once every update was confirmed."""

    def __init__(self, raw: list[dict[str, Any]], stop: asyncio.Event) -> None:
        super().__init__()
        self.waiting = list(raw)
        self.stop = stop
        self.offsets: list[int | None] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if isinstance(method, GetUpdates):
            self.offsets.append(method.offset)
            if method.offset:
                self.waiting = [u for u in self.waiting if u["update_id"] >= method.offset]
            if not self.waiting:
                self.stop.set()
            self.add_result(GetUpdates, 200, {"ok": True, "result": self.waiting})
        return await super().make_request(bot, method, timeout)


async def polled(
    settings: Settings,
    store: SqliteStore,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    failures: int,
    give_up: float = 300.0,
) -> tuple[MockedBot, Telegram, list[int]]:
    """A game, then a /deal in its chat and a /help in another polled while the deal's commit
    fails `failures` times with "database is locked"; (the bot, its Telegram, the update ids of
    the /deal and the /help)."""
    stop = asyncio.Event()
    bot = MockedBot()
    dispatcher = build_dispatcher(settings, store, clock)
    deliver_through(dispatcher, bot)
    chat, other = ChatDriver(dispatcher, bot), ChatDriver(dispatcher, bot, chat_id=GROUP_ID - 1)
    await started(chat)
    updates = [chat.message_update(EVA, f"/deal {LINE}"), other.message_update(EVA, "/help")]
    raw = [u.model_dump(mode="json", exclude_none=True, by_alias=True) for u in updates]
    telegram = Telegram(raw, stop)
    bot.session = telegram
    monkeypatch.setattr("bot.telegram.inbound.transport.FIRST_AGAIN", 0.01)
    original, hits = SqliteRepo.owe, [0]

    async def owe(repo: SqliteRepo, rows: list[Owed]) -> None:
        if hits[0] < failures and rows[0].chat_id == GROUP_ID:  # the deal's, not /help's
            hits[0] += 1
            raise sqlite3.OperationalError("database is locked")
        await original(repo, rows)

    monkeypatch.setattr(SqliteRepo, "owe", owe)
    await asyncio.wait_for(poll(bot, dispatcher, stop, timeout=0, give_up=give_up), 20)
    return bot, telegram, [u.update_id for u in updates]


def helped(bot: MockedBot) -> int:
    """How many times /help's screen was sent."""
    screen = translator("en")("helpscreen-home").split("\n")[0]
    return sum(screen in r.text for r in bot.requests if isinstance(r, SendMessage))


async def test_polling_confirms_no_update_whose_database_failed_and_handles_it_again_until_saved(
    settings: Settings, store: SqliteStore, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every attempt at the deal fails (twice over): the batch is asked for again from the deal,
    not past it; the other chat's /help, handled, comes with it but is not answered again; the
    deal is recorded once, and no word was said before it was."""
    bot, telegram, (deal_id, help_id) = await polled(
        settings, store, clock, monkeypatch, failures=10
    )
    assert telegram.offsets == [None, deal_id, deal_id, help_id + 1]
    assert helped(bot) == 1
    photos = [r for r in bot.requests if isinstance(r, SendPhoto)]
    assert len(photos) == 1 and LINE in (photos[0].caption or "")
    assert "nothing was recorded" not in texts(bot.requests).casefold()
    async with store.reading() as repo:
        game = await repo.live_game(GROUP_ID)
        assert game is not None
        assert [e.kind for e in await repo.events(game.game_id)].count("deal") == 1
    assert deal_id < help_id


async def test_polling_gives_an_update_up_after_its_time_and_says_then_that_nothing_was_recorded(
    settings: Settings, store: SqliteStore, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, telegram, (deal_id, help_id) = await polled(
        settings, store, clock, monkeypatch, failures=1000, give_up=0.0
    )
    assert telegram.offsets == [None, deal_id, help_id + 1]  # its last try, then confirmed
    said = texts(bot.requests)
    assert said.count("nothing was recorded") == 1 and "gave up" in said
    async with store.reading() as repo:
        game = await repo.live_game(GROUP_ID)
        assert game is not None
        assert "deal" not in [e.kind for e in await repo.events(game.game_id)]
