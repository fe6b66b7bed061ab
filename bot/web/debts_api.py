"""The Mini App's "Debts" tab: the chat's open debts, with the same "✅ paid" press as in the chat."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.core import Core, UnitOfWork, debts
from bot.core.debts import Marked
from bot.core.ledger import Debt
from bot.domain import Owed, OwedKind
from bot.texts.debts import amount_text, marked_text, marked_toast
from bot.web.visit import Visit, WebContext, answers, posted, run_unit, visit

routes = web.RouteTableDef()


def _role(debt: Debt, seen: Visit) -> str | None:
    user = seen.user
    if debt.creditor.is_user(user.id, user.username):
        return "creditor"
    if debt.debtor.is_user(user.id, user.username):
        return "debtor"
    return None


async def debts_json(core: Core, seen: Visit) -> dict[str, Any]:
    view = await debts.chat_debts(core, seen.state.chat_id)
    t = seen.t
    return {
        "debts": [
            {
                "game": debt.game_id,
                "debt": debt.seq,
                "number": debt.number,
                "debtor": debt.debtor.name,
                "creditor": debt.creditor.name,
                "amount": amount_text(t, debt.amount),
                "paid": debt.paid,
                "role": _role(debt, seen),
            }
            for debt in view.debts
        ],
        "net": [
            {
                "debtor": p.debtor.name,
                "creditor": p.creditor.name,
                "amount": amount_text(t, p.amount),
            }
            for p in view.net
        ],
    }


@routes.get("/api/debts")
@answers
async def get_debts(ctx: WebContext, request: web.Request) -> web.StreamResponse:
    """The debts (`amount` in the user's language, `role` the viewer's part in each) and net."""
    seen = await visit(ctx, request, request.query.get("start"))
    return web.json_response(await debts_json(ctx.core, seen))


def _ids(body: dict[str, Any]) -> bool:
    """The press names a game and a debt by their numbers."""
    game_id, seq = body.get("game"), body.get("debt")
    return isinstance(game_id, int) and isinstance(seq, int) and not isinstance(game_id, bool)


@routes.post("/api/debt")
@answers
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
