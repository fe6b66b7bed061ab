"""Fixtures of the handler tests: a real dispatcher over a temporary database and a mocked Bot."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Dispatcher

from bot.app import build_dispatcher
from bot.core import GameService
from bot.settings import Settings
from bot.storage import SqliteStore
from tests.bot.factories import ChatDriver, FakeClock
from tests.bot.mocked_bot import MockedBot


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
def dispatcher(settings: Settings, store: SqliteStore, clock: FakeClock) -> Dispatcher:
    return build_dispatcher(settings, store, clock)


@pytest.fixture
def game(dispatcher: Dispatcher) -> GameService:
    service = dispatcher["game"]
    assert isinstance(service, GameService)
    return service


@pytest.fixture
def bot() -> MockedBot:
    return MockedBot()


@pytest.fixture
def chat(dispatcher: Dispatcher, bot: MockedBot) -> ChatDriver:
    return ChatDriver(dispatcher, bot)
