"""Statistics of finished games: plays, tallies, an Elo rating (docs/rules.md "The rating")."""

import hashlib
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import reduce
from itertools import combinations
from pathlib import Path
from typing import Final, TypeVar

from scoring.deal import Column, Contract, Misere, Raspasy
from scoring.seating import active_seats
from scoring.settle import Settlement
from scoring.sheet import Sheet

LEVELS: Final = (6, 7, 8, 9, 10)
# Raise it when what a play holds changes; the engine's own changes are caught by `ENGINE`.
STATS_VERSION: Final = 1
Key = TypeVar("Key", bound=Hashable)
_COUNTS: Final = ("deals", "miseres", "miseres_made", "raspasy", "raspasy_tricks")  # plain ints


def _engine_fingerprint() -> str:
    digest = hashlib.sha256(str(STATS_VERSION).encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return f"{STATS_VERSION}-{digest.hexdigest()[:16]}"


ENGINE: Final = _engine_fingerprint()


@dataclass(frozen=True, slots=True)
class Play:
    balance: Fraction  # whists, from the settlement
    money: Decimal | None  # with a stake
    deals: int = 0
    declared: tuple[int, ...] = (0, 0, 0, 0, 0)
    made: tuple[int, ...] = (0, 0, 0, 0, 0)
    miseres: int = 0
    miseres_made: int = 0
    whists: Fraction = Fraction(0)
    raspasy: int = 0
    raspasy_tricks: int = 0


def plays(sheet: Sheet, settlement: Settlement) -> tuple[Play, ...]:
    size = sheet.game.size
    counts = [Tally() for _ in range(size)]  # its counts, no game yet
    for scored in sheet.records:
        record = scored.record
        if not scored.number or scored.dealer is None:  # an adjustment, a mark, a rule change
            continue
        for seat in active_seats(size, scored.dealer):
            counts[seat].deals += 1
        for entry in scored.entries:
            if entry.column is Column.WHISTS:
                _add(counts[entry.player].written, entry.amount)
        if isinstance(record, Contract):
            level = LEVELS.index(record.level)
            counts[record.declarer].declared[level] += 1
            if record.result >= 0 and not record.three_down:
                counts[record.declarer].made[level] += 1
        elif isinstance(record, Misere):
            counts[record.declarer].miseres += 1
            counts[record.declarer].miseres_made += record.tricks == 0
        elif isinstance(record, Raspasy):
            for seat, tricks in record.tricks:
                counts[seat].raspasy += 1
                counts[seat].raspasy_tricks += tricks
    money = settlement.money
    return tuple(
        Play(
            settlement.balances[seat],
            None if money is None else money[seat],
            declared=tuple(c.declared),
            made=tuple(c.made),
            whists=c.whists,
            **{name: getattr(c, name) for name in _COUNTS},
        )
        for seat, c in enumerate(counts)
    )


def above(a: Fraction, b: Fraction) -> bool:
    """`a > b` exactly, comparing correctly rounded quotients first (much cheaper)."""
    x, y = a.numerator / a.denominator, b.numerator / b.denominator
    return x > y if x != y else a > b


def same(a: Fraction, b: Fraction) -> bool:
    """`a == b` (Fractions are kept in lowest terms)."""
    return a.numerator == b.numerator and a.denominator == b.denominator


def winners(balances: Sequence[Fraction]) -> frozenset[int]:
    """The seats with the best balance at the table (a shared best wins for each)."""
    best = reduce(lambda best, balance: balance if above(balance, best) else best, balances)
    return frozenset(seat for seat, balance in enumerate(balances) if same(balance, best))


def _add(sums: dict[int, int], value: Fraction) -> None:
    """Add to a sum kept as numerators per denominator; the Fraction is made when read."""
    sums[value.denominator] = sums.get(value.denominator, 0) + value.numerator


def _sum(sums: dict[int, int]) -> Fraction:
    return sum((Fraction(n, d) for d, n in sums.items()), Fraction(0))


@dataclass(slots=True)
class Tally:
    games: int = 0
    wins: int = 0
    money: Decimal | None = None  # the sum over the games that had a stake
    best: tuple[Fraction, int] | None = None
    worst: tuple[Fraction, int] | None = None
    deals: int = 0
    declared: list[int] = field(default_factory=lambda: [0] * len(LEVELS))
    made: list[int] = field(default_factory=lambda: [0] * len(LEVELS))
    miseres: int = 0
    miseres_made: int = 0
    raspasy: int = 0
    raspasy_tricks: int = 0
    totals: dict[int, int] = field(default_factory=dict, repr=False)  # balances: `total`
    written: dict[int, int] = field(default_factory=dict, repr=False)  # whists: `whists`

    def add(self, play: Play, won: bool, game: int) -> None:
        balance = play.balance
        self.games += 1
        self.wins += won
        _add(self.totals, balance)
        if play.money is not None:
            self.money = (self.money or Decimal(0)) + play.money
        if self.best is None or above(balance, self.best[0]):
            self.best = (balance, game)
        if self.worst is None or above(self.worst[0], balance):
            self.worst = (balance, game)
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(play, name))
        if any(play.declared):  # most games a player declares a contract or two, or none
            self.declared = [a + b for a, b in zip(self.declared, play.declared, strict=True)]
            self.made = [a + b for a, b in zip(self.made, play.made, strict=True)]
        if play.whists:
            _add(self.written, play.whists)

    @property
    def total(self) -> Fraction:
        return _sum(self.totals)

    @property
    def whists(self) -> Fraction:
        return _sum(self.written)

    @property
    def average(self) -> Fraction:
        return self.total / self.games if self.games else Fraction(0)

    @property
    def whists_per_deal(self) -> Fraction | None:
        return self.whists / self.deals if self.deals else None

    @property
    def tricks_per_raspasy(self) -> Fraction | None:
        return Fraction(self.raspasy_tricks, self.raspasy) if self.raspasy else None

    @property
    def contracts(self) -> int:
        return sum(self.declared)

    @property
    def contracts_made(self) -> int:
        return sum(self.made)


