"""The score in text: balances, transfers and totals, of a game or of `/calc`'s paper sheet, and
the inline mode's (`@bot 7♠ -1 vist pass`): a deal priced, the sender's games to share."""

from collections.abc import Collection, Sequence
from fractions import Fraction

from bot.core import GameState
from bot.core.results import Ended
from bot.texts.i18n import Safe, Translator, quote
from bot.texts.views import capped, entry_text, error_text, join_lines, plain_text, rules_brief
from scoring.calc import CalcError
from scoring.deal import Contract, Misere, Role
from scoring.paper import PaperSheet
from scoring.pricing import SEATS, Price, PricedDeal
from scoring.settle import Settlement
from scoring.sheet import Sheet, Totals


def balances_text(t: Translator, names: Sequence[str], settlement: Settlement) -> Safe:
    """One line per player, `Name: +12.5` (and money with a stake)."""
    key = "balance-line" if settlement.money is None else "balance-money-line"
    lines = []
    for seat, name in enumerate(names):
        whists = t.number(settlement.balances[seat], signed=True)
        money = "" if settlement.money is None else t.money(settlement.money[seat], signed=True)
        lines.append(t(key, name=name, whists=whists, money=money))
    return join_lines(lines)


def transfers_text(t: Translator, names: Sequence[str], settlement: Settlement) -> Safe:
    if not settlement.transfers:
        return t("nobody-pays")
    lines = []
    for tr in settlement.transfers:
        whists = quote(t.count(tr.whists, "whist"))
        if tr.money is not None:
            whists = t("transfer-money", money=t.money(tr.money), whists=whists)
        debtor, creditor = names[tr.debtor], names[tr.creditor]
        lines.append(t("transfer-line", debtor=debtor, creditor=creditor, amount=whists))
    return join_lines(lines)


def totals_text(
    t: Translator, names: Sequence[str], totals: Totals, closed_pools: Collection[int]
) -> Safe:
    """Each player's line of totals: pool, mountain and whists written on each other player."""
    lines = []
    for seat, (name, row) in enumerate(zip(names, totals.whists, strict=True)):
        written = ", ".join(f"{names[o]} {t.number(n)}" for o, n in enumerate(row) if o != seat)
        closed = t("pool-closed") if seat in closed_pools else ""
        pool, mountain = t.number(totals.pool[seat]), t.number(totals.mountain[seat])
        shown = {"name": name, "pool": pool, "closed": closed, "mountain": mountain}
        lines.append(t("totals-line", **shown, whists=written))
    return join_lines(lines)


def _settled(t: Translator, names: Sequence[str], settlement: Settlement, totals: Safe) -> Safe:
    """Balances, who pays whom, and the totals: `/score`'s part that `/calc` shows too."""
    sections = [
        ("balances-title", balances_text(t, names, settlement)),
        ("transfers-title", transfers_text(t, names, settlement)),
        ("totals-title", totals),
    ]
    return join_lines(line for key, body in sections for line in ("", t(key), body))


def score_text(t: Translator, state: GameState, sheet: Sheet, settlement: Settlement) -> Safe:
    key = "score-head-ended" if state.ended_reason else "score-head"
    if key == "score-head" and sheet.finished:
        key = "score-head-finished"  # the end rule is met: the final score, not "if it ended now"
    head = t(key, game=state.number, deals=sheet.deals)
    totals = totals_text(t, state.names, sheet.totals, sheet.closed_pools)
    return join_lines([head, rules_brief(t, state), _settled(t, state.names, settlement, totals)])


def sheet_text(t: Translator, state: GameState, sheet: Sheet, settlement: Settlement) -> Safe:
    """The sheet when no picture can be drawn."""
    names = state.names
    head = t("sheet-title", game=state.number, deals=sheet.deals)
    totals = totals_text(t, names, sheet.totals, sheet.closed_pools)
    return join_lines([head, totals, "", t("balances-title"), balances_text(t, names, settlement)])


def ended_text(t: Translator, ended: Ended) -> Safe:
    state = ended.state
    lines: list[str] = [t(f"game-ended-{ended.reason}", game=state.number)]
    if ended.sheet is not None and ended.settlement is not None:
        lines += ["", score_text(t, state, ended.sheet, ended.settlement)]
    return join_lines(lines)


