"""Issue 13 items 2-3: a deal read through a seat letter is echoed with the names; a Russian chat
reads every echo, example and /history line with Russian words and its players' names."""

from __future__ import annotations

from bot.texts.views import example_in
from tests.bot.factories import ChatDriver, TgUser

SASHA = TgUser(1061, "Саша", "sasha_k", "ru")


async def russian_game(chat: ChatDriver) -> None:
    await chat.send(SASHA, "/newgame sochi me Миша Лена")


async def test_a_seat_letter_is_echoed_with_the_names_in_russian(chat: ChatDriver) -> None:
    await russian_game(chat)
    echo = await chat.say(SASHA, "/deal А 6п = вист:Миша пас:Лена")  # Cyrillic А: seat A
    assert "Саша 6♠ = вист:Миша пас:Лена" in echo
    history = await chat.say(SASHA, "/history")
    assert "Саша 6♠ = вист:Миша пас:Лена" in history
    assert "vist" not in history and "pass:" not in history


async def test_a_russian_concession_and_misere_never_show_english_words(chat: ChatDriver) -> None:
    await chat.send(SASHA, "/newgame leningrad me Миша Лена")
    await chat.send(SASHA, "/deal Саша 6п без трёх")
    await chat.send(SASHA, "/deal Миша мизер 0")
    history = await chat.say(SASHA, "/history")
    assert "6♠ = уход" in history and "Миша мизер 0" in history
    assert "three_down" not in history and "misere" not in history


async def test_an_error_example_in_a_russian_chat_has_russian_words(chat: ChatDriver) -> None:
    await russian_game(chat)
    refused = await chat.say(SASHA, "/deal Саша 6п = вист:Миша пас:Саша")
    assert "Например: <code>Лена 7♠ -1 вист:Саша пас:Миша" in refused
    outsider = await chat.say(TgUser(1062, "Петя", "petya_x", "ru"), "/deal Саша 6п = вист:Миша")
    example = outsider.split("Например: <code>")[-1]
    assert example.startswith("/deal") and "vist:" not in example and "вист:" in example


def test_an_example_keeps_its_names_and_takes_russian_words() -> None:
    line = "/deal Anna 7♠ -1 vist:Boris pass:Clara"
    assert example_in("ru", line) == "/deal Anna 7♠ -1 вист:Boris пас:Clara"
    assert example_in("ru", "/deal Anna misere 0") == "/deal Anna мизер 0"
    assert example_in("en", line) == line