def tally_games(games: Sequence[tuple[int, Sequence[tuple[Key, Play]]]]) -> dict[Key, Tally]:
    """Each player's tally over `games`: (game key, (player key, play) per seat)."""
    tallies: dict[Key, Tally] = {}
    for game, seats in games:
        won = winners([play.balance for _, play in seats])
        for seat, (player, play) in enumerate(seats):
            tallies.setdefault(player, Tally()).add(play, seat in won, game)
    return tallies


START: Final = 1500.0  # a player's rating before his first game
K: Final = 32.0  # the most one game can move a rating
SCALE: Final = 400.0  # a difference of SCALE points: the better player expected to win 10:1


def expected(mine: float, theirs: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, (theirs - mine) / SCALE))


def duel(mine: Fraction, theirs: Fraction) -> float:
    """The score of a duel decided by the final balances: 1 won, ½ drawn, 0 lost."""
    return 1.0 if above(mine, theirs) else 0.5 if same(mine, theirs) else 0.0


def rate_table(ratings: Sequence[float], balances: Sequence[Fraction]) -> tuple[float, ...]:
    """The ratings after one game, in seat order, from the ratings before it and its balances."""
    size = len(ratings)
    change = [0.0] * size
    for i, j in combinations(range(size), 2):  # j's side of the duel is the complement of i's
        gain = duel(balances[i], balances[j]) - expected(ratings[i], ratings[j])
        change[i] += gain
        change[j] -= gain
    weight = K / (size - 1)
    return tuple(rating + weight * delta for rating, delta in zip(ratings, change, strict=True))


def ratings(games: Iterable[Sequence[tuple[Key, Fraction]]]) -> dict[Key, float]:
    """Every player's rating after `games` (in order; each a table of (player, balance))."""
    rated: dict[Key, float] = {}
    for table in games:
        players = [player for player, _ in table]
        after = rate_table([rated.get(p, START) for p in players], [b for _, b in table])
        rated.update(zip(players, after, strict=True))
    return rated