def calc_text(t: Translator, sheet: PaperSheet, settlement: Settlement) -> Safe:
    """`/calc`'s sheet settled: `Sochi, pool 10 · stake 0.1 per whist · whist_split=gentleman`,
    then as `/score` shows it (a pool is closed when it reaches the target)."""
    rules = sheet.rules
    convention = t(f"convention-{rules.convention}")
    parts: list[str] = [t("rules-brief", convention=convention, pool=rules.pool_target)]
    if sheet.stake is not None:
        parts.append(t("rules-stake", stake=t.number(sheet.stake, places=4)))
    options = {k: v for k, v in rules.overrides(len(sheet.players)).items() if k != "pool_target"}
    if options:
        parts.append(quote(", ".join(f"{k}={v}" for k, v in options.items())))
    closed = {s for s, pool in enumerate(sheet.totals.pool) if pool == rules.pool_target}
    totals = totals_text(t, sheet.players, sheet.totals, closed)
    head = t("calc-title", rules=Safe(" · ".join(parts)))
    return join_lines([head, _settled(t, sheet.players, settlement, totals)])


def calc_error_text(t: Translator, error: CalcError) -> Safe:
    """The error as a bad `/deal`'s (its text, the part at fault, an example) with the line quoted."""
    text = error_text(t, error)
    if error.line:
        text = join_lines([t("calc-error-line", number=error.line, line=capped(error.text)), text])
    return text


# -- the inline mode -------------------------------------------------------------------------
_ROLE_KEYS = {Role.WHIST: "inline-whister", Role.PASS: "inline-passer", Role.HALF: "inline-half"}


def seat_names(t: Translator, priced: PricedDeal) -> tuple[str, ...]:
    """Each seat called by its part in the deal (the declarer, the whister, the passer), numbered
    when two share one; a raspasy's seats keep their letters."""
    record = priced.record
    if isinstance(record, Misere):
        catchers: list[str] = [t("inline-catcher", n=n) for n in (1, 2)]
        catchers.insert(record.declarer, t.template("inline-misere-player"))
        return tuple(catchers)
    if not isinstance(record, Contract):
        return SEATS
    names = [t.template("inline-declarer")] * len(SEATS)
    roles = {d.player: d.role for d in record.defenders}
    for seat, role in roles.items():
        names[seat] = t.template(_ROLE_KEYS[role])
    others = [s for s in range(len(SEATS)) if s != record.declarer]
    if len(roles) == 2 and names[others[0]] == names[others[1]]:
        for n, seat in enumerate(others, 1):
            names[seat] = f"{names[seat]} {n}"
    elif not roles:  # a concession: nobody defended
        for n, seat in enumerate(others, 1):
            names[seat] = t("inline-other", n=n)
    return tuple(names)


def balances_line(t: Translator, names: Sequence[str], balances: Sequence[Fraction]) -> Safe:
    """`Declarer −50.7 · Whister +33.3 · Passer +17.3`."""
    parts = (
        f"{quote(n)} {t.number(b, signed=True)}" for n, b in zip(names, balances, strict=True)
    )
    return Safe(" · ".join(parts))


def price_title(t: Translator, names: Sequence[str], price: Price) -> str:
    """One convention's result on one line (plain: an article's title and description)."""
    convention = t.template(f"convention-{price.convention}")
    if price.refused is not None:
        return f"{convention}: {t.template('inline-refused')}"
    return f"{convention}: {plain_text(balances_line(t, names, price.balances))}"


def price_text(t: Translator, query: str, names: Sequence[str], price: Price) -> Safe:
    """One convention: the entries the deal writes and what each player wins or pays."""
    convention = t(f"convention-{price.convention}")
    lines = [t("inline-deal-head", deal=capped(query)), t("inline-convention", name=convention)]
    if price.refused is not None:
        return join_lines([*lines, t(f"error-{price.refused}", convention=convention)])
    lines += [entry_text(t, names, entry) for entry in price.entries]
    lines.append(t("inline-cost", balances=balances_line(t, names, price.balances)))
    return join_lines(lines)


def all_prices_text(t: Translator, query: str, names: Sequence[str], priced: PricedDeal) -> Safe:
    lines: list[str] = [t("inline-deal-head", deal=capped(query)), t("inline-all-head")]
    for price in priced.prices:
        convention = t(f"convention-{price.convention}")
        if price.refused is not None:
            lines.append(t("inline-all-refused", convention=convention))
        else:
            shown = balances_line(t, names, price.balances)
            lines.append(t("inline-all-line", convention=convention, balances=shown))
    return join_lines(lines)


def game_title(t: Translator, state: GameState, chat: str | None) -> str:
    return t.template("inline-game-title").format(game=state.number, chat=chat or "?")


def game_description(t: Translator, state: GameState, settlement: Settlement) -> str:
    return plain_text(balances_line(t, state.names, settlement.balances))
