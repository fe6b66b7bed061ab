"""The Mini App's JSON API; every call is signed `initData`.

- `GET /api/sheet?start=<param>`: the game as JSON (`sheet_json`): convention, players, pool, mountain,
  whists (writer → target → value), balances (name → whists), money (with a stake), transfers,
  finished, and every record with its number, its line in the chat's language, its author and its
  entries (player, column, amount, reason) — the why of every number.
- `GET /api/sheet.svg?start=<param>`: the full sheet, every total, drawn as SVG from the layout the
  PNG is drawn from (`bot.web.svg`; `layout_sheet(..., fold=False)`), for the page to zoom.
- `GET /api/history?start=<param>`: `/history` as plain lines (records, corrections, votes).
- `POST /api/deal {start, line, nonce?}`: a deal through the same `records.record` and checks as /deal,
  in one unit of work with the chat's usual reply and picture (owed through the `Announce` port:
  the deal and its reply commit together, or neither); the answer is the new sheet. A refusal is
  the localised message of the error code (the page shows it), status 400 (403 for a non-player).
  A `nonce` makes a retried submit count once (409 `already-recorded` the second time). A database
  that failed on every attempt answers 503 `busy`, one that takes no writes 503 `unsaved`.
- `GET /api/texts?lang=ru|en`: the page's words (the `miniapp-*`, `reason-*`, `column-*` texts).

Refusals are `{"error": code, "message": text}`: 401 unsigned, forged or stale; 403 a stranger or a
start parameter that names no game of ours; 404 a game that is gone; 409 a game not started or over.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final
from urllib.parse import parse_qsl

from aiogram import Bot
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
    records,
)
from bot.core.announce import Announce
from bot.core.base import settlement
from bot.core.folding import fold
from bot.core.results import Recorded
from bot.core.zones import zone_of_chat
from bot.domain import GameStatus
from bot.sheet import Correction, drawing_lock, layout_sheet
from bot.texts.history import history_lines
from bot.texts.i18n import LANGUAGES, Translator, load, translator
from bot.texts.views import error_text, plain_text, shown_line
from bot.web.auth import (
    AuthError,
    Membership,
    WebUser,
    authenticate,
    game_of,
    header_init_data,
)
from bot.web.svg import sheet_svg
from scoring.entries import Entry
from scoring.errors import ScoringError
from scoring.settle import Settlement
from scoring.sheet import Sheet

log = logging.getLogger(__name__)

LINE_LIMIT: Final = 300  # characters of a deal line from the page
NONCE_LIMIT: Final = 64
TEXT_PREFIXES: Final = ("miniapp-", "reason-", "column-")


@dataclass(frozen=True, slots=True)
class WebContext:
    """What the API needs: the bot token (to check signatures), the service, the Bot (to ask
    Telegram about members), the chat's answer to a deal (`announce`), the membership cache, the
    default language."""

    token: str
    core: Core
    bot: Bot
    membership: Membership
    announce: Announce
    default_locale: str = "ru"


CONTEXT: Final = web.AppKey("prefbot_web", WebContext)


class Refused(Exception):
    """An API refusal with its HTTP status and JSON body."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("error"))
        self.status = status
        self.body = body


def _amount(value: Fraction) -> float | int:
    return int(value) if value.denominator == 1 else float(value)


def page_lang(user: WebUser | None, fallback: str) -> str:
    """ru or en from the user's `language_code` (ru-RU → ru); else the chat's language."""
    code = (user.language_code if user else None) or ""
    lang = code.split("-")[0].lower()
    return lang if lang in LANGUAGES else fallback


def unverified_user(header: str | None) -> WebUser | None:
    """The user initData claims, unchecked: only to word a refusal in his language."""
    try:
        fields = dict(parse_qsl(header_init_data(header)))
        user = json.loads(fields.get("user", "null"))
        return WebUser(
            int(user["id"]), str(user.get("first_name", "")), None, user.get("language_code")
        )
    except (AuthError, ValueError, TypeError, KeyError):
        return None


def _refusal(t: Translator, status: int, code: str, **params: object) -> Refused:
    return Refused(
        status, {"error": code, "message": plain_text(t(f"miniapp-error-{code}", **params))}
    )


# -- reading a game ----------------------------------------------------------------------------
async def load_state(core: Core, game_id: int) -> GameState | None:
    """A game by its id, folded from its log (ended games too)."""
    async with core.store.reading() as repo:
        row = await repo.game(game_id)
        if row is None:
            return None
        events = await repo.events(game_id)
    state = fold(game_id, events)
    state.chat_id = row.chat_id
    state.number = row.chat_number  # the number its chat knows it by ("Game #1")
    state.thread_id = row.thread_id  # its forum topic: the Mini App's deal is the topic's
    return state


