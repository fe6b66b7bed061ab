"""The Mini App's "Archive" and "Stats" tabs: the chat's games and standings, from the same
functions as /games, /stats and /top, for the chat of the game the page names."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from aiohttp import web

from bot.core import archive
from bot.core.archive import GameLine
from bot.core.stats import PERIOD_WORDS, PlayerStats, StatsFilter, chat_stats
from bot.texts.i18n import Translator, chat_time
from bot.texts.views import plain_text
from bot.web.auth import start_param
from bot.web.visit import WebContext, amount, answers, refusal, visit
from scoring.errors import OptionError
from scoring.rules import canonical_convention
from scoring.stats import LEVELS

routes = web.RouteTableDef()


def _game_json(ctx: WebContext, t: Translator, line: GameLine, zone: tzinfo) -> dict[str, Any]:
    names = line.names
    balances = money = None
    if line.balances is not None:
        balances = {n: amount(b) for n, b in zip(names, line.balances, strict=True)}
    if line.money is not None:
        money = {n: float(m) for n, m in zip(names, line.money, strict=True)}
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
        "money": money,
    }


def _number(request: web.Request, t: Translator, name: str) -> int:
    text = request.query.get(name, "0")
    if not text.isdigit() or len(text) > 6:
        raise refusal(t, 400, "bad-query")
    return int(text)


def _filter(request: web.Request, t: Translator) -> StatsFilter:
    period = PERIOD_WORDS.get(request.query.get("period", "all").casefold())
    if period is None:
        raise refusal(t, 400, "bad-query")
    name = request.query.get("convention")
    try:
        convention = canonical_convention(name) if name else None
    except OptionError:
        raise refusal(t, 400, "bad-query") from None
    return StatsFilter(period, convention)


def _player_json(player: PlayerStats, place: int, numbers: dict[int, int]) -> dict[str, Any]:
    tally = player.tally

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
        "raspasy": {
            "deals": tally.raspasy,
            "tricks": tally.raspasy_tricks,
            "per_deal": amount(tally.tricks_per_raspasy),
        },
    }


@routes.get("/api/games")
@answers
async def get_games(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """A page of the chat's games, newest first (`page` counts from 0; ten a page), each with the
    start parameter that opens it."""
    seen = await visit(ctx, request, request.query.get("start"))
    wanted = _number(request, seen.t, "page")
    page = await archive.chat_games(ctx.core, seen.state.chat_id, wanted, seen.chat_t.lang)
    body = {
        "page": page.page,
        "pages": page.pages,
        "total": page.total,
        "zone": str(page.zone),
        "games": [_game_json(ctx, seen.t, line, page.zone) for line in page.lines],
    }
    return web.json_response(body)


@routes.get("/api/stats")
@answers
async def get_stats(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """Every player of the chat's finished games that `period` and `convention` keep, best first."""
    seen = await visit(ctx, request, request.query.get("start"))
    filt = _filter(request, seen.t)
    core = ctx.core
    stats = await chat_stats(core.store, seen.state.chat_id, filt, core.clock(), seen.chat_t.lang)
    numbers = {s.game_id: s.number for s in stats.games}
    body = {
        "period": filt.period.value,
        "convention": filt.convention,
        "games": len(stats.games),
        "players": [
            _player_json(p, place, numbers) for place, p in enumerate(stats.players, start=1)
        ],
    }
    return web.json_response(body)
