"""The way into the Mini App (issue 15, Deliver 2): with MINIAPP_LINK set, every sheet message and
/sheet carry the "Open the live sheet" button to `MINIAPP_LINK?startapp=<param>`, the parameter
naming the game; in a private chat, with the page's address (MINIAPP_URL), a web_app button."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram.methods import SendPhoto

from bot.app import build_dispatcher
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.web.auth import game_of
from tests.bot.factories import ANNA, BORIS, ChatDriver, FakeClock
from tests.bot.mocked_bot import MockedBot, deliver_through

LINK = "https://t.me/pulka_test_bot/sheet"
TOKEN = "42:TEST"


@pytest.fixture
async def linked_chat(tmp_path: Path) -> AsyncIterator[ChatDriver]:
    settings = Settings(
        bot_token=TOKEN,
        database_path=tmp_path / "t.sqlite3",
        default_locale="en",
        miniapp_link=LINK,
    )
    store = await SqliteStore.open(settings.database_path)
    bot = MockedBot()
    dispatcher = build_dispatcher(settings, store, FakeClock())
    deliver_through(dispatcher, bot)
    yield ChatDriver(dispatcher, bot)
    await store.close()


def photo_button_url(answer: list[object]) -> str:
    photos = [r for r in answer if isinstance(r, SendPhoto)]
    assert len(photos) == 1
    markup = photos[0].reply_markup
    assert markup is not None
    (button,) = markup.inline_keyboard[-1]  # type: ignore[union-attr]
    assert button.url is not None
    return button.url


async def test_every_sheet_message_and_sheet_carry_the_live_sheet_button(
    linked_chat: ChatDriver,
) -> None:
    await linked_chat.send(ANNA, "/newgame sochi pool 10 Anna Boris Clara")
    url = photo_button_url(await linked_chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara"))
    assert url.startswith(f"{LINK}?startapp=g")
    param = url.partition("startapp=")[2]
    game_id = game_of(TOKEN, param)  # the parameter names the game, signed with the bot's token
    assert photo_button_url(await linked_chat.send(BORIS, "/sheet")) == url
    assert game_of(TOKEN, url.partition("startapp=")[2]) == game_id
    assert photo_button_url(await linked_chat.send(ANNA, "/deal Boris 6♠ = vist:Clara pass:Anna"))


async def test_without_miniapp_link_the_sheet_has_no_button(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi pool 10 Anna Boris Clara")
    answer = await chat.send(ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    photos = [r for r in answer if isinstance(r, SendPhoto)]
    assert len(photos) == 1 and photos[0].reply_markup is None