@dataclass(frozen=True, slots=True)
class Visit:
    """An authorised call: who, which game, in which languages."""

    user: WebUser
    state: GameState
    chat_t: Translator  # the chat's language: deal lines, what goes to the chat
    t: Translator  # the user's language: the page, its errors


async def visit(ctx: WebContext, request: web.Request, start: str | None) -> Visit:
    """Check the signature (401), the start parameter and the user's right to the game (403)."""
    header = request.headers.get("Authorization")
    fallback = translator(page_lang(unverified_user(header), ctx.default_locale))
    try:
        user = authenticate(ctx.token, header)
    except AuthError as error:
        raise _refusal(fallback, error.status, error.code) from None
    t = translator(page_lang(user, ctx.default_locale))
    try:
        game_id = game_of(ctx.token, start)
    except AuthError as error:
        raise _refusal(t, error.status, error.code) from None
    state = await load_state(ctx.core, game_id)
    if state is None:
        raise _refusal(t, 404, "game-gone")
    player = state.may_record(user.id, user.username)
    if not player and not await ctx.membership.is_member(state.chat_id, user.id):
        raise _refusal(t, 403, "not-member")
    chat_t = translator(await looks.locale(ctx.core, state.chat_id) or ctx.default_locale)
    return Visit(user, state, chat_t, t)


def _started(visit: Visit, core: Core) -> tuple[Sheet, Settlement]:
    state = visit.state
    if state.rules is None:
        missing = state.seats - len(state.players)
        raise _refusal(visit.t, 409, "not-started", missing=missing)
    sheet = core.sheet(state)
    return sheet, settlement(state, sheet)


# -- the sheet as JSON -------------------------------------------------------------------------
def _helper(names: Sequence[str], entry: Entry) -> str:
    """The player whose points an entry of help came from (reason-help names him)."""
    return names[entry.source] if entry.source is not None else ""


def sheet_json(
    t: Translator, state: GameState, sheet: Sheet, settlement: Settlement
) -> dict[str, Any]:
    """The game for the page; deal lines and reasons in `t`'s language."""
    names = state.names
    totals = sheet.totals
    size = len(names)
    items = state.records
    deals = []
    for index, (item, scored) in enumerate(zip(items, sheet.records, strict=True)):
        entries = [
            {
                "player": names[e.player],
                "column": e.column.value,
                "target": None if e.target is None else names[e.target],
                "amount": _amount(e.amount),
                "reason": e.reason.value,
                "why": plain_text(t(f"reason-{e.reason.value}", helper=_helper(names, e))),
            }
            for e in scored.entries
        ]
        deals.append(
            {
                "number": scored.number,
                "index": index,
                "line": shown_line(t, scored.record, names),
                "author": state.player_name(item.author),
                "edited": bool(item.old_lines),
                "entries": entries,
            }
        )
    money = None
    if settlement.money is not None:
        money = {names[s]: float(settlement.money[s]) for s in range(size)}
    return {
        "game": state.game_id,
        "number": state.number,
        "convention": sheet.rules.convention,
        "players": list(names),
        "pool": {names[s]: _amount(totals.pool[s]) for s in range(size)},
        "mountain": {names[s]: _amount(totals.mountain[s]) for s in range(size)},
        "whists": {
            names[w]: {names[o]: _amount(totals.whists[w][o]) for o in range(size) if o != w}
            for w in range(size)
        },
        "balances": {names[s]: _amount(settlement.balances[s]) for s in range(size)},
        "stake": None if state.stake is None else _amount(state.stake),
        "money": money,
        "transfers": [
            {
                "from": names[tr.debtor],
                "to": names[tr.creditor],
                "amount": _amount(tr.whists),
                "money": None if tr.money is None else float(tr.money),
            }
            for tr in settlement.transfers
        ],
        "finished": sheet.finished or state.status is GameStatus.ENDED,
        "next_dealer": None if sheet.finished else names[sheet.next_dealer],
        "deals": deals,
    }


def _svg(state: GameState, sheet: Sheet, settlement: Settlement, lang: str, core: Core) -> str:
    values = looks.corrected_values(core, state, sheet)
    corrections = {key: Correction(wrong, n) for key, (wrong, n) in values.items()}
    with drawing_lock:  # the layout's font caches are the PNG renderer's
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, fold=False
        )
    return sheet_svg(layout, sheet)


