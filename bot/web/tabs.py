"""The Mini App's tabs beside the sheet, for the chat of the game the page names: "Archive" and
"Stats" (the same functions as /games, /stats and /top) and "Debts" (the same "✅ paid" press)."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from aiohttp import web

from bot.core import UnitOfWork, archive, debts
from bot.core.archive import GameLine
from bot.core.debts import Marked
from bot.core.ledger import Debt
from bot.core.stats import PERIOD_WORDS, PlayerStats, StatsFilter, chat_stats
from bot.domain import Owed, OwedKind
from bot.texts.debts import marked_text, marked_toast, sides
from bot.texts.i18n import Translator, chat_time
from bot.texts.views import plain_text
from bot.web.auth import start_param
from bot.web.visit import Visit, WebContext, amount, answers, posted, refusal, run_unit, visit
from scoring.errors import OptionError
from scoring.rules import canonical_convention
from scoring.stats import LEVELS

routes = web.RouteTableDef()


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
