"""Every time a chat is shown is in the chat's time zone (its `/tz`, else its language's: ru →
Europe/Moscow, any other → UTC): vote deadlines, the history, the export's comments. A chat that
chose no language answers in the sender's Telegram `language_code` (ru* → ru, else en), not the
server's DEFAULT_LOCALE."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiogram.methods import SendDocument
from aiogram.types import BufferedInputFile

from bot.settings import Settings
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver, TgUser, texts
from tests.bot.test_disputes import buttons
from tests.bot.test_game_flow import open_game

DEAL = "Anna 6♠ = vist:Boris pass:Clara"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A server whose default language is Russian: what an English sender must not get."""
    return Settings(bot_token="42:TEST", database_path=tmp_path / "t.sqlite3", default_locale="ru")


async def protocol_of(chat: ChatDriver) -> str:
    answer = await chat.send(DMITRY, "/export")
    documents = [r.document for r in answer if isinstance(r, SendDocument)]
    assert documents and isinstance(documents[0], BufferedInputFile), texts(answer)
    return documents[0].data.decode()


async def test_a_russian_chats_vote_deadline_is_in_moscow_time(chat: ChatDriver) -> None:
    """The clock says 18:00 UTC; a 900-second vote ends 18:15 UTC = 21:15 in Moscow."""
    await chat.send(ANNA, "/lang ru")
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL}")
    vote = await chat.say(ANNA, "/endgame")
    assert "Голосование открыто до 21:15 MSK." in vote and "UTC" not in vote


async def test_an_english_chats_vote_deadline_is_in_utc_until_it_sets_a_zone(
    chat: ChatDriver,
) -> None:
    await chat.send(ANNA, "/lang en")
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL}")
    _, no = buttons(answer := await chat.send(ANNA, "/endgame"))
    assert "Open until 18:15 UTC." in texts(answer)
    await chat.press(BORIS, no)  # one ❌ rejects it
    await chat.send(ANNA, "/tz Asia/Tokyo")
    assert "Open until 03:15 JST." in await chat.say(ANNA, "/endgame")


async def test_the_history_shows_times_in_the_chats_zone(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/lang en")
    await chat.send(ANNA, "/tz Europe/Moscow")
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL}")
    history = await chat.say(DMITRY, "/history")
    assert "▶️ 2026-01-01 21:00 The game starts" in history
    assert "— Anna, 21:00" in history and "18:00" not in history


async def test_a_russian_history_writes_the_date_the_russian_way(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/lang ru")
    await open_game(chat)
    assert "▶️ 01.01.2026 21:00 Игра началась" in await chat.say(DMITRY, "/history")


async def test_the_exports_comments_name_their_times_in_the_chats_zone(
    chat: ChatDriver,
) -> None:
    await chat.send(ANNA, "/lang en")
    await chat.send(ANNA, "/tz Europe/Moscow")
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEAL}")
    await chat.send(BORIS, "/deal Boris 7♥ -1 pass:Clara vist:Anna")
    await chat.send(BORIS, "/undo")
    protocol = await protocol_of(chat)
    assert "2026-01-01 21:00 MSK" in protocol and "UTC" not in protocol


async def test_a_group_with_no_language_answers_an_english_sender_in_english(
    chat: ChatDriver,
) -> None:
    english = TgUser(4001, "Ann", "ann_uk", "en-GB")
    answer = await chat.say(english, "/score")
    assert "There is no game in this chat" in answer
    assert "В этом чате нет пульки" not in answer


async def test_a_group_with_no_language_answers_a_russian_sender_in_russian(
    chat: ChatDriver,
) -> None:
    assert "В этом чате нет пульки" in await chat.say(
        TgUser(4002, "Аня", "anya_r", "ru-RU"), "/score"
    )


async def test_a_chat_with_a_language_answers_in_it_whoever_writes(chat: ChatDriver) -> None:
    await chat.send(TgUser(4003, "Аня", "anya_r", "ru"), "/lang ru")
    english = TgUser(4004, "Ann", "ann_uk", "en")
    assert "В этом чате нет пульки" in await chat.say(english, "/score")


async def test_a_sender_without_a_language_code_gets_the_servers_default(
    chat: ChatDriver,
) -> None:
    assert ANNA.language_code is None
    assert "В этом чате нет пульки" in await chat.say(ANNA, "/score")


async def test_a_private_chat_answers_in_the_senders_language(chat: ChatDriver) -> None:
    private = ChatDriver(chat.dispatcher, chat.bot, chat_id=CLARA.id, chat_type="private")
    english = TgUser(CLARA.id, "Clara", "clara_p", "en-US")
    answer = await private.say(english, "/help")
    assert "/newgame" in answer and "открыть" not in answer