# -- handlers ----------------------------------------------------------------------------------
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _answers(
    handler: Callable[[WebContext, web.Request], Awaitable[web.StreamResponse]],
) -> Handler:
    """The handler with its context; a `Refused` becomes its JSON answer."""

    async def wrapped(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request.app[CONTEXT], request)
        except Refused as refused:
            return web.json_response(refused.body, status=refused.status)

    return wrapped


@_answers
async def get_sheet(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    seen = await visit(ctx, request, request.query.get("start"))
    sheet, settlement = _started(seen, ctx.core)
    return web.json_response(sheet_json(seen.chat_t, seen.state, sheet, settlement))


@_answers
async def get_svg(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    seen = await visit(ctx, request, request.query.get("start"))
    sheet, settlement = _started(seen, ctx.core)
    svg = await asyncio.to_thread(_svg, seen.state, sheet, settlement, seen.t.lang, ctx.core)
    return web.Response(text=svg, content_type="image/svg+xml")


@_answers
async def get_history(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    seen = await visit(ctx, request, request.query.get("start"))
    sheet = ctx.core.sheet(seen.state) if seen.state.rules is not None else None
    zone = await zone_of_chat(ctx.core.store, seen.state.chat_id, seen.chat_t.lang)
    lines = [plain_text(line) for line in history_lines(seen.t, seen.state, sheet, zone)]
    return web.json_response({"lines": lines})


def request_id(user_id: int, nonce: str | None) -> int | None:
    """The page's submission as an update id for the service's once-only check: negative, so it
    never meets Telegram's; the same nonce (a retried or double-tapped submit) is taken once."""
    if not nonce:
        return None
    digest = hashlib.sha256(f"miniapp:{user_id}:{nonce}".encode()).digest()
    return -1 - int.from_bytes(digest[:7], "big")


async def _body(request: web.Request, t: Translator) -> tuple[str | None, str, str | None]:
    try:
        body = await request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("line"), str):
        raise _refusal(t, 400, "bad-request")
    line = " ".join(body["line"].split())
    if not line or len(line) > LINE_LIMIT:
        raise _refusal(t, 400, "bad-request")
    start, nonce = body.get("start"), body.get("nonce")
    if not isinstance(nonce, str) or len(nonce) > NONCE_LIMIT:
        nonce = None
    return (start if isinstance(start, str) else None), line, nonce


@_answers
async def post_deal(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    start, line, nonce = await _body(request, translator(ctx.default_locale))
    seen = await visit(ctx, request, start)
    state, user = seen.state, seen.user
    if state.status is GameStatus.ENDED:
        raise _refusal(seen.t, 409, "ended")
    caller = Caller(
        chat_id=state.chat_id,
        user_id=user.id,
        first_name=user.first_name,
        username=user.username,
        update_id=request_id(user.id, nonce),
        chat_type="private" if state.chat_id > 0 else "supergroup",
        thread_id=state.thread_id or None,
    )

    async def work(uow: UnitOfWork) -> Recorded:
        recorded = await records.record(uow, caller, line)
        await ctx.announce.recorded(uow, seen.chat_t.lang, recorded)
        return recorded

    try:
        result = await attempts.run(ctx.core, work, caller)
    except AlreadyHandled:
        raise _refusal(seen.t, 409, "already-recorded") from None
    except ScoringError as error:
        status = 403 if error.code == "not-a-player" else 400
        message = plain_text(error_text(seen.t, error))
        return web.json_response({"error": error.code, "message": message}, status=status)
    except Redeliver:
        raise _refusal(seen.t, 503, "busy") from None
    except Unsaved:
        raise _refusal(seen.t, 503, "unsaved") from None
    body = sheet_json(seen.chat_t, result.state, result.sheet, result.settlement)
    return web.json_response({"number": result.scored.number, "sheet": body})


async def get_texts(request: web.Request) -> web.StreamResponse:
    ctx = request.app[CONTEXT]
    lang = request.query.get("lang", "")
    lang = lang if lang in LANGUAGES else ctx.default_locale
    texts = {
        key: plain_text(value)
        for key, value in {**load("en"), **load(lang)}.items()
        if isinstance(value, str) and key.startswith(TEXT_PREFIXES)
    }
    return web.json_response({"lang": lang, "texts": texts})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/api/sheet", get_sheet)
    app.router.add_get("/api/sheet.svg", get_svg)
    app.router.add_get("/api/history", get_history)
    app.router.add_post("/api/deal", post_deal)
    app.router.add_get("/api/texts", get_texts)
