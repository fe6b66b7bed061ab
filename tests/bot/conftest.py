"""Fixtures of the handler tests: a real dispatcher over a temporary database and a mocked Bot.

The outbox's sender runs too: every commit that owes replies drains the outbox through the mocked
Bot before the update's handling returns, so a test reads what was sent right after feeding."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Dispatcher

from bot.app import build_dispatcher
from bot.core import Core
from bot.settings import Settings
from bot.storage import SqliteStore
from tests.bot.factories import ChatDriver, FakeClock
from tests.bot.mocked_bot import MockedBot, deliver_through


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(bot_token="42:TEST", database_path=tmp_path / "t.sqlite3", default_locale="en")


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[SqliteStore]:
    store = await SqliteStore.open(settings.database_path)
    yield store
    await store.close()


@pytest.fixture
def dispatcher(
    settings: Settings, store: SqliteStore, clock: FakeClock, bot: MockedBot
) -> Dispatcher:
    dispatcher = build_dispatcher(settings, store, clock)
    deliver_through(dispatcher, bot)
    return dispatcher


@pytest.fixture
def game(dispatcher: Dispatcher) -> Core:
    service = dispatcher["core"]
    assert isinstance(service, Core)
    return service


@pytest.fixture
def bot() -> MockedBot:
    return MockedBot()


@pytest.fixture
def chat(dispatcher: Dispatcher, bot: MockedBot) -> ChatDriver:
    return ChatDriver(dispatcher, bot)
