"""Building records and games for engine tests without the notation (seats A=0, B=1, C=2, D=3)."""

from __future__ import annotations

from fractions import Fraction

from scoring.deal import Contract, Defender, Extras, Misere, Raspasy, Record, Role, Suit
from scoring.replay import replay
from scoring.rules import rules_for
from scoring.sheet import Entry, Game, Sheet

A, B, C, D = 0, 1, 2, 3
NAMES = ("Anna", "Boris", "Clara", "Dima")


def vist(player: int, tricks: int | None = None) -> Defender:
    return Defender(player, Role.WHIST, tricks)


def pas(player: int) -> Defender:
    return Defender(player, Role.PASS)


def half(player: int) -> Defender:
    return Defender(player, Role.HALF)


def contract(
    declarer: int,
    level: int,
    result: int,
    *defenders: Defender,
    size: int = 3,
    dealer: int | None = None,
    prikup: int = 0,
    three_down: bool = False,
) -> Contract:
    """A contract with its defenders kept clockwise from the declarer, as the notation keeps them."""
    ordered = sorted(defenders, key=lambda d: (d.player - declarer) % size)
    extras = Extras(dealer=dealer, prikup=prikup)
    return Contract(declarer, level, Suit.SPADES, result, tuple(ordered), three_down, extras)


def misere(declarer: int, tricks: int, dealer: int | None = None) -> Misere:
    return Misere(declarer, tricks, Extras(dealer=dealer))


def raspasy(*tricks: tuple[int, int], dealer: int | None = None) -> Raspasy:
    return Raspasy(tuple(tricks), Extras(dealer=dealer))


def make_game(convention: str, size: int = 3, first_dealer: int = 0, **options: object) -> Game:
    overrides = {name: str(value).lower() for name, value in options.items()}
    return Game(rules_for(convention, size, overrides), NAMES[:size], first_dealer)


def play(game: Game, *records: Record) -> Sheet:
    return replay(game, records)


def whists_written(entries: tuple[Entry, ...] | list[Entry], writer: int) -> Fraction:
    return sum(
        (e.amount for e in entries if e.player == writer and e.target is not None), Fraction(0)
    )


def column(sheet: Sheet, name: str) -> tuple[Fraction, ...]:
    totals = sheet.totals
    return totals.pool if name == "pool" else totals.mountain
