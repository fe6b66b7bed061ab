"""The Mini App's API: the live sheet (the game as JSON and SVG, its history, a deal, the page's
words) and the tabs beside it, for the chat of the game the page names: "Archive" and "Stats" (the
same functions as /games, /stats and /top) and "Debts" (the same "✅ paid" press)."""

import hashlib
from datetime import tzinfo
from fractions import Fraction
from typing import Any, Final

from aiohttp import web

from bot.core import Core, GameState, UnitOfWork, archive, debts, looks, records
from bot.core.archive import GameLine, read_log
from bot.core.base import settlement
from bot.core.debts import Marked
from bot.core.ledger import Debt
from bot.core.results import Recorded
from bot.core.stats import PERIOD_WORDS, PlayerStats, StatsFilter, chat_stats
from bot.core.zones import zone_of_chat
from bot.domain import GameStatus, Owed, OwedKind
from bot.sheet import in_picture_thread, sheet_svg
from bot.sheet.layout import layout_sheet
from bot.sheet.model import Correction, drawing_lock
from bot.texts.debts import marked_text, marked_toast, sides
from bot.texts.history import history_lines
from bot.texts.i18n import LANGUAGES, Translator, chat_time, load
from bot.texts.views import plain_text, shown_line
from bot.web.auth import Visit, WebContext, answers, posted, refusal, run_unit, start_param, visit
from scoring.errors import OptionError
from scoring.rules import canonical_convention
from scoring.settle import Settlement
from scoring.sheet import Entry, Sheet
from scoring.stats import LEVELS

routes = web.RouteTableDef()

LINE_LIMIT: Final = 300  # characters of a deal line from the page
NONCE_LIMIT: Final = 64
TEXT_PREFIXES: Final = ("miniapp-", "reason-", "column-")


def amount(value: Fraction | None) -> float | int | None:
    """A number for JSON: whole ones as integers."""
    if value is None:
        return None
    return int(value) if value.denominator == 1 else float(value)


async def _started(ctx: WebContext, request: web.Request) -> tuple[Visit, Sheet, Settlement]:
    seen = await visit(ctx, request, request.query.get("start"))
    state = seen.state
    if state.rules is None:
        raise refusal(seen.t, 409, "not-started", missing=state.seats - len(state.players))
    sheet = ctx.core.sheet(state)
    return seen, sheet, settlement(state, sheet)


def sheet_json(
    t: Translator, state: GameState, sheet: Sheet, settlement: Settlement
) -> dict[str, Any]:
    """The game for the page, every record with the entries it wrote (the why of every number);
    deal lines and reasons in `t`'s language."""
    names, totals, money = state.names, sheet.totals, settlement.money
    size = len(names)

    def entry(e: Entry) -> dict[str, Any]:
        helper = "" if e.source is None else names[e.source]  # whose points helped
        return {
            "player": names[e.player],
            "column": e.column.value,
            "target": None if e.target is None else names[e.target],
            "amount": amount(e.amount),
            "reason": e.reason.value,
            "why": plain_text(t(f"reason-{e.reason.value}", helper=helper)),
        }

    deals = [
        {
            "number": scored.number,
            "index": index,
            "line": shown_line(t, scored.record, names),
            "author": state.player_name(item.author),
            "edited": bool(item.old_lines),
            "entries": [entry(e) for e in scored.entries],
        }
        for index, (item, scored) in enumerate(zip(state.records, sheet.records, strict=True))
    ]
    return {
        "game": state.game_id,
        "number": state.number,
        "convention": sheet.rules.convention,
        "players": list(names),
        "pool": dict(zip(names, map(amount, totals.pool), strict=True)),
        "mountain": dict(zip(names, map(amount, totals.mountain), strict=True)),
        "whists": {
            names[w]: {names[o]: amount(totals.whists[w][o]) for o in range(size) if o != w}
            for w in range(size)
        },
        "balances": dict(zip(names, map(amount, settlement.balances), strict=True)),
        "stake": amount(state.stake),
        "money": None if money is None else dict(zip(names, map(float, money), strict=True)),
        "transfers": [
            {
                "from": names[tr.debtor],
                "to": names[tr.creditor],
                "amount": amount(tr.whists),
                "money": None if tr.money is None else float(tr.money),
            }
            for tr in settlement.transfers
        ],
        "finished": sheet.finished or state.status is GameStatus.ENDED,
        "next_dealer": None if sheet.finished else names[sheet.next_dealer],
        "deals": deals,
    }


