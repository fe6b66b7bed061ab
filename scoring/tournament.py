"""A tournament's standings: each game's points per player, summed over the rounds."""

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Final


class Scoring(StrEnum):
    """How a game's result enters the tournament."""

    WHISTS = "whists"  # the game's balance in whists
    PLACES = "places"  # 3/2/1/0 by place at the table, ties shared


SCORINGS: Final = {
    **dict.fromkeys(("whists", "висты"), Scoring.WHISTS),
    **dict.fromkeys(("places", "места"), Scoring.PLACES),
}
PLACE_POINTS: Final = (3, 2, 1, 0)  # first, second, third, fourth at the table


def place_points(balances: Sequence[Fraction]) -> list[Fraction]:
    """Each seat's points by its place (`PLACE_POINTS`); tied seats share them."""
    points: list[Fraction] = []
    for mine in balances:
        place = sum(other > mine for other in balances)
        tied = sum(other == mine for other in balances)
        points.append(Fraction(sum(PLACE_POINTS[place : place + tied]), tied))
    return points


def game_points(scoring: Scoring, balances: Sequence[Fraction]) -> list[Fraction]:
    return place_points(balances) if scoring is Scoring.PLACES else list(balances)


@dataclass(frozen=True, slots=True)
class Line:
    """One player's standing: his points per round played (None: not played) and in all."""

    player: Hashable
    games: int
    total: Fraction
    rounds: tuple[Fraction | None, ...]


def standings(
    rounds: int, results: Sequence[tuple[int, Mapping[Hashable, Fraction]]]
) -> list[Line]:
    """Ranked standings: most points, then fewer games, then who appeared first."""
    totals: dict[Hashable, list[Fraction | None]] = {}
    games: dict[Hashable, int] = {}
    for number, points in results:
        for player, value in points.items():
            row = totals.setdefault(player, [None] * rounds)
            row[number - 1] = (row[number - 1] or Fraction(0)) + value
            games[player] = games.get(player, 0) + 1
    lines = [
        Line(player, games[player], sum(filter(None, row), Fraction(0)), tuple(row))
        for player, row in totals.items()
    ]
    return sorted(lines, key=lambda line: (-line.total, line.games))  # stable: first seen first


def shown_places(lines: Sequence[Line]) -> list[int]:
    """The place shown beside each ranked line: its rank, shared by equal totals (1, 2, 2, 4)."""
    return [1 + sum(other.total > line.total for other in lines) for line in lines]
