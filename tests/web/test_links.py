"""The way in (issue 15, Deliver 2): the live-sheet button, and the settings that switch it on."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.settings import Settings
from bot.texts.i18n import translator
from bot.web.auth import game_of, live_sheet_button, start_param

TOKEN = "42:TEST"
LINK = "https://t.me/pulka_bot/sheet"


def test_no_button_without_miniapp_link() -> None:
    assert live_sheet_button(translator("en"), TOKEN, 7, None) is None


def test_in_a_group_the_button_opens_the_app_link_with_the_games_start_parameter() -> None:
    button = live_sheet_button(translator("ru"), TOKEN, 7, LINK)
    assert button is not None and button.text == "📊 Живая пулька"
    assert button.url == f"{LINK}?startapp={start_param(TOKEN, 7)}"
    assert game_of(TOKEN, (button.url or "").partition("startapp=")[2]) == 7
    english = live_sheet_button(translator("en"), TOKEN, 7, LINK)
    assert english is not None and english.text == "📊 Open the live sheet"


def test_in_a_private_chat_a_web_app_button_opens_the_page_directly() -> None:
    button = live_sheet_button(
        translator("en"), TOKEN, 7, LINK, private=True, app_url="https://pulka.example/app"
    )
    assert button is not None and button.web_app is not None and button.url is None
    assert button.web_app.url == f"https://pulka.example/app?start={start_param(TOKEN, 7)}"
    # without the page's https address the private chat gets the link button too
    fallback = live_sheet_button(translator("en"), TOKEN, 7, LINK, private=True)
    assert fallback is not None and fallback.url is not None


def test_web_listen_and_miniapp_link_settings() -> None:
    assert Settings(bot_token=TOKEN).web_address() is None
    assert Settings(bot_token=TOKEN, web_listen="127.0.0.1:9000").web_address() == (
        "127.0.0.1",
        9000,
    )
    assert Settings(bot_token=TOKEN, web_listen=":9000").web_address() == ("0.0.0.0", 9000)
    with_link = Settings(bot_token=TOKEN, miniapp_link=LINK + "/")
    assert with_link.miniapp_link == LINK and with_link.web_address() == ("0.0.0.0", 8080)
    for bad in ({"web_listen": "localhost"}, {"web_listen": "h:99999"},
                {"miniapp_link": "http://t.me/x/y"}, {"miniapp_link": "https://t.me/bot"}):  # fmt: skip
        with pytest.raises(ValidationError):
            Settings(bot_token=TOKEN, **bad)  # type: ignore[arg-type]
