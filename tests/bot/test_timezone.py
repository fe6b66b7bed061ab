"""The chat's time zone: `/tz Region/City` (any case, checked against the zone database), shown by
`/tz`, kept per chat, by default the one of the chat's language (ru → Moscow, else UTC), and read
from the database with the chat's settings on every update, so every instance shows what was
chosen last."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.app import build_dispatcher
from bot.core.errors import GameError
from bot.core.zones import chat_zone, parse_zone
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.texts.i18n import chat_time
from tests.bot.archive_games import short_game
from tests.bot.factories import ANNA, BORIS, DMITRY, ChatDriver, FakeClock
from tests.bot.mocked_bot import MockedBot, deliver_through

AT = datetime(2026, 3, 1, 22, 30, tzinfo=UTC)


def test_a_time_is_written_in_the_zone_and_the_language_s_way() -> None:
    moscow = ZoneInfo("Europe/Moscow")
    assert chat_time(AT, moscow, "ru") == "02.03.2026 01:30"
    assert chat_time(AT, moscow, "en") == "2026-03-02 01:30"
    assert chat_time(AT, moscow, "en", clock=False) == "2026-03-02"
    assert chat_time(AT, moscow, "ru", date=False, label=True) == "01:30 MSK"
    assert chat_time(AT, ZoneInfo("UTC"), "en", date=False) == "22:30"


def test_a_chat_without_a_zone_takes_its_language_s() -> None:
    assert chat_zone(None, "ru") == ZoneInfo("Europe/Moscow")
    assert chat_zone(None, "en") == ZoneInfo("UTC") == chat_zone(None, None)
    assert chat_zone("Asia/Almaty", "ru") == ZoneInfo("Asia/Almaty")
    assert chat_zone("Gone/Zone", "ru") == ZoneInfo("Europe/Moscow")  # a zone no longer known


@pytest.mark.parametrize("typed", ["Mars/Base", "Moscow", "", "+03:00", "x" * 100, "../etc"])
def test_a_name_that_is_no_zone_is_refused_quoting_it_with_an_example(typed: str) -> None:
    with pytest.raises(GameError) as refused:
        parse_zone(typed)
    assert refused.value.code == "bad-zone"
    assert refused.value.span == (typed or "/tz") and refused.value.example == "/tz Europe/Moscow"


def test_a_zone_is_found_in_any_case() -> None:
    assert parse_zone(" europe/MOSCOW ").key == "Europe/Moscow"
    assert parse_zone("utc").key == "UTC"


async def test_tz_sets_the_chat_s_zone_and_tz_alone_shows_it(
    chat: ChatDriver, clock: FakeClock
) -> None:
    clock.now = AT
    assert "time zone: UTC (22:30 UTC now)" in await chat.say(ANNA, "/tz")
    answer = await chat.say(ANNA, "/tz asia/almaty")
    assert "time zone is now Asia/Almaty" in answer
    assert "Asia/Almaty (" in await chat.say(BORIS, "/tz")
    other = ChatDriver(chat.dispatcher, chat.bot, chat_id=-100999, title="Other")
    assert "time zone: UTC" in await other.say(ANNA, "/tz")  # kept per chat


async def test_a_russian_chat_lives_in_moscow_time_until_it_chooses(
    chat: ChatDriver, clock: FakeClock
) -> None:
    clock.now = AT
    await chat.send(ANNA, "/lang ru")
    assert "Часовой пояс чата: Europe/Moscow (сейчас 01:30 MSK)" in await chat.say(ANNA, "/tz")
    refused = await chat.say(ANNA, "/tz Марс")
    assert "Такого часового пояса я не знаю" in refused and "<code>Марс</code>" in refused
    assert "<code>/tz Europe/Moscow</code>" in refused


async def test_while_a_game_is_on_only_its_players_change_the_zone(chat: ChatDriver) -> None:
    await chat.send(ANNA, "/newgame sochi pool 10 me @boris_p @clara_p")
    refused = await chat.say(DMITRY, "/tz Europe/Berlin")
    assert "only its players change the chat's time zone" in refused
    assert "time zone: UTC" in await chat.say(DMITRY, "/tz")
    assert "now Europe/Berlin" in await chat.say(BORIS, "/tz Europe/Berlin")


async def test_another_instance_shows_the_zone_chosen_through_this_one_at_once(
    chat: ChatDriver, settings: Settings, store: SqliteStore
) -> None:
    """Two bot processes on one database: no instance keeps a chat's zone of its own."""
    await short_game(chat, "a")
    other_dispatcher = build_dispatcher(settings, store, FakeClock(AT))
    other_bot = MockedBot()
    deliver_through(other_dispatcher, other_bot)
    there = ChatDriver(other_dispatcher, other_bot)
    assert "2026-01-01" in await there.say(ANNA, "/games")
    await chat.send(ANNA, "/tz Pacific/Honolulu")  # the game was made at 18:00 UTC: 08:00 there
    assert "Pacific/Honolulu" in await there.say(ANNA, "/tz")
    assert "#1</b> · 2026-01-01" in await there.say(ANNA, "/games")
    await chat.send(ANNA, "/tz Pacific/Kiritimati")  # UTC+14: 2 January
    assert "#1</b> · 2026-01-02" in await there.say(ANNA, "/games")
