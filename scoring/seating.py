"""Who sits at the table and who plays a deal (spec/notation.md "Players")."""

from dataclasses import dataclass
from typing import Final

from scoring.notation_words import SEAT_LETTERS

# Words a deal line reads as vocabulary or as the sender (`me`/`я`); a player named so could not be
# referred to by name. A single seat letter (`A`–`D`) is always a seat, never a name.
RESERVED_NAMES: Final = frozenset(
    {"me", "я", "pass", "vist", "half", "misere", "мизер", "рас", "пас", "вист", "пол", "adjust"}
)


def reserved_name(name: str) -> bool:
    """Whether `name` is a word of the notation or a seat letter, so no player may take it."""
    return name.casefold() in RESERVED_NAMES or name.casefold() in SEAT_LETTERS


def clockwise(start: int, size: int) -> tuple[int, ...]:
    return tuple((start + i) % size for i in range(size))


def active_seats(size: int, dealer: int) -> tuple[int, ...]:
    """The seats that play a deal dealt by `dealer`: at four, all but the dealer."""
    if size not in (3, 4):
        raise ValueError(f"a game has 3 or 4 players, not {size}")
    return tuple(s for s in range(size) if size == 3 or s != dealer)


@dataclass(frozen=True, slots=True)
class Seating:
    """Where a deal is played: the players in seat order, who deals it, its number on the sheet."""

    names: tuple[str, ...]
    dealer: int
    number: int = 1

    @property
    def active(self) -> tuple[int, ...]:
        return active_seats(len(self.names), self.dealer)

    def defenders(self, declarer: int) -> tuple[int, int]:
        """The declarer's two defenders, clockwise from him: the order of the canonical line."""
        active = self.active
        if declarer not in active:
            raise ValueError(f"seat {declarer} does not play this deal")
        first, second = (s for s in clockwise(declarer, len(self.names))[1:] if s in active)
        return first, second
