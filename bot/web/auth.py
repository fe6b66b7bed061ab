"""Who calls the Mini App's API (Telegram's signed `initData`, checked by aiogram), may he see the
game its start parameter names (a player, or a member of its chat), and the button that opens it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Final
from urllib.parse import quote

from aiogram import Bot
from aiogram.enums import ChatMemberStatus
from aiogram.exceptions import TelegramAPIError
from aiogram.types import InlineKeyboardButton, WebAppInfo
from aiogram.utils.web_app import WebAppInitData, WebAppUser, safe_parse_webapp_init_data

from bot.texts.i18n import Translator

MAX_AGE: Final = timedelta(hours=24)
SCHEME: Final = "tma"
MEMBER_TTL: Final = 60.0  # seconds a getChatMember answer is trusted
MEMBER_CACHE: Final = 4096
# `g<id>_<tag>`, the tag an HMAC of the id under a key derived from the token, so nobody reaches
# another game by counting (membership is checked all the same).
_PARAM: Final = re.compile(r"^g(\d{1,18})_([A-Za-z0-9_-]{16})$")
_MEMBER: Final = frozenset(
    {ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER}
)


class AuthError(Exception):
    """A refused call: 401 unsigned, forged or stale; 403 not yours to see; `code` for the page."""

    def __init__(self, status: int, code: str) -> None:
        super().__init__(code)
        self.status, self.code = status, code


def header_init_data(header: str | None) -> str:
    """The initData of an `Authorization: tma <initData>` header; 401 when there is none."""
    scheme, _, data = (header or "").strip().partition(" ")
    if scheme.lower() != SCHEME or not data.strip():
        raise AuthError(401, "auth-missing")
    return data.strip()


def check_init_data(token: str, init_data: str, now: datetime | None = None) -> WebAppInitData:
    """The parsed initData when Telegram signed it with this bot's token within `MAX_AGE`
    (core.telegram.org/bots/webapps, "Validating data"); otherwise `AuthError(401)`."""
    try:
        data = safe_parse_webapp_init_data(token, init_data)
    except ValueError:
        raise AuthError(401, "auth-forged") from None
    if data.user is None:
        raise AuthError(401, "auth-forged")
    moment = now or datetime.now(UTC)  # auth_date is aware: pydantic reads a Unix time in UTC
    if moment - data.auth_date > MAX_AGE or data.auth_date - moment > timedelta(minutes=5):
        raise AuthError(401, "auth-stale")
    return data


def authenticate(token: str, header: str | None, now: datetime | None = None) -> WebAppUser:
    """The caller of an API request, from its `Authorization: tma <initData>` (401 otherwise)."""
    user = check_init_data(token, header_init_data(header), now).user
    assert user is not None  # check_init_data refuses data without a user
    return user


def _tag(token: str, game_id: int) -> str:
    key = hashlib.sha256(b"prefbot miniapp start\0" + token.encode()).digest()
    digest = hmac.new(key, f"game:{game_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:16]


def start_param(token: str, game_id: int) -> str:
    """The `startapp` value naming a game: `g<id>_<tag>` (letters, digits, _ and -; 64 at most)."""
    return f"g{game_id}_{_tag(token, game_id)}"


def game_of(token: str, param: str | None) -> int:
    """The game a start parameter names; a malformed or forged one is 403 (not a game of yours)."""
    match = _PARAM.match(param or "")
    if match is None:
        raise AuthError(403, "game-unknown")
    game_id = int(match.group(1))
    if not hmac.compare_digest(_tag(token, game_id), match.group(2)):
        raise AuthError(403, "game-unknown")
    return game_id


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


class Membership:
    """Is a user a member of a chat? Asked of Telegram (`getChatMember`), kept `ttl` seconds."""

    def __init__(
        self, bot: Bot, ttl: float = MEMBER_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.bot, self.ttl, self.clock = bot, ttl, clock
        self._known: dict[tuple[int, int], tuple[float, bool]] = {}

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        if chat_id == user_id:  # a private chat with the bot is the user's own
            return True
        now = self.clock()
        known = self._known.get((chat_id, user_id))
        if known is not None and known[0] > now:
            return known[1]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
            # only a restricted member has `is_member`: whether he is still in the chat
            answer = member.status in _MEMBER or bool(getattr(member, "is_member", False))
        except TelegramAPIError:
            answer = False
        if len(self._known) >= MEMBER_CACHE:
            self._known = {k: v for k, v in self._known.items() if v[0] > now}
            if len(self._known) >= MEMBER_CACHE:
                self._known.clear()
        self._known[(chat_id, user_id)] = (now + self.ttl, answer)
        return answer
