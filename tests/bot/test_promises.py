"""A promise kept (issue 36): deals the bot said it would record by itself once saving works again
are recorded, in order, and answered — through real long polling, the real dispatcher and a
database that takes no writes for a while."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot
from aiogram.methods import GetUpdates, SendMessage, SendPhoto, TelegramMethod
from aiogram.methods.base import TelegramType
from aiohttp import ClientSession
from aiohttp.test_utils import TestServer

from bot.app import build_dispatcher
from bot.domain import Owed
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.storage.sqlite import SqliteRepo
from bot.telegram.inbound.transport import add_webhook, poll
from bot.web.server import build_web_app
from tests.bot.factories import EVA, ChatDriver, FakeClock
from tests.bot.mocked_bot import MockedBot, MockedSession, deliver_through
from tests.bot.test_delivery import started
from tests.bot.test_webhook import HEADER, HOOK, SECRET

LINES = [f"{p} 6♠ -1 vist:{w} pass:{q}" for p, w, q in [("Anna", "Boris", "Clara")] * 6]
FULL = sqlite3.OperationalError("database or disk is full")


def numbers_in(answers: list[str]) -> list[int]:
    """The deal numbers the answers name (`#4 …`), in the order they were sent."""
    return [int(n) for a in answers for n in re.findall(r"<b>#(\d+)</b>", a)]


class Telegram(MockedSession):
    """getUpdates as Telegram answers it (every update not confirmed by an offset); after
    `full_for` answers the disk has room again and the players send `later` deals."""

    def __init__(
        self,
        first: list[dict[str, Any]],
        later: list[dict[str, Any]],
        full_for: int,
        room: Any,
        stop: asyncio.Event,
    ) -> None:
        super().__init__()
        self.waiting, self.later, self.full_for, self.room, self.stop = (
            first,
            later,
            full_for,
            room,
            stop,
        )
        self.calls = 0

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if isinstance(method, GetUpdates):
            self.calls += 1
            if self.calls == self.full_for:
                self.room()  # the space returns; the players go on
                self.waiting += self.later
            if method.offset:
                self.waiting = [u for u in self.waiting if u["update_id"] >= method.offset]
            if not self.waiting and self.calls > self.full_for:
                self.stop.set()
            self.add_result(GetUpdates, 200, {"ok": True, "result": self.waiting})
        return await super().make_request(bot, method, timeout)


@pytest.mark.parametrize(
    "error", [FULL, sqlite3.OperationalError("attempt to write a readonly database")]
)
async def test_deals_promised_while_saving_fails_are_recorded_in_order_when_it_works_again(
    settings: Settings,
    store: SqliteStore,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
) -> None:
    bot = MockedBot()
    dispatcher = build_dispatcher(settings, store, clock)
    deliver_through(dispatcher, bot)
    chat = ChatDriver(dispatcher, bot)
    await started(chat)
    updates = [
        chat.message_update(EVA, f"/deal {line}")
        for line in LINES  # the scorekeeper
    ]
    raw = [u.model_dump(mode="json", exclude_none=True, by_alias=True) for u in updates]
    full = [True]
    original = SqliteRepo.owe

    async def owe(repo: SqliteRepo, rows: list[Owed]) -> None:
        if full[0]:
            raise error
        await original(repo, rows)

    monkeypatch.setattr(SqliteRepo, "owe", owe)
    monkeypatch.setattr("bot.telegram.inbound.transport.FIRST_AGAIN", 0.01)
    stop = asyncio.Event()
    telegram = Telegram(raw[:3], raw[3:], 4, lambda: full.__setitem__(0, False), stop)
    bot.session = telegram
    await asyncio.wait_for(poll(bot, dispatcher, stop, timeout=0), 30)
    said = [r.text for r in bot.requests if isinstance(r, SendMessage)]
    assert sum("I will record it by myself" in s for s in said) == 3  # each promise made once
    captions = [r.caption or "" for r in bot.requests if isinstance(r, SendPhoto)]
    assert numbers_in(said + captions) == [1, 2, 3, 4, 5, 6]  # the promised three, then the rest
    async with store.reading() as repo:
        game = await repo.live_game(chat.chat_id)
        assert game is not None
        deals = [e for e in await repo.events(game.game_id) if e.kind == "deal"]
    assert len(deals) == 6
    assert "nothing was recorded" not in " ".join(said).casefold()


async def test_in_webhook_mode_the_promise_holds_even_if_telegram_does_not_send_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three deals while the disk is full (500 each, and Telegram gives them up); the space
    returns: the bot records them by itself, in order, answers each, then the later three."""
    store = await SqliteStore.open(tmp_path / "hook.sqlite3")
    settings = Settings(
        bot_token="42:TEST", webhook_url=HOOK, webhook_secret=SECRET, default_locale="en"
    )
    dispatcher = build_dispatcher(settings, store, FakeClock())
    bot = MockedBot()
    deliver_through(dispatcher, bot)
    chat = ChatDriver(dispatcher, bot)
    await started(chat)
    app = build_web_app(
        bot, dispatcher["core"], announce=dispatcher["announce"], default_locale="en"
    )
    add_webhook(app, dispatcher, bot, settings)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    full = [True]
    original = SqliteRepo.owe

    async def owe(repo: SqliteRepo, rows: list[Owed]) -> None:
        if full[0]:
            raise FULL
        await original(repo, rows)

    monkeypatch.setattr(SqliteRepo, "owe", owe)
    updates = [chat.message_update(EVA, f"/deal {line}") for line in LINES]
    raw = [u.model_dump(mode="json", exclude_none=True, by_alias=True) for u in updates]
    promises = dispatcher["promises"]
    keeping = asyncio.create_task(promises.run(dispatcher, bot, tick=0.05))
    try:
        async with ClientSession() as http:

            async def post(update: dict[str, Any]) -> int:
                url = str(server.make_url("/tg/hook"))
                async with http.post(url, json=update, headers={HEADER: SECRET}) as answer:
                    return answer.status

            assert [await post(u) for u in raw[:3]] == [500, 500, 500]
            full[0] = False  # the space returns; Telegram sends nothing again
            for _ in range(100):
                if not promises.holds(chat.chat_id):
                    break
                await asyncio.sleep(0.05)
            assert [await post(u) for u in raw[3:]] == [200, 200, 200]
    finally:
        keeping.cancel()
        await server.close()
    said = [r.text for r in bot.requests if isinstance(r, SendMessage)]
    captions = [r.caption or "" for r in bot.requests if isinstance(r, SendPhoto)]
    assert sum("I will record it by myself" in s for s in said) == 3
    assert numbers_in(said + captions) == [1, 2, 3, 4, 5, 6]
    assert "nothing was recorded" not in " ".join(said).casefold()
    async with store.reading() as repo:
        game = await repo.live_game(chat.chat_id)
        assert game is not None
        assert sum(e.kind == "deal" for e in await repo.events(game.game_id)) == 6
    await store.close()
