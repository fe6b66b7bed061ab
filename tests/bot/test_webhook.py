"""Webhook mode on the one web listener: the secret header, the 2xx only after the command
committed, 500 and no word in the chat when the database failed on every try (Telegram sends the
update again), /healthz beside it, and the settings that choose it."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiogram import Dispatcher
from aiogram.methods import SendMessage
from aiohttp import ClientSession
from aiohttp.test_utils import TestServer
from pydantic import ValidationError

from bot.app import build_dispatcher
from bot.settings import Settings, settings_error_lines
from bot.storage import SqliteStore
from bot.storage.sqlite import SqliteRepo
from bot.telegram.inbound.transport import add_webhook
from bot.web.server import build_web_app
from tests.bot.factories import FakeClock
from tests.bot.mocked_bot import MockedBot

SECRET = "s3cret_Value-1"
HOOK = "https://bot.example.org/tg/hook"
HEADER = "X-Telegram-Bot-Api-Secret-Token"
CHAT = -1_009_000


def webhook_settings(**more: Any) -> Settings:
    return Settings(bot_token="42:TEST", webhook_url=HOOK, webhook_secret=SECRET, **more)


def newgame(update_id: int) -> dict[str, Any]:
    text = "/newgame sochi pool 10 Anna Boris Clara"
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1_767_225_600,
            "chat": {"id": CHAT, "type": "supergroup", "title": "Hook"},
            "from": {"id": 1001, "is_bot": False, "first_name": "Anna"},
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": 8}],
        },
    }


@dataclass
class Listener:
    url: str
    http: ClientSession
    store: SqliteStore
    dispatcher: Dispatcher
    bot: MockedBot

    async def post(self, update: dict[str, Any], secret: str | None = SECRET) -> int:
        headers = {HEADER: secret} if secret is not None else {}
        async with self.http.post(f"{self.url}/tg/hook", json=update, headers=headers) as answer:
            return answer.status

    async def events(self) -> int:
        async with self.store.reading() as repo:
            return await repo.count_events()

    async def seen(self, update_id: int) -> bool:
        async with self.store.reading() as repo:
            return await repo.update_seen(update_id)


@pytest.fixture
async def listener(tmp_path: Path) -> AsyncIterator[Listener]:
    store = await SqliteStore.open(tmp_path / "hook.sqlite3")
    settings = webhook_settings(default_locale="en")
    dispatcher = build_dispatcher(settings, store, FakeClock())
    bot = MockedBot()
    app = build_web_app(
        bot, dispatcher["core"], announce=dispatcher["announce"], default_locale="en"
    )
    assert add_webhook(app, dispatcher, bot, settings) == "/tg/hook"
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    async with ClientSession() as http:
        yield Listener(str(server.make_url("")).rstrip("/"), http, store, dispatcher, bot)
    await server.close()
    await store.close()


async def test_a_request_without_the_secret_is_refused_and_changes_nothing(
    listener: Listener,
) -> None:
    assert await listener.post(newgame(1), secret=None) == 401
    assert await listener.post(newgame(2), secret="wrong") == 401
    assert await listener.events() == 0
    assert not await listener.seen(1) and not await listener.seen(2)


async def test_the_answer_comes_once_the_command_has_committed(listener: Listener) -> None:
    assert await listener.post(newgame(3)) == 200
    assert await listener.seen(3) and await listener.events() > 0  # committed before the 200
    written = await listener.events()
    assert await listener.post(newgame(3)) == 200  # Telegram sent it again: handled once
    assert await listener.events() == written


async def test_a_database_failing_on_every_try_answers_500_says_nothing_and_records_it_later(
    listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database is locked on every attempt: 500 (Telegram sends the update again) and no
    word in the chat — no "nothing was recorded" about what the re-sent update then records."""

    async def locked(self: SqliteRepo, *args: Any) -> None:
        raise sqlite3.OperationalError("database is locked")

    bot: MockedBot = listener.bot
    with monkeypatch.context() as patch:
        patch.setattr(SqliteRepo, "mark_update", locked)
        assert await listener.post(newgame(4)) == 500
    assert await listener.events() == 0 and not await listener.seen(4)
    assert not [r for r in bot.requests if isinstance(r, SendMessage)], "a word before the commit"
    assert await listener.post(newgame(4)) == 200  # Telegram's re-send: recorded once
    assert await listener.seen(4) and await listener.events() > 0


async def test_healthz_answers_503_when_the_database_does_not(listener: Listener) -> None:
    async with listener.http.get(f"{listener.url}/healthz") as health:
        assert health.status == 200
    await listener.store.close()  # the database is gone
    async with listener.http.get(f"{listener.url}/healthz") as health:
        assert health.status == 503


def test_webhook_mode_needs_its_secret_and_listens_on_8080_by_default() -> None:
    settings = webhook_settings()
    assert settings.webhook_path() == "/tg/hook"
    assert settings.web_address() == ("0.0.0.0", 8080)
    assert Settings(bot_token="42:TEST").webhook_path() is None  # long polling
    root = Settings(bot_token="42:TEST", webhook_url="https://h.example", webhook_secret="x")
    assert root.webhook_path() == "/"
    with pytest.raises(ValidationError) as missing:
        Settings(bot_token="42:TEST", webhook_url=HOOK)
    assert settings_error_lines(missing.value) == [
        "WEBHOOK_SECRET is invalid: is required with WEBHOOK_URL (1-256 of A-Z a-z 0-9 _ -)."
    ]


@pytest.mark.parametrize(
    ("field", "value", "variable"),
    [
        ("webhook_url", "bot.example.org/hook", "WEBHOOK_URL"),
        ("webhook_secret", "has spaces in it", "WEBHOOK_SECRET"),
        ("redis_url", "localhost:6379", "REDIS_URL"),
    ],
)
def test_a_bad_webhook_setting_names_its_variable(field: str, value: str, variable: str) -> None:
    options: dict[str, Any] = {"webhook_url": HOOK, "webhook_secret": SECRET, field: value}
    with pytest.raises(ValidationError) as bad:
        Settings(bot_token="42:TEST", **options)
    lines = settings_error_lines(bad.value)
    assert len(lines) == 1 and lines[0].startswith(f"{variable} is invalid: ")
    assert value not in lines[0] or field == "webhook_url"  # a secret is never quoted
