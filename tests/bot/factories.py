"""Group chats, users and updates for the handler tests, with fixed ids and a fake clock."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from aiogram import Dispatcher
from aiogram.filters.callback_data import CallbackData
from aiogram.methods import SendMessage, SendPhoto, TelegramMethod
from aiogram.types import Update

from bot.core import attempts, corrections, debts, lobby, records, votes
from tests.bot.mocked_bot import MockedBot

START = datetime(2026, 1, 1, 18, 0, tzinfo=UTC)


@dataclass(frozen=True)
class TgUser:
    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None

    def raw(self) -> dict[str, Any]:
        user: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.username:
            user["username"] = self.username
        if self.language_code:
            user["language_code"] = self.language_code
        return user


ANNA = TgUser(1001, "Anna", "anna_p")
BORIS = TgUser(1002, "Boris", "boris_p")
CLARA = TgUser(1003, "Clara", "clara_p")
DMITRY = TgUser(1004, "Dmitry", "dmitry_p")  # watches, does not play
EVA = TgUser(1005, "Eva")  # no @username

GROUP_ID = -1001234567890


class FakeClock:
    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


_update_ids = itertools.count(1)


@dataclass
class ChatDriver:
    """A chat the tests type into; every answer the bot sends is in `bot.requests`."""

    dispatcher: Dispatcher
    bot: MockedBot
    chat_id: int = GROUP_ID
    chat_type: str = "supergroup"
    title: str = "Friday pulka"

    def chat(self) -> dict[str, Any]:
        chat: dict[str, Any] = {"id": self.chat_id, "type": self.chat_type}
        if self.chat_type != "private":
            chat["title"] = self.title
        return chat

    def next_message_id(self) -> int:
        """Users' and the bot's messages share one sequence per chat, as in Telegram."""
        self.bot.session.message_ids[self.chat_id] += 1
        return self.bot.session.message_ids[self.chat_id]

    def message_update(
        self, user: TgUser, text: str | None, update_id: int | None = None, **extra: Any
    ) -> Update:
        message: dict[str, Any] = {
            "message_id": self.next_message_id(),
            "date": int(START.timestamp()),
            "chat": self.chat(),
            "from": user.raw(),
            **extra,
        }
        if text is not None:
            message["text"] = text
        if text and text.startswith("/"):
            length = len(text.split()[0])
            message.setdefault("entities", []).insert(
                0, {"type": "bot_command", "offset": 0, "length": length}
            )
        uid = next(_update_ids) if update_id is None else update_id
        return Update.model_validate(
            {"update_id": uid, "message": message}, context={"bot": self.bot}
        )

    def callback_update(self, user: TgUser, data: CallbackData | str, message_id: int) -> Update:
        """A press on `message_id`, whose message comes with the buttons it shows (as Telegram's)."""
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": int(START.timestamp()),
            "chat": self.chat(),
            "from": {"id": 42, "is_bot": True, "first_name": "Pulka"},
            "text": "…",
        }
        markup = self.bot.session.markups.get((self.chat_id, message_id))
        if markup is not None:
            message["reply_markup"] = markup
        raw = {
            "update_id": next(_update_ids),
            "callback_query": {
                "id": f"cq{message_id}-{user.id}",
                "from": user.raw(),
                "chat_instance": "ci",
                "data": data.pack() if isinstance(data, CallbackData) else data,
                "message": message,
            },
        }
        return Update.model_validate(raw, context={"bot": self.bot})

    async def feed(self, update: Update) -> list[TelegramMethod[Any]]:
        """Feed one update through the real dispatcher; the requests it made."""
        before = len(self.bot.requests)
        await self.dispatcher.feed_update(self.bot, update)
        return self.bot.requests[before:]

    async def send(
        self, user: TgUser, text: str | None, **extra: Any
    ) -> list[TelegramMethod[Any]]:
        return await self.feed(self.message_update(user, text, **extra))

    async def press(
        self, user: TgUser, data: CallbackData | str, message_id: int = 1
    ) -> list[TelegramMethod[Any]]:
        return await self.feed(self.callback_update(user, data, message_id))

    async def say(self, user: TgUser, text: str) -> str:
        """The texts (and captions) of everything the bot sent in answer, joined."""
        return texts(await self.send(user, text))


def texts(requests: list[TelegramMethod[Any]]) -> str:
    parts = []
    for request in requests:
        for attr in ("text", "caption"):
            value = getattr(request, attr, None)
            if isinstance(value, str):
                parts.append(value)
        media = getattr(request, "media", None)
        if media is not None and isinstance(getattr(media, "caption", None), str):
            parts.append(media.caption)
    return "\n".join(parts)


def sent(requests: list[TelegramMethod[Any]]) -> list[SendMessage | SendPhoto]:
    return [r for r in requests if isinstance(r, SendMessage | SendPhoto)]


class Committing:
    """A `Core` whose commands each run in a unit of work of their own, committed when the
    command returns (as the middleware runs an update): `await Committing(game).record(caller, line)`
    for `attempts.run(game, lambda uow: records.record(uow, caller, line), caller)`."""

    def __init__(self, service: Any) -> None:
        self.service = service

    COMMANDS: ClassVar[dict[str, Any]] = {
        "new_game": lobby.new_game,
        "join": lobby.join,
        "claim": lobby.claim,
        "leave": lobby.leave,
        "set_locale": lobby.set_language,
        "record": records.record,
        "undo": records.undo,
        "edit": records.edit,
        "vote": votes.vote,
        "end_game": votes.end_game,
        "dispute": corrections.dispute,
        "propose_late": corrections.propose_late,
        "propose_rule": corrections.propose_rule,
        "name_arbiter": corrections.name_arbiter,
        "mark_debt": debts.mark,
        "paid": debts.paid_all,
    }

    def __getattr__(self, name: str) -> Any:
        command = self.COMMANDS[name]

        async def committed(caller: Any, *args: Any, **kwargs: Any) -> Any:
            async def work(uow: Any) -> Any:
                return await command(uow, caller, *args, **kwargs)

            return await attempts.run(self.service, work, caller)

        return committed