def _svg(state: GameState, sheet: Sheet, settlement: Settlement, lang: str, core: Core) -> str:
    """The full sheet, every total, from the layout the PNG is drawn from, for the page to zoom."""
    values = looks.corrected_values(core, state, sheet)
    corrections = {key: Correction(wrong, n) for key, (wrong, n) in values.items()}
    with drawing_lock:  # the layout's font caches are the PNG renderer's
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, fold=False
        )
    return sheet_svg(layout, sheet)


@answers(routes.get("/api/sheet"))
async def get_sheet(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    seen, sheet, settlement = await _started(ctx, request)
    return web.json_response(sheet_json(seen.chat_t, seen.state, sheet, settlement))


@answers(routes.get("/api/sheet.svg"))
async def get_svg(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    seen, sheet, settlement = await _started(ctx, request)
    svg = await in_picture_thread(_svg, seen.state, sheet, settlement, seen.t.lang, ctx.core)
    return web.Response(text=svg, content_type="image/svg+xml")


@answers(routes.get("/api/history"))
async def get_history(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    seen = await visit(ctx, request, request.query.get("start"))
    sheet = ctx.core.sheet(seen.state) if seen.state.rules is not None else None
    zone = await zone_of_chat(ctx.core.store, seen.state.chat_id, seen.chat_t.lang)
    state = await read_log(ctx.core.store, seen.state)
    lines = [plain_text(line) for line in history_lines(seen.t, state, sheet, zone)]
    return web.json_response({"lines": lines})


def _line(body: dict[str, Any]) -> str:
    """The deal line with its spaces made single; empty when there is none or it is too long."""
    line = " ".join(body["line"].split()) if isinstance(body.get("line"), str) else ""
    return line if len(line) <= LINE_LIMIT else ""


@answers(routes.post("/api/deal"))
async def post_deal(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """A deal through the same checks as /deal, in one unit of work with the chat's reply and
    picture (the `Announce` port): both commit, or neither. The answer is the new sheet."""
    body, start = await posted(request, ctx, _line)
    line, nonce = _line(body), body.get("nonce")
    seen = await visit(ctx, request, start)
    if seen.state.status is GameStatus.ENDED:
        raise refusal(seen.t, 409, "ended")
    # The submission as an update id for the service's once-only check: negative, so it never
    # meets Telegram's; the same nonce (a retried or double-tapped submit) is taken once.
    update_id = None
    if isinstance(nonce, str) and 0 < len(nonce) <= NONCE_LIMIT:
        digest = hashlib.sha256(f"miniapp:{seen.user.id}:{nonce}".encode()).digest()
        update_id = -1 - int.from_bytes(digest[:7], "big")
    caller = seen.caller(update_id, seen.state.thread_id or None)

    async def work(uow: UnitOfWork) -> Recorded:
        recorded = await records.record(uow, caller, line)
        await ctx.announce.recorded(uow, seen.chat_t.lang, recorded)
        return recorded

    result = await run_unit(ctx, seen, caller, work, forbidden="not-a-player")
    body = sheet_json(seen.chat_t, result.state, result.sheet, result.settlement)
    return web.json_response({"number": result.scored.number, "sheet": body})


@answers(routes.get("/api/texts"))
async def get_texts(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """The page's words (the `miniapp-*`, `reason-*`, `column-*` texts) in ru or en."""
    lang = request.query.get("lang", "")
    lang = lang if lang in LANGUAGES else ctx.default_locale
    texts = {
        key: plain_text(value)
        for key, value in {**load("en"), **load(lang)}.items()
        if isinstance(value, str) and key.startswith(TEXT_PREFIXES)
    }
    return web.json_response({"lang": lang, "texts": texts})


def _game_json(ctx: WebContext, t: Translator, line: GameLine, zone: tzinfo) -> dict[str, Any]:
    names, money = line.names, line.money
    balances = None
    if line.balances is not None:
        balances = {n: amount(b) for n, b in zip(names, line.balances, strict=True)}
    return {
        "number": line.number,
        "start": start_param(ctx.token, line.game_id),
        "date": chat_time(line.created_at, zone, t.lang, clock=False),
        "created_at": line.created_at.isoformat(),
        "convention": line.convention,
        "convention_name": plain_text(t(f"convention-{line.convention}")),
        "players": list(names),
        "status": line.status.value,
        "reason": None if line.reason is None else line.reason.value,
        "deals": line.deals,
        "balances": balances,
        "money": None if money is None else dict(zip(names, map(float, money), strict=True)),
    }


@answers(routes.get("/api/games"))
async def get_games(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """A page of the chat's games, newest first (`page` counts from 0), each with its start."""
    seen = await visit(ctx, request, request.query.get("start"))
    wanted = request.query.get("page", "0")
    if not wanted.isdigit() or len(wanted) > 6:
        raise refusal(seen.t, 400, "bad-query")
    page = await archive.chat_games(ctx.core, seen.state.chat_id, int(wanted), seen.chat_t.lang)
    games = [_game_json(ctx, seen.t, line, page.zone) for line in page.lines]
    body = {"page": page.page, "pages": page.pages, "total": page.total, "zone": str(page.zone)}
    return web.json_response({**body, "games": games})


def _player_json(player: PlayerStats, place: int, numbers: dict[int, int]) -> dict[str, Any]:
    tally = player.tally
    per_deal = amount(tally.tricks_per_raspasy)

    def game(kept: Any) -> dict[str, Any] | None:
        return None if kept is None else {"balance": amount(kept[0]), "game": numbers[kept[1]]}

    return {
        "place": place,
        "name": player.name,
        "username": player.username,
        "games": tally.games,
        "wins": tally.wins,
        "total": amount(tally.total),
        "average": amount(tally.average),
        "money": None if tally.money is None else float(tally.money),
        "best": game(tally.best),
        "worst": game(tally.worst),
        "rating": round(player.rating),
        "contracts": {
            str(level): {"declared": declared, "made": made}
            for level, declared, made in zip(LEVELS, tally.declared, tally.made, strict=True)
        },
        "miseres": {"declared": tally.miseres, "made": tally.miseres_made},
        "deals": tally.deals,
        "whists_per_deal": amount(tally.whists_per_deal),
        "raspasy": {"deals": tally.raspasy, "tricks": tally.raspasy_tricks, "per_deal": per_deal},
    }


@answers(routes.get("/api/stats"))
async def get_stats(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """Every player of the chat's finished games that `period` and `convention` keep, best first."""
    seen = await visit(ctx, request, request.query.get("start"))
    period = PERIOD_WORDS.get(request.query.get("period", "all").casefold())
    name = request.query.get("convention")
    try:
        convention = canonical_convention(name) if name else None
    except OptionError:
        period = None  # refused below, as an unknown period is
    if period is None:
        raise refusal(seen.t, 400, "bad-query")
    filt = StatsFilter(period, convention)
    core = ctx.core
    stats = await chat_stats(core.store, seen.state.chat_id, filt, core.clock(), seen.chat_t.lang)
    numbers = {s.game_id: s.number for s in stats.games}
    players = [_player_json(p, n, numbers) for n, p in enumerate(stats.players, start=1)]
    body = {"period": filt.period.value, "convention": filt.convention, "games": len(stats.games)}
    return web.json_response({**body, "players": players})


def _role(debt: Debt, seen: Visit) -> str | None:
    user = seen.user
    if debt.creditor.is_user(user.id, user.username):
        return "creditor"
    return "debtor" if debt.debtor.is_user(user.id, user.username) else None


@answers(routes.get("/api/debts"))
async def get_debts(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """The debts (`amount` in the user's language, `role` the viewer's part in each) and net."""
    seen = await visit(ctx, request, request.query.get("start"))
    view = await debts.chat_debts(ctx.core, seen.state.chat_id)
    t = seen.t
    owed = [
        {
            "game": debt.game_id,
            "debt": debt.seq,
            "number": debt.number,
            **sides(t, debt),
            "paid": debt.paid,
            "role": _role(debt, seen),
        }
        for debt in view.debts
    ]
    net = [sides(t, payment) for payment in view.net]
    return web.json_response({"debts": owed, "net": net})


def _ids(body: dict[str, Any]) -> bool:
    """The press names a game and a debt by their numbers."""
    game_id, seq = body.get("game"), body.get("debt")
    return isinstance(game_id, int) and isinstance(seq, int) and not isinstance(game_id, bool)


@answers(routes.post("/api/debt"))
async def post_debt(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """A press; the chat is told in the same unit of work, as for a press in Telegram. The answer
    is the toast `{"side", "message"}`; 403 for one who neither owes nor is owed the debt."""
    body, start = await posted(request, ctx, _ids)
    game_id, seq = body["game"], body["debt"]
    seen = await visit(ctx, request, start)
    caller = seen.caller()

    async def work(uow: UnitOfWork) -> Marked:
        marked = await debts.mark(uow, caller, game_id, seq)
        chat_t, chat_id = seen.chat_t, seen.state.chat_id
        uow.owe(Owed(chat_id, OwedKind.TEXT, marked_text(chat_t, marked), chat_t.lang))
        return marked

    marked = await run_unit(ctx, seen, caller, work, forbidden="debt-not-yours")
    return web.json_response({"side": marked.side.value, "message": marked_toast(seen.t, marked)})
