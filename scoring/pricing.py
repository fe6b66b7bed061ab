"""What one deal costs under each convention, at a fresh table of three (the inline mode).

A deal is typed as in `/deal` but without names (notation.md): `7♠ -1 vist pass`,
`8бк = вист/1 вист/0`, `мизер 1`. The declarer is seat A; each defender given by its role alone
(`vist`, `пас`, `пол`, with or without `/TRICKS`) takes the next free seat of B and C. A line that
names its players by seat letters (`A 7♠ -1 vist:B pass:C`, `рас A/2 B/3 C/5`) is read as it
stands. Each convention's cost is what settlement.md's method gives for the sheet this one deal
writes: every player's balance in whists (zero-sum), beside the entries the deal wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from scoring.deal import Contract, Misere, Raspasy, Record
from scoring.entries import Entry
from scoring.errors import IllegalDeal, InvalidDeal
from scoring.notation import Table, parse_record
from scoring.notation_words import MISERE, ROLES, norm
from scoring.replay import replay
from scoring.rules import PRESETS, rules_for
from scoring.settle import settle
from scoring.sheet import Game

SEATS: Final = ("A", "B", "C")
EXAMPLE: Final = {"en": "7♠ -1 vist pass", "ru": "7п -1 вист пас"}
# A defender by its role alone, with its tricks or not: `vist`, `вист/2`, `pass=0`.
_BARE_ROLE: Final = re.compile(r"(?P<role>[^\W\d_]+)(?:[/=](?P<tricks>\d{1,2}))?")
# A seat letter as notation.md reads it (Latin, or the Cyrillic look-alikes and transliterations).
_SEAT_LETTERS: Final = {"a": "A", "b": "B", "c": "C", "а": "A", "б": "B", "в": "B", "с": "C"}


@dataclass(frozen=True, slots=True)
class Price:
    """One convention's price of the deal; `refused` the code of a convention that does not
    allow it (`three-down-not-allowed`), its entries and balances then empty."""

    convention: str
    entries: tuple[Entry, ...] = ()
    balances: tuple[Fraction, ...] = ()
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class PricedDeal:
    record: Contract | Misere | Raspasy
    prices: tuple[Price, ...]


def price_deal(text: str, lang: str = "en") -> PricedDeal:
    """The deal typed in `text` priced under every preset; raises NotationError for a line that
    is not one deal (a rule change, a mark or an adjustment is not a deal either)."""
    line = seated(text)
    record: Record = parse_record(line, Table(SEATS))
    if not isinstance(record, Contract | Misere | Raspasy):
        raise InvalidDeal("not-a-deal", text.strip(), {}, EXAMPLE.get(lang, EXAMPLE["en"]))
    prices: list[Price] = []
    for convention in PRESETS:
        rules = rules_for(convention, len(SEATS))
        try:
            sheet = replay(Game(rules, SEATS), [record])
        except IllegalDeal as error:
            prices.append(Price(convention, refused=error.code))
            continue
        balances = settle(rules, sheet.totals).balances
        prices.append(Price(convention, sheet.records[0].entries, balances))
    return PricedDeal(record, tuple(prices))


def seated(text: str) -> str:
    """The line with its seats filled in: the declarer A before a bare contract or misère, and
    each defender given by its role alone at the next free seat."""
    words = text.split()
    if not words:
        return text
    declarer = _SEAT_LETTERS.get(norm(words[0])) if len(words) > 1 else None
    start = 1 if declarer is not None else 0
    first = norm(words[start])
    if not (first[:1].isdigit() or first in MISERE):
        return text  # raspasy, or a line of another shape: read as typed
    taken = {_SEAT_LETTERS.get(norm(w.partition(":")[2])[:1]) for w in words if ":" in w}
    taken.add(declarer or "A")
    free = [seat for seat in SEATS if seat not in taken]
    filled: list[str] = [] if start else ["A"]
    for word in words:
        bare = _BARE_ROLE.fullmatch(word)
        if bare is not None and norm(bare["role"]) in ROLES and free:
            tricks = f"/{bare['tricks']}" if bare["tricks"] else ""
            word = f"{bare['role']}:{free.pop(0)}{tricks}"
        filled.append(word)
    return " ".join(filled)
