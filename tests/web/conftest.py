"""Fixtures of the Mini App tests: a game played through the real dispatcher with the mocked Bot,
and the web application over the same service, driven by aiohttp's test client."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiogram import Dispatcher
from aiogram.methods import GetChatMember
from aiohttp.test_utils import TestClient, TestServer

from bot.app import build_dispatcher
from bot.core import Core
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.telegram.keyboards import JoinCb
from bot.web.auth import start_param
from bot.web.server import build_web_app
from tests.bot.factories import ANNA, BORIS, CLARA, ChatDriver, FakeClock, TgUser
from tests.bot.mocked_bot import MockedBot, deliver_through
from tests.web.signing import init_data

TOKEN = "42:TEST"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(bot_token=TOKEN, database_path=tmp_path / "t.sqlite3", default_locale="en")


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[SqliteStore]:
    store = await SqliteStore.open(settings.database_path)
    yield store
    await store.close()


@pytest.fixture
def dispatcher(settings: Settings, store: SqliteStore, bot: MockedBot) -> Dispatcher:
    dispatcher = build_dispatcher(settings, store, FakeClock())
    deliver_through(dispatcher, bot)  # the outbox is delivered after each commit
    return dispatcher


@pytest.fixture
def game(dispatcher: Dispatcher) -> Core:
    service = dispatcher["core"]
    assert isinstance(service, Core)
    return service


@pytest.fixture
def bot() -> MockedBot:
    return MockedBot(TOKEN)


@pytest.fixture
def chat(dispatcher: Dispatcher, bot: MockedBot) -> ChatDriver:
    return ChatDriver(dispatcher, bot)


@pytest.fixture
async def client(
    bot: MockedBot, game: Core, dispatcher: Dispatcher
) -> AsyncIterator[TestClient[Any, Any]]:
    app = build_web_app(bot, game, announce=dispatcher["announce"], default_locale="en")
    async with TestClient(TestServer(app)) as test_client:
        yield test_client


def user_raw(user: TgUser, language_code: str = "en") -> dict[str, Any]:
    return {**user.raw(), "language_code": language_code}


def auth(user: TgUser, *, language_code: str = "en", token: str = TOKEN, age: int = 60) -> str:
    """`Authorization: tma <initData>` for `user`, signed `age` seconds ago."""
    return "tma " + init_data(token, user_raw(user, language_code), int(time.time()) - age)


def member_answer(bot: MockedBot, user: TgUser, status: str = "member") -> None:
    """Queue Telegram's answer to the next getChatMember."""
    bot.add_result_for(GetChatMember, ok=True, result={"status": status, "user": user.raw()})


async def play(chat: ChatDriver, deals: tuple[tuple[TgUser, str], ...] = ()) -> str:
    """A Sochi game to 10 by Anna, Boris, Clara with these deals; its start parameter."""
    await chat.send(ANNA, "/newgame sochi pool 10")
    await chat.press(ANNA, JoinCb(game=1))
    await chat.press(BORIS, JoinCb(game=1))
    await chat.send(CLARA, "/join")
    for user, line in deals:
        await chat.send(user, f"/deal {line}")
    return start_param(TOKEN, 1)
