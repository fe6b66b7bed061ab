"""What every Mini App call shares: its context, who calls and for which game, and its refusals."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, TypeVar
from urllib.parse import parse_qsl

from aiogram.utils.web_app import WebAppUser
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
from bot.web.auth import AuthError, Membership, authenticate, game_of, header_init_data
from scoring.errors import ScoringError

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


def amount(value: Fraction | None) -> float | int | None:
    """A number for JSON: whole ones as integers."""
    if value is None:
        return None
    return int(value) if value.denominator == 1 else float(value)


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
