"""What one deal was — the record players write, before any scoring (spec/notation.md)."""

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Final

from scoring.rules import Rules

# §1: the pool value of each contract, and the tricks the defending side must take.
GAME_VALUE: Final = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
MISERE_VALUE: Final = 10
OBLIGATION: Final = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
TRICKS: Final = 10


class Suit(StrEnum):
    SPADES = "♠"
    CLUBS = "♣"
    DIAMONDS = "♦"
    HEARTS = "♥"
    NO_TRUMP = "NT"


class Role(StrEnum):
    WHIST = "vist"
    PASS = "pass"
    HALF = "half"


class Column(StrEnum):
    POOL = "pool"
    MOUNTAIN = "mountain"
    WHISTS = "whists"


@dataclass(frozen=True, slots=True)
class Defender:
    player: int
    role: Role
    tricks: int | None = None  # kept only when both defenders whist (each writes his own)


@dataclass(frozen=True, slots=True)
class Extras:
    """What a deal line may add that is not the contract itself."""

    dealer: int | None = None  # `dealer:X` — who dealt; the rotation continues from X
    open: bool | None = None  # `open` / `closed`: recorded, no effect on scores
    prikup: int = 0  # Odessa quick tricks in the prikup, 1–3
    note: str = ""
    late: bool = False  # `/deal … late`: a forgotten deal put before the latest one (bot only)


@dataclass(frozen=True, slots=True)
class Contract:
    """A game of 6–10."""

    declarer: int
    level: int
    suit: Suit | None
    result: int
    defenders: tuple[Defender, ...]
    three_down: bool = False
    extras: Extras = Extras()

    @property
    def roles(self) -> tuple[Role, ...]:
        return tuple(d.role for d in self.defenders)

    @property
    def played(self) -> bool:
        """Whether cards were played: someone whisted and nobody took a half-whist."""
        roles = self.roles
        return not self.three_down and Role.WHIST in roles and Role.HALF not in roles

    @property
    def defence_tricks(self) -> int:
        """T: the tricks of the defending side (0 when not played)."""
        return TRICKS - self.level - self.result if self.played else 0

    @property
    def undertricks(self) -> int:
        return max(0, -self.result)


@dataclass(frozen=True, slots=True)
class Misere:
    declarer: int
    tricks: int  # the declarer's tricks; 0 is a clean misère
    extras: Extras = Extras()


@dataclass(frozen=True, slots=True)
class Raspasy:
    """All passed. `tricks` holds (player, tricks) of the active players in seat order."""

    tricks: tuple[tuple[int, int], ...]
    extras: Extras = Extras()


@dataclass(frozen=True, slots=True)
class Adjust:
    """One entry written by hand (penalties, an arbiter's decision): no deal, no rotation, no overflow."""

    player: int
    column: Column
    amount: Fraction
    target: int | None = None  # whists: on whom
    note: str = ""


@dataclass(frozen=True, slots=True)
class LastRound:
    """The announcement of the last round (Odessa's end rule)."""


@dataclass(frozen=True, slots=True)
class RuleChange:
    """`option name=value` (§1.4): the canonical `value` holds from the next record."""

    option: str
    value: str


Deal = Contract | Misere | Raspasy
Record = Contract | Misere | Raspasy | Adjust | LastRound | RuleChange


def whist_price(rules: Rules, level: int) -> int:
    """p: whists a defender writes per trick (§1)."""
    return GAME_VALUE[level] * rules.whist_factor


def remise_price(rules: Rules, level: int) -> int:
    """Mountain per undertrick of the declarer (§1)."""
    return GAME_VALUE[level] * rules.remise_factor


def obligation(rules: Rules, level: int) -> int:
    """Tricks the defending side must take; the 10 is checked (0) when `ten_whisted` is off."""
    return 0 if level == 10 and not rules.ten_whisted else OBLIGATION[level]
