"""A forum supergroup whose topics are tables: one game per topic, every answer in its topic
(through the real dispatcher with a mocked Bot)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiogram.filters.callback_data import CallbackData
from aiogram.methods import SendMessage, SendPhoto, TelegramMethod
from aiogram.types import Update

from bot.core import Core, looks
from bot.telegram.keyboards import JoinCb
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, sent, texts

FORUM_ID = -1009876543210


@dataclass
class TopicDriver(ChatDriver):
    """A forum topic the tests type into: its messages carry `message_thread_id` and
    `is_topic_message` as Telegram's do (topic 0: the General topic, which carries neither)."""

    topic: int = 0

    def chat(self) -> dict[str, Any]:
        return {**super().chat(), "is_forum": True}

    def _in_topic(self, message: dict[str, Any]) -> None:
        if self.topic:
            message.update(message_thread_id=self.topic, is_topic_message=True)

    def message_update(
        self, user: Any, text: str | None, update_id: int | None = None, **extra: Any
    ) -> Update:
        if self.topic:
            extra = {"message_thread_id": self.topic, "is_topic_message": True, **extra}
        return super().message_update(user, text, update_id, **extra)

    def callback_update(self, user: Any, data: CallbackData | str, message_id: int) -> Update:
        raw = super().callback_update(user, data, message_id).model_dump(mode="json")
        self._in_topic(raw["callback_query"]["message"])
        return Update.model_validate(raw, context={"bot": self.bot})


def topics(chat: ChatDriver, *numbers: int) -> list[TopicDriver]:
    return [
        TopicDriver(chat.dispatcher, chat.bot, FORUM_ID, title="Pulka club", topic=n)
        for n in numbers
    ]


def threads(requests: list[TelegramMethod[Any]]) -> set[int | None]:
    return {r.message_thread_id for r in sent(requests)}


async def open_game(topic: TopicDriver, game_id: int, args: str = "sochi pool 10") -> None:
    answer = await topic.send(ANNA, f"/newgame {args}")
    assert isinstance(answer[0], SendMessage) and answer[0].reply_markup is not None
    assert threads(answer) == {topic.topic or None}
    await topic.press(ANNA, JoinCb(game=game_id))
    await topic.press(BORIS, JoinCb(game=game_id))
    joined = await topic.send(CLARA, "/join")
    assert threads(joined) == {topic.topic or None}


async def test_each_forum_topic_is_a_table_with_a_game_of_its_own(
    chat: ChatDriver, game: Core
) -> None:
    first, second = topics(chat, 7, 9)
    await open_game(first, 1)
    await open_game(second, 2, "leningrad pool 20")
    deal = await first.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    photos = [r for r in deal if isinstance(r, SendPhoto)]
    assert len(photos) == 1 and photos[0].message_thread_id == 7
    other = await second.send(BORIS, "/deal Boris 7♥ = vist:Anna pass:Clara")
    assert {r.message_thread_id for r in other if isinstance(r, SendPhoto)} == {9}
    first_score = await first.send(DMITRY, "/rules")
    second_score = await second.send(DMITRY, "/rules")
    assert "Sochi" in texts(first_score) and threads(first_score) == {7}
    assert "Leningrad" in texts(second_score) and threads(second_score) == {9}
    one = await looks.snapshot(game, FORUM_ID, topic=7)
    two = await looks.snapshot(game, FORUM_ID, topic=9)
    assert (one.state.game_id, two.state.game_id) == (1, 2)
    assert one.state.thread_id == 7 and two.state.thread_id == 9


async def test_a_second_game_in_the_same_topic_is_refused_but_general_is_a_table_too(
    chat: ChatDriver,
) -> None:
    general, topic = topics(chat, 0, 5)
    await open_game(topic, 1)
    again = await topic.send(BORIS, "/newgame sochi")
    assert "already" in texts(again) and threads(again) == {5}
    opened = await general.send(ANNA, "/newgame sochi")
    assert "already" not in texts(opened) and threads(opened) == {None}


async def test_the_forum_archive_lists_every_topics_games(chat: ChatDriver) -> None:
    first, second = topics(chat, 7, 9)
    await open_game(first, 1)
    await open_game(second, 2)
    listing = texts(await first.send(DMITRY, "/games"))
    assert "#1" in listing and "#2" in listing
