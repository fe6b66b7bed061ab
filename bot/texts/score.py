"""The score in text: balances, transfers and each player's totals (Telegram HTML)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.core import GameState
from bot.core.results import Ended
from bot.texts.i18n import Safe, Translator, quote
from bot.texts.views import join_lines, rules_brief
from scoring.settle import Settlement
from scoring.sheet import Sheet, Totals


def balances_text(t: Translator, names: Sequence[str], settlement: Settlement) -> Safe:
    """One line per player, `Name: +12.5` (and money with a stake)."""
    lines = []
    for seat, name in enumerate(names):
        balance = t.number(settlement.balances[seat], signed=True)
        if settlement.money is not None:
            money = t.money(settlement.money[seat], signed=True)
            lines.append(t("balance-money-line", name=name, whists=balance, money=money))
        else:
            lines.append(t("balance-line", name=name, whists=balance))
    return join_lines(lines)


def transfers_text(t: Translator, names: Sequence[str], settlement: Settlement) -> Safe:
    if not settlement.transfers:
        return t("nobody-pays")
    lines = []
    for tr in settlement.transfers:
        if tr.money is not None:
            amount = t(
                "transfer-money", money=t.money(tr.money), whists=t.count(tr.whists, "whist")
            )
        else:
            amount = Safe(quote(t.count(tr.whists, "whist")))
        lines.append(
            t("transfer-line", debtor=names[tr.debtor], creditor=names[tr.creditor], amount=amount)
        )
    return join_lines(lines)


def totals_text(t: Translator, names: Sequence[str], sheet: Sheet) -> Safe:
    """The sheet in text: pool, mountain and whists written on each other player."""
    return totals_lines(t, names, sheet.totals, sheet.closed_pools)


def totals_lines(
    t: Translator, names: Sequence[str], totals: Totals, closed_pools: Collection[int]
) -> Safe:
    """Each player's line of totals (a live sheet's, or a paper sheet's as typed)."""
    lines = []
    for seat, name in enumerate(names):
        whists = ", ".join(
            f"{names[other]} {t.number(totals.whists[seat][other])}"
            for other in range(len(names))
            if other != seat
        )
        closed = t("pool-closed") if seat in closed_pools else ""
        lines.append(
            t(
                "totals-line",
                name=name,
                pool=t.number(totals.pool[seat]),
                closed=closed,
                mountain=t.number(totals.mountain[seat]),
                whists=whists,
            )
        )
    return join_lines(lines)


def score_text(t: Translator, state: GameState, sheet: Sheet, settlement: Settlement) -> Safe:
    names = state.names
    key = "score-head-ended" if state.ended_reason else "score-head"
    if key == "score-head" and sheet.finished:
        key = "score-head-finished"  # the end rule is met: the final score, not "if it ended now"
    lines = [
        t(key, game=state.number, deals=sheet.deals),
        rules_brief(t, state),
        "",
        t("balances-title"),
        balances_text(t, names, settlement),
        "",
        t("transfers-title"),
        transfers_text(t, names, settlement),
        "",
        t("totals-title"),
        totals_text(t, names, sheet),
    ]
    return join_lines(lines)


def sheet_text(t: Translator, state: GameState, sheet: Sheet, settlement: Settlement) -> Safe:
    """The sheet when no picture can be drawn."""
    names = state.names
    return join_lines(
        [
            t("sheet-title", game=state.number, deals=sheet.deals),
            totals_text(t, names, sheet),
            "",
            t("balances-title"),
            balances_text(t, names, settlement),
        ]
    )


def ended_text(t: Translator, ended: Ended) -> Safe:
    state = ended.state
    lines: list[str] = [t(f"game-ended-{ended.reason}", game=state.number)]
    if ended.sheet is not None and ended.settlement is not None:
        lines += ["", score_text(t, state, ended.sheet, ended.settlement)]
    return join_lines(lines)
