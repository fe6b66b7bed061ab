"""The Mini App's "Debts" tab: the open debts of the game's chat, with the same "✅ paid"
buttons as the chat's messages (the press goes through the same command and its checks).

- `GET /api/debts?start=<param>`: `{"debts": [{game, debt, number, debtor, creditor, amount,
  paid, role}], "net": [{debtor, creditor, amount}]}`; `amount` written in the user's language,
  `role` the viewer's part in the debt ("debtor", "creditor" or null: his press would count or not).
- `POST /api/debt {start, game, debt}`: a press; the chat is told in the same unit of work, as
  for a press in Telegram. The answer is `{"side", "message"}` (the toast), or the refusal's
  `{"error", "message"}`: 400, or 403 for someone who neither owes nor is owed the debt.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.core import Caller, Core, Redeliver, UnitOfWork, Unsaved, attempts, debts
from bot.core.debts import Marked
from bot.core.ledger import Debt
from bot.domain import Owed, OwedKind
from bot.texts.debts import amount_text, debt_amount, marked_text, marked_toast
from bot.texts.i18n import Translator, translator
from bot.texts.views import error_text, plain_text
from bot.web.api import CONTEXT, Refused, Visit, WebContext, visit
from scoring.errors import ScoringError


def _role(debt: Debt, seen: Visit) -> str | None:
    user = seen.user
    if debt.creditor.is_user(user.id, user.username):
        return "creditor"
    if debt.debtor.is_user(user.id, user.username):
        return "debtor"
    return None


async def debts_json(core: Core, seen: Visit) -> dict[str, Any]:
    caller = Caller(chat_id=seen.state.chat_id, user_id=seen.user.id)
    view = await debts.chat_debts(core, caller.chat_id)
    t = seen.t
    return {
        "debts": [
            {
                "game": debt.game_id,
                "debt": debt.seq,
                "number": debt.number,
                "debtor": debt.debtor.name,
                "creditor": debt.creditor.name,
                "amount": debt_amount(t, debt),
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


async def get_debts(request: web.Request) -> web.StreamResponse:
    ctx: WebContext = request.app[CONTEXT]
    try:
        seen = await visit(ctx, request, request.query.get("start"))
    except Refused as refused:
        return web.json_response(refused.body, status=refused.status)
    return web.json_response(await debts_json(ctx.core, seen))


def _ids(body: object) -> tuple[str | None, int, int] | None:
    if not isinstance(body, dict):
        return None
    start, game_id, seq = body.get("start"), body.get("game"), body.get("debt")
    if not isinstance(game_id, int) or not isinstance(seq, int) or isinstance(game_id, bool):
        return None
    return (start if isinstance(start, str) else None), game_id, seq


def _refused(t: Translator, status: int, code: str) -> web.Response:
    message = plain_text(t(f"miniapp-error-{code}"))
    return web.json_response({"error": code, "message": message}, status=status)


async def post_debt(request: web.Request) -> web.StreamResponse:
    ctx: WebContext = request.app[CONTEXT]
    try:
        ids = _ids(await request.json())
    except ValueError:
        ids = None
    if ids is None:
        return _refused(translator(ctx.default_locale), 400, "bad-request")
    start, game_id, seq = ids
    try:
        seen = await visit(ctx, request, start)
    except Refused as refused:
        return web.json_response(refused.body, status=refused.status)
    user, state = seen.user, seen.state
    caller = Caller(
        chat_id=state.chat_id,
        user_id=user.id,
        first_name=user.first_name,
        username=user.username,
        chat_type="private" if state.chat_id > 0 else "supergroup",
    )

    async def work(uow: UnitOfWork) -> Marked:
        marked = await debts.mark(uow, caller, game_id, seq)
        chat_t = seen.chat_t
        uow.owe(Owed(state.chat_id, OwedKind.TEXT, marked_text(chat_t, marked), chat_t.lang))
        return marked

    try:
        marked = await attempts.run(ctx.core, work, caller)
    except ScoringError as error:
        status = 403 if error.code == "debt-not-yours" else 400
        message = plain_text(error_text(seen.t, error))
        return web.json_response({"error": error.code, "message": message}, status=status)
    except Redeliver:
        return _refused(seen.t, 503, "busy")
    except Unsaved:
        return _refused(seen.t, 503, "unsaved")
    return web.json_response({"side": marked.side.value, "message": marked_toast(seen.t, marked)})


def add_debt_routes(app: web.Application) -> None:
    app.router.add_get("/api/debts", get_debts)
    app.router.add_post("/api/debt", post_debt)
