"""A deal by buttons as far as told: the draft, its steps, and the values its buttons send."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Final

from scoring import offers
from scoring.deal import Role, Suit


class DealKind(StrEnum):
    CONTRACT = "c"
    MISERE = "m"
    RASPASY = "r"


class DealStep(StrEnum):
    """What a draft asks next; short values, they travel in callback data."""

    KIND = "k"
    DECLARER = "d"
    CONTRACT = "c"  # level and suit
    WORD = "w"  # the next defender's word, clockwise from the declarer
    RESULT = "r"  # the declarer's tricks, shown as the result (=, −1, +1)
    SPLIT = "s"  # both whisted: the first whister's tricks, the second has the rest
    MISERE = "m"  # the declarer's tricks on misère
    RASPASY = "p"  # the next active player's tricks on raspasy
    CONFIRM = "ok"


KINDS: Final = (DealKind.CONTRACT, DealKind.MISERE, DealKind.RASPASY)
ROLES: Final = (Role.WHIST, Role.PASS, Role.HALF)  # a word's button value is its index here


class Extra(IntEnum):
    """The extras the confirmation offers beside ✅ (notation.md "EXTRA"); they travel as `v`."""

    OPEN = 1
    CLOSED = 2
    NOTE = 3
    CONCEDE = 4  # the concession «без трёх», right after the contract
    PRIKUP = 10  # + N (1–3): Odessa's quick tricks in the prikup, at the confirmation
    BOTH_PASS = 5  # shortcuts at the first defender's word: both pass …
    FIRST_WHISTS = 6  # … the first (clockwise) whists, the second passes …
    SECOND_WHISTS = 7  # … the first passes, the second whists
    DECLARER = 20  # + seat: a contract by this declarer, straight from the first step
    DEALER_WHISTS = 30  # + seat X: both passed, the 4-player Odessa dealer whists, X passes


SHORTCUT_WORDS: Final = {
    Extra.BOTH_PASS: (Role.PASS, Role.PASS),
    Extra.FIRST_WHISTS: (Role.WHIST, Role.PASS),
    Extra.SECOND_WHISTS: (Role.PASS, Role.WHIST),
}


class BadPress(ValueError):
    """A value the current step does not offer (a forged or outdated button)."""


@dataclass(frozen=True, slots=True)
class Draft:
    """A deal as far as the buttons have told it."""

    kind: DealKind | None = None
    declarer: int | None = None
    level: int | None = None
    suit: Suit | None = None
    words: tuple[Role, ...] = ()  # the defenders' words, clockwise from the declarer
    taken: int | None = None  # the declarer's tricks in a played contract
    split: int | None = None  # both whisted: the first whister's tricks
    tricks: tuple[int, ...] = ()  # misère: (declarer's,); raspasy: per active player so far
    light: bool | None = None  # at the confirmation: open (True) or closed (False) play
    note: str = ""  # at the confirmation: a note, typed as a reply
    conceded: bool = False  # «без трёх» right after the contract: no defenders, no tricks
    prikup: int = 0  # Odessa's quick tricks in the prikup (1–3), 0 for none
    dealer_whist: int | None = None  # both passed and the Odessa dealer whisted: the passer X

    @property
    def played(self) -> bool:
        """Cards were played: someone whisted (the dealer too) and nobody took a half-whist."""
        return self.dealer_whist is not None or offers.was_played(self.words)

    @property
    def two_whists(self) -> bool:
        return offers.both_whisted(self.words)


@dataclass(frozen=True, slots=True)
class Choice:
    """One button: the `value` a press sends, and its label — `text` as it is, or the text of the
    locale key `key` with `{text}` filled in (words differ by language, names and numbers do not)."""

    value: int
    text: str = ""
    key: str | None = None
