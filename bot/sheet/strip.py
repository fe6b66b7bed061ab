"""The strip under the drawing: the convention, the stake, the deals, who deals next, the
balances (numbers a player reads, at `Style.strip`; its words `Style.words` times that), the rules
that differ from the preset, the last deal in words and a legend of the marks the sheet shows."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bot.sheet.flow import NEWLINE, Area, Item, Seg, fewest, flow
from bot.sheet.model import INK, MINUS, MUTED, PLUS, RED, SEAT_COLOURS, RunKind, Style, TextRun
from locales.numbers import MINUS_SIGN, format_amount, money
from scoring.deal import Contract, Misere, Raspasy, Role, Suit
from scoring.entries import Reason
from scoring.settle import Settlement
from scoring.sheet import Sheet


def _deal_summary(sheet: Sheet, words: Mapping[str, str]) -> tuple[int, str] | None:
    """The last numbered record in words, with its number."""
    names = sheet.game.players
    last = next(((s.number, s.record) for s in reversed(sheet.records) if s.number), None)
    if last is None:
        return None
    number, deal = last
    if isinstance(deal, Contract):
        suit = words["no_trump"] if deal.suit is Suit.NO_TRUMP else (deal.suit or "")
        if deal.three_down:
            result = words["three_down"]
        elif not deal.played:
            result = words["half_whist" if Role.HALF in deal.roles else "passed"]
        else:
            result = "=" if deal.result == 0 else f"{deal.result:+d}".replace("-", MINUS_SIGN)
        return number, f"{names[deal.declarer]} {deal.level}{suit} {result}"
    if isinstance(deal, Misere):
        result = "=" if deal.tricks == 0 else words["tricks"].format(count=deal.tricks)
        return number, f"{names[deal.declarer]} {words['misere']} {result}"
    if isinstance(deal, Raspasy):
        tricks = ", ".join(f"{names[p]} {t}" for p, t in deal.tricks)
        return number, f"{words['raspasy']}: {tricks}"
    return None


def strip_runs(
    sheet: Sheet,
    settlement: Settlement,
    words: Mapping[str, str],
    lang: str,
    corrected: bool,
    folded: bool,
    area: Area,
    style: Style,
) -> list[TextRun]:
    """The strip laid out in `area` at the style's strip sizes: everything if it fits, else it
    gives up, one at a time, the rules that differ from the preset (`/rules` has them), the last
    deal (the photo's caption has it), the words before the balances, the legend of help, the
    unit after each balance, the legend of corrections, the money (`/score` has it), the legend
    of folded totals."""
    game, rules, names = sheet.game, sheet.rules, sheet.game.players

    def word(text: str, ink: str = INK, kind: RunKind = RunKind.STRIP, bold: bool = False) -> Seg:
        return Seg(text, rel=style.words, bold=bold, color=ink, kind=kind)

    # The convention, the stake, the deals, who deals next (the pool size is in the circle).
    sep = word(" · ", MUTED)
    head = [Item((word(words.get(rules.convention, rules.convention), bold=True),))]
    if game.stake is not None:
        stake = format_amount(game.stake, decimals=True, lang=lang)
        head.append(Item((sep, word(words["centre_stake"].format(stake=stake)))))
    head.append(Item((sep, word(words["deals"].format(count=sheet.deals)))))
    if sheet.finished:
        head.append(Item((sep, word(words["finished"], bold=True))))
    else:
        dealer = sheet.next_dealer
        name = word(names[dealer], SEAT_COLOURS[dealer], bold=True)
        head.append(Item((sep, word(words["next_dealer"]), name)))
        if sheet.last_round_announced:
            head.append(Item((sep, word(words["last_round"], bold=True))))
    pairs = [f"{key}={value}" for key, value in rules.overrides(game.size).items()]
    overrides = [NEWLINE, Item((word(words["overrides"], MUTED),))] if pairs else []
    for i, pair in enumerate(pairs):
        overrides.append(Item((word(pair + (", " if i < len(pairs) - 1 else "")),), gap=0.2))
    last: list[Item] = []
    if (summary := _deal_summary(sheet, words)) is not None:
        number, told = summary
        parts = filter(None, re.split("([♦♥])", told))  # the red suits in red
        segs = [word(part, RED if part in "♦♥" else INK) for part in parts]
        last = [NEWLINE, Item((word(words["last_deal"].format(number=number), MUTED), *segs))]

    def balances(plan: set[str]) -> list[Item]:
        """Each player's balance if the game ended now, in whists and, with a stake, in money."""
        items = [NEWLINE]
        if "label" in plan:
            label = words["balance_final"] if sheet.finished else words["balance_now"]
            items.append(Item((word(label, MUTED),), gap=0.5))
        for seat, balance in enumerate(settlement.balances):
            colour = PLUS if balance > 0 else (MINUS if balance < 0 else INK)
            amount = format_amount(balance, decimals=True, sign=True, lang=lang)
            segs = [
                word(names[seat] + " ", SEAT_COLOURS[seat], bold=True),
                Seg(amount, bold=True, color=colour, kind=RunKind.BALANCE),
            ]
            if "unit" in plan:
                segs.append(word(" " + words["whists_unit"], colour, bold=True))
            if "money" in plan and settlement.money is not None:
                cash = money(settlement.money[seat], lang, signed=True)
                segs.append(Seg(f" ({cash})", color=colour, kind=RunKind.BALANCE))
            items.append(Item(tuple(segs), gap=0.9))
        return items

    # Some pool or mountain points were given by another player: the replay says so, a sheet
    # made otherwise is read.
    helped = sheet.helped
    if helped is None:
        helped = any(e.reason is Reason.HELP for r in sheet.records for e in r.entries)
    order = ("overrides", "last", "label", "help", "unit", "correction", "money", "folded")
    present = {"help": helped, "correction": corrected, "folded": folded}
    shown = [key for key in order if present.get(key, True)]  # in the order they are given up
    # each gives up one more thing than the one before; giving up more only makes it fit more easily
    tried: dict[int, list[TextRun]] = {}

    def fits(given: int) -> bool:
        plan = set(shown[given:])
        items = head + (overrides if "overrides" in plan else []) + balances(plan)
        items += last if "last" in plan else []
        for key in ("folded", "correction", "help"):  # the legend, a line each, in grey words
            if key in plan:
                items.append(NEWLINE)
                items += [
                    Item((word(w, MUTED, RunKind.LEGEND),), gap=0.3)
                    for w in words[f"legend_{key}"].split()
                ]
        tried[given] = flow(items, area, *style.strip)
        return bool(tried[given])

    first = fewest(range(len(shown) + 1), fits)
    return [] if first is None else tried[first]
