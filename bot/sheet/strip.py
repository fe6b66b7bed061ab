"""The strip under the drawing: the convention, the pool, the stake, the deals, who deals next,
the rules that differ from the preset, the balances and the last deal in words."""

from __future__ import annotations

from collections.abc import Mapping

from bot.sheet.bands import suit_segs
from bot.sheet.drawn import Drawn
from bot.sheet.flow import NEWLINE, Item, Seg
from bot.sheet.model import INK, MINUS, MUTED, PLUS, SEAT_COLOURS, RunKind
from locales.numbers import MINUS_SIGN, format_amount, format_money
from scoring.deal import Contract, Misere, Raspasy, Role, Suit


def _deal_summary(sheet: Drawn, words: Mapping[str, str]) -> tuple[int, str] | None:
    names = sheet.game.players
    if sheet.last_deal is None:
        return None
    number, deal = sheet.last_deal
    if isinstance(deal, Contract):
        suit = "" if deal.suit is None else deal.suit.value
        if deal.suit is Suit.NO_TRUMP:
            suit = words["no_trump"]
        head = f"{names[deal.declarer]} {deal.level}{suit}"
        if deal.three_down:
            return number, f"{head} {words['three_down']}"
        if Role.HALF in deal.roles and not deal.played:
            return number, f"{head} {words['half_whist']}"
        if not deal.played:
            return number, f"{head} {words['passed']}"
        result = "=" if deal.result == 0 else f"{deal.result:+d}".replace("-", MINUS_SIGN)
        return number, f"{head} {result}"
    if isinstance(deal, Misere):
        result = "=" if deal.tricks == 0 else words["tricks"].format(count=deal.tricks)
        return number, f"{names[deal.declarer]} {words['misere']} {result}"
    if isinstance(deal, Raspasy):
        tricks = ", ".join(f"{names[p]} {t}" for p, t in deal.tricks)
        return number, f"{words['raspasy']}: {tricks}"
    return None


def _legend(sheet: Drawn, words: Mapping[str, str], corrected: bool) -> list[Item]:
    """A small legend, only for what the sheet shows: a correction's grey value and
    raised number; help (pool points past the target written into another player's pool)."""
    lines = []
    if corrected:
        lines.append(words["legend_correction"])
    if sheet.helped:
        lines.append(words["legend_help"])
    items: list[Item] = []
    for line in lines:
        items.append(NEWLINE)
        items += [
            Item((Seg(word, color=MUTED, kind=RunKind.LEGEND),), gap=0.3) for word in line.split()
        ]
    return items


def strip_items(
    sheet: Drawn,
    words: Mapping[str, str],
    lang: str = "en",
    corrected: bool = False,
) -> list[Item]:
    """The strip's items; the stake, balances and money written the language's way; with
    `corrected` (a correction is drawn) or help on the sheet, a legend line under them."""
    game, rules = sheet.game, sheet.rules
    names = game.players
    sep = Seg(" · ", color=MUTED, kind=RunKind.STRIP)
    items = [
        Item((Seg(words.get(rules.convention, rules.convention), bold=True, kind=RunKind.STRIP),)),
        Item((sep, Seg(words["target"].format(target=rules.pool_target), kind=RunKind.STRIP))),
    ]
    if game.stake is not None:
        stake = format_amount(game.stake, decimals=True, lang=lang)
        items.append(
            Item((sep, Seg(words["centre_stake"].format(stake=stake), kind=RunKind.STRIP)))
        )
    items.append(Item((sep, Seg(words["deals"].format(count=sheet.deals), kind=RunKind.STRIP))))
    if sheet.finished:
        items.append(Item((sep, Seg(words["finished"], bold=True, kind=RunKind.STRIP))))
    else:
        dealer = sheet.next_dealer
        items.append(
            Item(
                (
                    sep,
                    Seg(words["next_dealer"], kind=RunKind.STRIP),
                    Seg(names[dealer], bold=True, color=SEAT_COLOURS[dealer], kind=RunKind.STRIP),
                )
            )
        )
        if sheet.last_round_announced:
            items.append(Item((sep, Seg(words["last_round"], bold=True, kind=RunKind.STRIP))))
    overrides = rules.overrides(game.size)
    if overrides:
        items += [NEWLINE, Item((Seg(words["overrides"], color=MUTED, kind=RunKind.STRIP),))]
        pairs = list(overrides.items())
        for i, (name, value) in enumerate(pairs):
            text = f"{name}={value}" + (", " if i < len(pairs) - 1 else "")
            items.append(Item((Seg(text, kind=RunKind.STRIP),), gap=0.2))
    settlement = sheet.settlement
    head = words["balance_final"] if sheet.finished else words["balance_now"]
    items += [NEWLINE, Item((Seg(head, color=MUTED, kind=RunKind.STRIP),), gap=0.5)]
    for seat, balance in enumerate(settlement.balances):
        colour = PLUS if balance > 0 else (MINUS if balance < 0 else INK)
        amount = (
            format_amount(balance, decimals=True, sign=True, lang=lang)
            + " "
            + words["whists_unit"]
        )
        segs = [
            Seg(names[seat] + " ", bold=True, color=SEAT_COLOURS[seat], kind=RunKind.STRIP),
            Seg(amount, bold=True, color=colour, kind=RunKind.STRIP),
        ]
        if settlement.money is not None:
            money = format_money(settlement.money[seat], lang)
            segs.append(Seg(f" ({money})", color=colour, kind=RunKind.STRIP))
        items.append(Item(tuple(segs), gap=0.9))
    summary = _deal_summary(sheet, words)
    if summary is not None:
        number, text = summary
        segs = [Seg(words["last_deal"].format(number=number), color=MUTED, kind=RunKind.STRIP)]
        segs += suit_segs(text, kind=RunKind.STRIP)
        items += [NEWLINE, Item(tuple(segs))]
    return items + _legend(sheet, words, corrected)
