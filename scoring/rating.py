"""An Elo rating for tables of three and four (docs/rules.md "The rating")."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction
from typing import Final, TypeVar

from scoring.stats import above, same

START: Final = 1500.0  # a player's rating before his first game
K: Final = 32.0  # the most one game can move a rating
SCALE: Final = 400.0  # a difference of SCALE points: the better player expected to win 10:1

Key = TypeVar("Key", bound=Hashable)


def expected(mine: float, theirs: float) -> float:
    """The expected score of a duel against a player rated `theirs`."""
    return 1.0 / (1.0 + math.pow(10.0, (theirs - mine) / SCALE))


def duel(mine: Fraction, theirs: Fraction) -> float:
    """The score of a duel decided by the final balances: 1 won, ½ drawn, 0 lost."""
    if same(mine, theirs):
        return 0.5
    return 1.0 if above(mine, theirs) else 0.0


def rate_table(ratings: Sequence[float], balances: Sequence[Fraction]) -> tuple[float, ...]:
    """The ratings after one game, in seat order, from the ratings before it and its balances."""
    size = len(ratings)
    if size != len(balances) or size < 2:
        raise ValueError("a rated game needs a rating and a balance for each of its players")
    change = [0.0] * size
    for i in range(size):
        for j in range(i + 1, size):  # j's side of the duel is the complement of i's
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
