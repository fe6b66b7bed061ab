"""The strip under the drawing: the convention, the stake, the deals, who deals next, the
balances (numbers a player reads, at `Style.strip`; its words `Style.words` times that), the rules
that differ from the preset, the last deal in words and a legend of the marks the sheet shows."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bot.sheet.flow import NEWLINE, Area, Item, Seg, fewest, flow
from bot.sheet.model import INK, MINUS, MUTED, PLUS, RED, SEAT_COLOURS, RunKind, Style, TextRun
from locales.numbers import MINUS_SIGN, format_amount, format_money
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


@dataclass(frozen=True, slots=True)
class _Strip:
    """The strip's items of one sheet, its words at `rel` times the numbers' size."""

    sheet: Sheet
    settlement: Settlement
    words: Mapping[str, str]
    lang: str
    rel: float

    def word(
        self, text: str, color: str = INK, kind: RunKind = RunKind.STRIP, bold: bool = False
    ) -> Seg:
        return Seg(text, rel=self.rel, bold=bold, color=color, kind=kind)

    def head(self) -> list[Item]:
        """The convention, the stake, the deals, who deals next (the pool size is in the
        circle)."""
        sheet, words, word = self.sheet, self.words, self.word
        game, rules = sheet.game, sheet.rules
        sep = word(" · ", MUTED)
        items = [Item((word(words.get(rules.convention, rules.convention), bold=True),))]
        if game.stake is not None:
            stake = format_amount(game.stake, decimals=True, lang=self.lang)
            items.append(Item((sep, word(words["centre_stake"].format(stake=stake)))))
        items.append(Item((sep, word(words["deals"].format(count=sheet.deals)))))
        if sheet.finished:
            items.append(Item((sep, word(words["finished"], bold=True))))
            return items
        dealer = sheet.next_dealer
        name = word(game.players[dealer], SEAT_COLOURS[dealer], bold=True)
        items.append(Item((sep, word(words["next_dealer"]), name)))
        if sheet.last_round_announced:
            items.append(Item((sep, word(words["last_round"], bold=True))))
        return items

    def balances(self, label: bool = True, unit: bool = True, money: bool = True) -> list[Item]:
        """Each player's balance if the game ended now, in whists and, with a stake and `money`,
        in money; `label`: the words that say so first, `unit`: "wh." after each."""
        sheet, words, word = self.sheet, self.words, self.word
        settlement = self.settlement
        items = [NEWLINE]
        if label:
            head = words["balance_final"] if sheet.finished else words["balance_now"]
            items.append(Item((word(head, MUTED),), gap=0.5))
        for seat, balance in enumerate(settlement.balances):
            colour = PLUS if balance > 0 else (MINUS if balance < 0 else INK)
            amount = format_amount(balance, decimals=True, sign=True, lang=self.lang)
            segs = [
                word(sheet.game.players[seat] + " ", SEAT_COLOURS[seat], bold=True),
                Seg(amount, bold=True, color=colour, kind=RunKind.BALANCE),
            ]
            if unit:
                segs.append(word(" " + words["whists_unit"], colour, bold=True))
            if money and settlement.money is not None:
                cash = format_money(settlement.money[seat], self.lang)
                segs.append(Seg(f" ({cash})", color=colour, kind=RunKind.BALANCE))
            items.append(Item(tuple(segs), gap=0.9))
        return items

    def overrides(self) -> list[Item]:
        """The rules that differ from the preset."""
        overrides = self.sheet.rules.overrides(self.sheet.game.size)
        if not overrides:
            return []
        items = [NEWLINE, Item((self.word(self.words["overrides"], MUTED),))]
        pairs = list(overrides.items())
        for i, (name, value) in enumerate(pairs):
            text = f"{name}={value}" + (", " if i < len(pairs) - 1 else "")
            items.append(Item((self.word(text),), gap=0.2))
        return items

    def last_deal(self) -> list[Item]:
        summary = _deal_summary(self.sheet, self.words)
        if summary is None:
            return []
        number, text = summary
        segs = [self.word(self.words["last_deal"].format(number=number), MUTED)]
        for part in filter(None, re.split("([♦♥])", text)):  # the red suits in red
            segs.append(self.word(part, RED if part in "♦♥" else INK))
        return [NEWLINE, Item(tuple(segs))]

    def legend(self, lines: list[str]) -> list[Item]:
        """Legend lines, one a row, in grey words."""
        items: list[Item] = []
        for line in lines:
            items.append(NEWLINE)
            items += [
                Item((self.word(word, MUTED, RunKind.LEGEND),), gap=0.3) for word in line.split()
            ]
        return items


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
    strip = _Strip(sheet, settlement, words, lang, style.words)
    # Some pool or mountain points were given by another player: the replay says so, a sheet
    # made otherwise is read.
    helped = sheet.helped
    if helped is None:
        helped = any(e.reason is Reason.HELP for r in sheet.records for e in r.entries)
    order = ("overrides", "last", "label", "help", "unit", "correction", "money", "folded")
    present = {"help": helped, "correction": corrected, "folded": folded}
    shown = [key for key in order if present.get(key, True)]  # in the order they are given up
    head = strip.head()
    # each gives up one more thing than the one before
    plans = [set(shown[given:]) for given in range(len(shown) + 1)]

    def laid(plan: set[str]) -> list[TextRun]:
        legend = [
            words[f"legend_{key}"] for key in ("folded", "correction", "help") if key in plan
        ]
        items = (
            head
            + (strip.overrides() if "overrides" in plan else [])
            + strip.balances("label" in plan, "unit" in plan, "money" in plan)
            + (strip.last_deal() if "last" in plan else [])
            + strip.legend(legend)
        )
        return flow(items, area, *style.strip)

    # Giving up more only makes it fit more easily.
    tried: dict[int, list[TextRun]] = {}

    def fits(index: int) -> bool:
        tried[index] = laid(plans[index])
        return bool(tried[index])

    first = fewest(range(len(plans)), fits)
    return [] if first is None else tried[first]
