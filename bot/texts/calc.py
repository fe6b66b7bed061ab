"""`/calc` as chat texts (Telegram HTML): a settled paper sheet, its errors and the step prompts.

Pure functions of (translator, values), like `bot.texts.score`, whose balance and payment lines they reuse
so that `/calc` answers in the same words as `/score`.
"""

from __future__ import annotations

from bot.texts.i18n import Safe, Translator, quote
from bot.texts.score import balances_text, totals_lines, transfers_text
from bot.texts.views import capped, error_text, join_lines
from scoring.calc import CalcError
from scoring.paper import PaperSheet
from scoring.settle import Settlement


def calc_rules(t: Translator, sheet: PaperSheet) -> Safe:
    """`Sochi, pool 10 · stake 0.1 per whist · whist_split=gentleman`."""
    rules = sheet.rules
    convention = t(f"convention-{rules.convention}")
    parts: list[str] = [t("rules-brief", convention=convention, pool=rules.pool_target)]
    if sheet.stake is not None:
        parts.append(t("rules-stake", stake=t.number(sheet.stake, places=4)))
    options = {k: v for k, v in rules.overrides(len(sheet.players)).items() if k != "pool_target"}
    if options:
        parts.append(quote(", ".join(f"{k}={v}" for k, v in options.items())))
    return Safe(" · ".join(parts))


def paper_totals_text(t: Translator, sheet: PaperSheet) -> Safe:
    """The sheet as typed: pool (closed at the target or not), mountain, whists on each other."""
    closed = {s for s, pool in enumerate(sheet.totals.pool) if pool == sheet.rules.pool_target}
    return totals_lines(t, sheet.players, sheet.totals, closed)


def calc_text(t: Translator, sheet: PaperSheet, settlement: Settlement) -> Safe:
    """Balances (whists, money with a stake), who pays whom, and the sheet — as `/score` shows them."""
    names = sheet.players
    return join_lines(
        [
            t("calc-title", rules=calc_rules(t, sheet)),
            "",
            t("balances-title"),
            balances_text(t, names, settlement),
            "",
            t("transfers-title"),
            transfers_text(t, names, settlement),
            "",
            t("totals-title"),
            paper_totals_text(t, sheet),
        ]
    )


def calc_error_text(t: Translator, error: CalcError) -> Safe:
    """The error as a bad `/deal`'s (its text, the part at fault, an example) with the line quoted."""
    lines: list[str] = [error_text(t, error)]
    if error.line:
        lines.insert(0, t("calc-error-line", number=error.line, line=capped(error.text)))
    return join_lines(lines)
