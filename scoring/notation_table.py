"""The table a notation line is read at: its players, and every reference that names one."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from scoring.notation_words import ME, SEAT_LETTERS, norm


@lru_cache(maxsize=256)
def reference_index(
    players: tuple[str, ...], usernames: tuple[str | None, ...]
) -> dict[str, tuple[int, ...]]:
    """Every normalised reference to the seats it names, in notation.md "Players" order."""
    size = len(players)
    tiers: list[dict[str, list[int]]] = [{} for _ in range(5)]
    for letter, seat in SEAT_LETTERS.items():
        if seat < size:
            tiers[0][letter] = [seat]
    for seat, name in enumerate(players):
        key = norm(name)
        if key:
            tiers[1].setdefault(key, []).append(seat)
            tiers[3].setdefault("@" + key, []).append(seat)
        if not key.startswith("@"):
            for end in range(2, len(key)):
                tiers[4].setdefault(key[:end], []).append(seat)
    for seat, user in enumerate(usernames):
        handle = norm(user).lstrip("@") if user else ""
        if handle:
            tiers[2].setdefault("@" + handle, []).append(seat)
    index: dict[str, tuple[int, ...]] = {}
    for tier in tiers:
        for key, seats in tier.items():
            index.setdefault(key, tuple(seats))
    return index


@dataclass(frozen=True, slots=True)
class Table:
    """The context a line is read in."""

    players: tuple[str, ...]
    usernames: tuple[str | None, ...] = ()
    dealer: int | None = None
    sender: int | None = None
    refs: dict[str, tuple[int, ...]] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        size = len(self.players)
        if size not in (3, 4):
            raise ValueError("a table has 3 or 4 players")
        if len(self.usernames) > size:
            raise ValueError("more usernames than players")
        for seat in (self.dealer, self.sender):
            if seat is not None and not 0 <= seat < size:
                raise ValueError("a seat outside the table")
        object.__setattr__(self, "refs", reference_index(self.players, self.usernames))

    def active(self, dealer: int | None) -> tuple[int, ...] | None:
        """The seats that play a deal dealt by `dealer`; None when that cannot be known."""
        size = len(self.players)
        if size == 3:
            return (0, 1, 2)
        if dealer is None:
            return None
        return tuple(s for s in range(size) if s != dealer)


def find(key: str, table: Table) -> tuple[str, tuple[int, ...]]:
    """A reference resolved: ("ok"|"ambiguous"|"me"|"unknown", seats), never raising."""
    seats = table.refs.get(key)
    if seats is not None:
        return ("ok" if len(seats) == 1 else "ambiguous"), seats
    if key in ME:
        return ("me", ()) if table.sender is None else ("ok", (table.sender,))
    return "unknown", ()
