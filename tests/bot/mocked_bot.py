"""A Bot whose session talks to no server: every request is kept, every answer made up.

Like aiogram's own test double (tests/mocked_bot.py in aiogram), answers go through the real
`BaseSession.check_response`, so they are parsed as Telegram's would be. Answers are made per method
(a sent message gets the next message id in its chat) unless a test queues one with `add_result_for`
— e.g. an error for `EditMessageMedia`. Like Telegram, it remembers the inline keyboard each message
shows now (`markups`), which a pressed button's update carries with its message.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import AsyncGenerator
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.base import BaseSession
from aiogram.enums import ParseMode
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageMedia,
    EditMessageReplyMarkup,
    EditMessageText,
    GetMe,
    SendDocument,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import InlineKeyboardMarkup, User

from bot.core import Core
from bot.telegram.outbound.pacing import Pacing
from bot.telegram.outbound.sender import Sender

BOT_ID = 42
BOT_USER = {"id": BOT_ID, "is_bot": True, "first_name": "Pulka", "username": "pulka_bot"}
DATE = 1_767_225_600  # 2026-01-01 00:00 UTC


class MockedSession(BaseSession):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[TelegramMethod[Any]] = []
        self.queued: dict[type, deque[tuple[int, dict[str, Any]]]] = defaultdict(deque)
        self.message_ids: dict[int, int] = defaultdict(lambda: 10_000)
        self.markups: dict[tuple[int, int], dict[str, Any]] = {}
        self.closed = True

    def add_result(self, method: type, status: int, body: dict[str, Any]) -> None:
        self.queued[method].append((status, body))

    async def close(self) -> None:
        self.closed = True

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        self.closed = False
        self.requests.append(method)
        queue = self.queued.get(type(method))
        if queue:
            status, body = queue.popleft()
        else:
            status, body = 200, {"ok": True, "result": self.result_of(method)}
        response = self.check_response(bot, method, status, json.dumps(body))
        return response.result  # type: ignore[return-value]

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:  # pragma: no cover - nothing is downloaded
        yield b""

    def result_of(self, method: TelegramMethod[Any]) -> Any:
        if isinstance(method, GetMe):
            return BOT_USER
        if isinstance(method, SendMessage | SendPhoto | SendDocument):
            chat_id = int(method.chat_id)
            self.message_ids[chat_id] += 1
            message: dict[str, Any] = {
                "message_id": self.message_ids[chat_id],
                "date": DATE,
                "chat": {"id": chat_id, "type": "supergroup" if chat_id < 0 else "private"},
                "from": BOT_USER,
            }
            if isinstance(method, SendMessage):
                message["text"] = method.text
                self.keep_markup(chat_id, self.message_ids[chat_id], method.reply_markup)
            elif isinstance(method, SendDocument):
                message["caption"] = method.caption
                message["document"] = {"file_id": "d", "file_unique_id": "d"}
            else:
                message["caption"] = method.caption
                message["photo"] = [
                    {"file_id": "p", "file_unique_id": "p", "width": 100, "height": 100}
                ]
            return message
        if isinstance(method, EditMessageText) and method.chat_id is not None:
            assert method.message_id is not None
            self.keep_markup(int(method.chat_id), method.message_id, method.reply_markup)
            return True
        if isinstance(method, EditMessageReplyMarkup) and method.chat_id is not None:
            assert method.message_id is not None
            self.keep_markup(int(method.chat_id), method.message_id, method.reply_markup)
            return True
        if isinstance(method, EditMessageText | EditMessageMedia):
            return True
        if isinstance(method, AnswerCallbackQuery):
            return True
        return True

    def keep_markup(self, chat_id: int, message_id: int, markup: object) -> None:
        if isinstance(markup, InlineKeyboardMarkup):
            self.markups[chat_id, message_id] = markup.model_dump(mode="json", exclude_none=True)
        else:
            self.markups.pop((chat_id, message_id), None)


class MockedBot(Bot):
    session: MockedSession

    def __init__(self, token: str = "42:TEST") -> None:
        super().__init__(
            token,
            session=MockedSession(),
            default=DefaultBotProperties(parse_mode=ParseMode.HTML),
        )
        self._me = User.model_validate(BOT_USER)

    def add_result_for(
        self,
        method: type[TelegramMethod[Any]],
        ok: bool,
        result: Any = None,
        description: str | None = None,
        error_code: int = 200,
    ) -> None:
        body: dict[str, Any] = {"ok": ok, "result": result}
        if description is not None:
            body["description"] = description
        if not ok:
            body["error_code"] = error_code
        self.session.add_result(method, error_code, body)

    @property
    def requests(self) -> list[TelegramMethod[Any]]:
        return self.session.requests


def deliver_through(
    dispatcher: Dispatcher,
    bot: MockedBot,
    pacing: Pacing | None = None,
) -> Sender:
    """Run the outbox's sender in the test: every commit that owes replies drains the outbox
    through `bot` before the update's handling returns; nothing is paced unless `pacing` says
    so."""
    game = dispatcher["core"]
    assert isinstance(game, Core)
    sender = Sender(bot, game, name="tests/0/sender", pacing=pacing)

    async def deliver() -> None:
        await sender.drain()

    game.notify = deliver
    dispatcher["sender"] = sender
    return sender
