"""The inline mode's texts (`@bot 7♠ -1 vist pass`): a deal priced, the sender's games to share."""

from __future__ import annotations

import html
from collections.abc import Sequence
from fractions import Fraction

from bot.core import GameState
from bot.texts.i18n import Safe, Translator, quote
from bot.texts.views import capped, entry_text, join_lines
from scoring.deal import Contract, Misere, Role
from scoring.pricing import SEATS, Price, PricedDeal
from scoring.settle import Settlement

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
    return f"{convention}: {html.unescape(balances_line(t, names, price.balances))}"


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
    """Every convention's cost, one line each."""
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
    return html.unescape(balances_line(t, state.names, settlement.balances))
