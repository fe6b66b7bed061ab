"""The "Open the live sheet" («Живая пулька») button under every sheet message and /sheet."""

from __future__ import annotations

from urllib.parse import quote

from aiogram.types import InlineKeyboardButton, WebAppInfo

from bot.texts.i18n import Translator
from bot.web.auth import start_param


def live_sheet_button(
    t: Translator,
    token: str,
    game_id: int,
    miniapp_link: str | None,
    *,
    private: bool = False,
    app_url: str | None = None,
) -> InlineKeyboardButton | None:
    """The button opening this game's live sheet, or None when MINIAPP_LINK is unset: a URL
    button to `MINIAPP_LINK?startapp=<param>` (Telegram hands the app its `start_param`), or in a
    private chat, given the page's https address, a `web_app` button to `app_url?start=<param>`."""
    if not miniapp_link:
        return None
    param = start_param(token, game_id)
    text = t("button-live-sheet")
    if private and app_url and app_url.startswith("https://"):
        url = f"{app_url.rstrip('/')}?start={quote(param)}"
        return InlineKeyboardButton(text=text, web_app=WebAppInfo(url=url))
    return InlineKeyboardButton(text=text, url=f"{miniapp_link}?startapp={quote(param)}")
