"""What one deal costs under each convention, at a fresh table of three (the inline mode)."""

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from scoring.deal import Contract, Misere, Raspasy, Record
from scoring.errors import IllegalDeal, InvalidDeal
from scoring.notation import Table, parse_record
from scoring.notation_words import MISERE, ROLES, SEAT_LETTERS, norm
from scoring.replay import replay
from scoring.rules import PRESETS, rules_for
from scoring.settle import settle
from scoring.sheet import Entry, Game

SEATS: Final = ("A", "B", "C")
EXAMPLE: Final = {"en": "7♠ -1 vist pass", "ru": "7п -1 вист пас"}
# A defender by its role alone, with its tricks or not: `vist`, `вист/2`, `pass=0`.
_BARE_ROLE: Final = re.compile(r"(?P<role>[^\W\d_]+)(?:[/=](?P<tricks>\d{1,2}))?")
_SEAT_LETTERS: Final = {letter: SEATS[seat] for letter, seat in SEAT_LETTERS.items() if seat < 3}


@dataclass(frozen=True, slots=True)
class Price:
    """One convention's price of the deal; `refused`: the code of a convention refusing it."""

    convention: str
    entries: tuple[Entry, ...] = ()
    balances: tuple[Fraction, ...] = ()
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class PricedDeal:
    record: Contract | Misere | Raspasy
    prices: tuple[Price, ...]


def price_deal(text: str, lang: str = "en") -> PricedDeal:
    """The deal in `text` priced under every preset; raises NotationError if not one deal."""
    record: Record = parse_record(seated(text), Table(SEATS))
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
    """The line at seats A, B, C: the declarer at A, named defenders at theirs, others free."""
    words = text.split()
    declarer, start = "A", 0
    if len(words) > 1 and not _opens_deal(words[0]) and _opens_deal(words[1]):
        declarer, start = _SEAT_LETTERS.get(norm(words[0]), "A"), 1
    if not words or not _opens_deal(words[start]):
        return text
    defenders = [_defender(word) for word in words[start + 1 :]]
    taken = {declarer, *(seat for d in defenders if d is not None and (seat := d[1]))}
    free = [seat for seat in SEATS if seat not in taken]
    filled = [declarer, words[start]]
    for word, defender in zip(words[start + 1 :], defenders, strict=True):
        if defender is not None:
            role, seat, tricks = defender
            if not seat and free:
                seat = free.pop(0)
            word = f"{role}:{seat}{tricks}" if seat else word
        filled.append(word)
    return " ".join(filled)


def _opens_deal(word: str) -> bool:
    """A contract's level (`7♠`, `8бк`, `10`) or a misère."""
    key = norm(word)
    return key[:1].isdigit() or key in MISERE


def _defender(word: str) -> tuple[str, str, str] | None:
    """(role word, seat letter or "", "/tricks" or "") of a defender word; else None."""
    role, colon, rest = word.partition(":")
    if not colon:
        bare = _BARE_ROLE.fullmatch(word)
        if bare is None or norm(bare["role"]) not in ROLES:
            return None
        return bare["role"], "", f"/{bare['tricks']}" if bare["tricks"] else ""
    if norm(role) not in ROLES or not rest:
        return None
    ref, *tricks = re.split("[/=]", rest, maxsplit=1)
    seat = _SEAT_LETTERS.get(norm(ref), "") if len(ref) == 1 else ""
    return role, seat, f"/{tricks[0]}" if tricks else ""
