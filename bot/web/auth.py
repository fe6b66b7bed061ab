"""Who calls the Mini App's API (Telegram's signed `initData`, checked by aiogram), may he see the
game its start parameter names (a player, or a member of its chat), and the button that opens it;
what every call shares: its context, the `Visit` (who, which game, which languages), its refusals."""

import base64
import hashlib
import hmac
import json
import re
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar
from urllib.parse import parse_qsl, quote

from aiogram import Bot
from aiogram.enums import ChatMemberStatus
from aiogram.exceptions import TelegramAPIError
from aiogram.types import InlineKeyboardButton, WebAppInfo
from aiogram.utils.web_app import WebAppInitData, WebAppUser, safe_parse_webapp_init_data
from aiohttp import web

from bot.core import (
    AlreadyHandled,
    Caller,
    Core,
    GameState,
    Redeliver,
    UnitOfWork,
    Unsaved,
    attempts,
    looks,
)
from bot.core.uow import Announce
from bot.texts.i18n import LANGUAGES, Translator, translator
from bot.texts.views import error_text, plain_text
from scoring.errors import ScoringError

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
    if match is None or not hmac.compare_digest(_tag(token, int(match[1])), match[2]):
        raise AuthError(403, "game-unknown")
    return int(match[1])


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


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class WebContext:
    """What every call needs: the token checks signatures, `announce` tells a deal in its chat."""

    token: str
    core: Core
    membership: Membership
    announce: Announce
    default_locale: str = "ru"


CONTEXT: Final = web.AppKey("prefbot_web", WebContext)


class Refused(Exception):
    """An API refusal with its HTTP status and its JSON body `{"error": code, "message": text}`."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(code)
        self.status, self.body = status, {"error": code, "message": message}


def refusal(t: Translator, status: int, code: str, **params: object) -> Refused:
    return Refused(status, code, plain_text(t(f"miniapp-error-{code}", **params)))


Route = Callable[[WebContext, web.Request], Awaitable[web.StreamResponse]]


def answers(register: Callable[[Any], object]) -> Callable[[Route], Route]:
    """Register (`routes.get(path)`) the handler with its context; a `Refused` is its JSON answer."""

    def wrap(handler: Route) -> Route:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            try:
                return await handler(request.app[CONTEXT], request)
            except Refused as refused:
                return web.json_response(refused.body, status=refused.status)

        register(wrapped)
        return handler

    return wrap


async def posted(
    request: web.Request, ctx: WebContext, wanted: Callable[[dict[str, Any]], object]
) -> tuple[dict[str, Any], str | None]:
    """A POST's JSON object that is `wanted`, and its start parameter; else 400 `bad-request` in
    the default language (before the caller is known)."""
    try:
        body = await request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not wanted(body):
        raise refusal(translator(ctx.default_locale), 400, "bad-request")
    start = body.get("start")
    return body, (start if isinstance(start, str) else None)


def page_translator(code: object, fallback: str) -> Translator:
    """ru or en from the user's `language_code` (ru-RU → ru); else the chat's language."""
    lang = code.split("-")[0].lower() if isinstance(code, str) else ""
    return translator(lang if lang in LANGUAGES else fallback)


@dataclass(frozen=True, slots=True)
class Visit:
    """An authorised call: who, which game, in which languages."""

    user: WebAppUser
    state: GameState
    chat_t: Translator  # the chat's language: deal lines, what goes to the chat
    t: Translator  # the user's language: the page, its errors

    def caller(self, update_id: int | None = None, thread_id: int | None = None) -> Caller:
        user, chat_id = self.user, self.state.chat_id
        return Caller(
            chat_id=chat_id,
            user_id=user.id,
            first_name=user.first_name,
            username=user.username,
            update_id=update_id,
            chat_type="private" if chat_id > 0 else "supergroup",
            thread_id=thread_id,
        )


async def visit(ctx: WebContext, request: web.Request, start: str | None) -> Visit:
    """Check the signature (401), the start parameter (403), that the game is there (404) and the
    user's right to it: a player, or a member of its chat (403)."""
    header = request.headers.get("Authorization")
    try:
        user = authenticate(ctx.token, header)
    except AuthError as error:
        claimed = None  # the language initData claims, unchecked: only to word the refusal in it
        with suppress(AuthError, ValueError, TypeError, KeyError):
            said = json.loads(dict(parse_qsl(header_init_data(header))).get("user", "null"))
            int(said["id"])  # a user at all
            claimed = said.get("language_code")
        fallback = page_translator(claimed, ctx.default_locale)
        raise refusal(fallback, error.status, error.code) from None
    t = page_translator(user.language_code, ctx.default_locale)
    try:
        game_id = game_of(ctx.token, start)
    except AuthError as error:
        raise refusal(t, error.status, error.code) from None
    async with ctx.core.store.reading() as repo:
        row = await repo.game(game_id)
        if row is None:
            raise refusal(t, 404, "game-gone")
        # ended games too; with its chat, its number there and its forum topic (where a deal is told)
        state = await ctx.core.fold(repo, row, apart=True)
    player = state.may_record(user.id, user.username)
    if not player and not await ctx.membership.is_member(state.chat_id, user.id):
        raise refusal(t, 403, "not-member")
    chat_t = translator(await looks.locale(ctx.core, state.chat_id) or ctx.default_locale)
    return Visit(user, state, chat_t, t)


async def run_unit(
    ctx: WebContext,
    seen: Visit,
    caller: Caller,
    work: Callable[[UnitOfWork], Awaitable[T]],
    forbidden: str,
) -> T:
    """`work` in one unit of work; a refusal in the user's language: the engine's error (403 when
    its code is `forbidden`, else 400), 409 a submit already taken, 503 a database that failed on
    every attempt (`busy`) or takes no writes (`unsaved`)."""
    try:
        return await attempts.run(ctx.core, work, caller)
    except AlreadyHandled:
        raise refusal(seen.t, 409, "already-recorded") from None
    except ScoringError as error:
        status = 403 if error.code == forbidden else 400
        raise Refused(status, error.code, plain_text(error_text(seen.t, error))) from None
    except Redeliver:
        raise refusal(seen.t, 503, "busy") from None
    except Unsaved:
        raise refusal(seen.t, 503, "unsaved") from None
