"""Seating and active players (spec/notation.md "Players"), defenders' order (notation.md
"Canonical form"), and the names no player may take."""

from __future__ import annotations

import pytest

from scoring.errors import ScoringError
from scoring.notation import Table, parse_record
from scoring.seating import (
    RESERVED_NAMES,
    Seating,
    active_seats,
    clockwise,
    reserved_name,
)

NAMES = ("Anna", "Boris", "Clara", "Dmitry")


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_with_three_players_the_dealer_plays(dealer: int) -> None:
    """notation.md "Players": "with 3 he plays"."""
    assert active_seats(3, dealer) == (0, 1, 2)


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_with_four_players_the_dealer_sits_the_deal_out(dealer: int) -> None:
    """notation.md "Players": "With 4 players the dealer sits the deal out and the three others
    are active"."""
    active = active_seats(4, dealer)
    assert dealer not in active and len(active) == 3
    assert active == tuple(sorted(active)), "in seat order"


def test_a_game_has_three_or_four_players() -> None:
    """notation.md "Players": "A game has 3 or 4 players"."""
    with pytest.raises(ValueError):
        active_seats(5, 0)
    with pytest.raises(ValueError):
        active_seats(2, 0)


def test_seats_go_clockwise_in_the_order_given_at_newgame() -> None:
    assert clockwise(2, 4) == (2, 3, 0, 1)
    assert clockwise(0, 3) == (0, 1, 2)


def test_defenders_are_clockwise_from_the_declarer() -> None:
    """notation.md "Canonical form": defenders are kept clockwise from the declarer."""
    assert Seating(NAMES[:3], 0).defenders(0) == (1, 2)
    assert Seating(NAMES[:3], 0).defenders(1) == (2, 0)
    assert Seating(NAMES[:3], 0).defenders(2) == (0, 1)
    # four players, Boris (1) deals and sits out: Dmitry declares, Anna then Clara defend
    assert Seating(NAMES[:4], 1).defenders(3) == (0, 2)
    assert Seating(NAMES[:4], 1).defenders(0) == (2, 3)


def test_the_dealer_of_four_has_no_defenders_because_he_does_not_play() -> None:
    with pytest.raises(ValueError):
        Seating(NAMES[:4], 1).defenders(1)


@pytest.mark.parametrize("size", [3, 4])
def test_the_defenders_order_is_the_order_the_notation_reads_back(size: int) -> None:
    """What the canonical line holds is what the engine normalises a deal to: defenders in the
    order `Seating.defenders` gives, whatever order they were typed in."""
    names = NAMES[:size]
    for dealer in range(size):
        seating = Seating(names, dealer)
        table = Table(names, dealer=dealer)
        for declarer in seating.active:
            first, second = seating.defenders(declarer)
            typed = f"{names[declarer]} 6♠ = pass:{names[second]} vist:{names[first]}"
            deal = parse_record(typed, table)
            assert [d.player for d in deal.defenders] == [first, second]  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(RESERVED_NAMES))
def test_a_reserved_name_is_a_word_of_the_notation(name: str) -> None:
    """notation.md "Players": a player is referred to by name; a name that is a word of the
    notation (or `me`/`я`, the sender) could not be, so no player may take it."""
    assert reserved_name(name) and reserved_name(name.upper())


@pytest.mark.parametrize("letter", list("ABCDabcdАБВСДабвсд"))
def test_a_seat_letter_is_always_a_seat_never_a_name(letter: str) -> None:
    """notation.md "Players": "a single seat letter, always a seat: `A`–`D` (Latin, either case)
    or the Cyrillic `А`, `Б`/`В`, `С`, `Д` … a one-letter reference is never a name prefix"."""
    assert reserved_name(letter)


@pytest.mark.parametrize("name", ["Anna", "Пётр", "Vist2", "Passer", "Ab"])
def test_ordinary_names_are_free(name: str) -> None:
    assert not reserved_name(name)


def test_a_deal_line_reads_the_reserved_words_as_notation_not_as_players() -> None:
    """A table where a player were named `pass` would read `/deal pass …` as raspasy."""
    table = Table(("Anna", "Boris", "Clara"))
    with pytest.raises(ScoringError):
        parse_record("vist 6♠ = vist:Anna pass:Boris", table)
