"""What the step-by-step entry may offer is what the engine accepts (spec/notation.md "Contract
deal", "Raspasy", "Errors"): every path through the offers builds a line that
`scoring.notation.parse_record` reads back to the same deal and `scoring.replay` scores, under every
convention; and what a step does not offer, the engine refuses."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import offers
from scoring.deal import TRICKS, Contract, Deal, Defender, Extras, Misere, Raspasy, Role, Suit
from scoring.errors import ScoringError
from scoring.notation import Table, format_record, parse_record
from scoring.replay import replay
from scoring.rules import PRESETS, rules_for
from scoring.seating import Seating
from scoring.sheet import Game

MODEST = settings(max_examples=300, deadline=None)
NAMES = ("Anna", "Boris", "Clara", "Dmitry")
ROLES = (Role.WHIST, Role.PASS, Role.HALF)


@st.composite
def seatings(draw: st.DrawFn) -> Seating:
    size = draw(st.sampled_from((3, 4)))
    return Seating(NAMES[:size], draw(st.integers(0, size - 1)))


def accepted(seating: Seating, deal: Deal, convention: str = "sochi") -> bool:
    """Whether the engine takes `deal` as the first deal of a game dealt by the seating's dealer:
    its canonical line reads back to it, and the replay scores it."""
    table = Table(seating.names, dealer=seating.dealer)
    try:
        line = format_record(deal, seating.names)
        parsed = parse_record(line, table)
        rules = rules_for(convention, len(seating.names))
        replay(Game(rules, seating.names, seating.dealer), [parsed])
    except (ScoringError, ValueError, KeyError, IndexError):
        return False
    return parsed == deal


@st.composite
def offered_deals(draw: st.DrawFn, seating: Seating) -> Deal:
    """A deal built by taking, at each step, one of the answers `scoring.offers` gives."""
    kind = draw(st.sampled_from(("contract", "misere", "raspasy")))
    if kind == "raspasy":
        placed: list[int] = []
        while counts := offers.raspasy_tricks(len(seating.active), placed):
            placed.append(draw(st.sampled_from(counts)))
        return Raspasy(tuple(zip(seating.active, placed, strict=True)))
    declarer = draw(st.sampled_from(seating.active))
    if kind == "misere":
        return Misere(declarer, draw(st.sampled_from(offers.declarer_tricks())))
    level, suit = draw(st.sampled_from(offers.contracts()))
    said: list[Role] = []
    while words := offers.words(level, said):
        said.append(draw(st.sampled_from(words)))
    result, tricks = 0, (None, None)
    if offers.was_played(said):
        taken = draw(st.sampled_from(offers.declarer_tricks()))
        result = taken - level
        if offers.both_whisted(said):
            first = draw(st.sampled_from(offers.first_whister_tricks(taken)))
            tricks = (first, offers.tricks_left((taken, first)))
    seats = seating.defenders(declarer)
    defenders = tuple(Defender(s, r, n) for s, r, n in zip(seats, said, tricks, strict=True))
    return Contract(declarer, level, suit, result, defenders)


@MODEST
@given(data=st.data(), seating=seatings(), convention=st.sampled_from(sorted(PRESETS)))
def test_every_offered_path_builds_a_line_the_engine_reads_back_and_scores(
    data: st.DataObject, seating: Seating, convention: str
) -> None:
    """notation.md: "What the bot prints must parse back to the same deal (round trip)"."""
    deal = data.draw(offered_deals(seating))
    assert accepted(seating, deal, convention), format_record(deal, seating.names)


def contract(seating: Seating, declarer: int, level: int, roles: tuple[Role, Role]) -> Contract:
    """A contract with these words, made exactly (two whisters: the first takes none)."""
    seats = seating.defenders(declarer)
    tricks: tuple[int | None, int | None] = (None, None)
    if offers.both_whisted(roles):
        tricks = (0, TRICKS - level)
    defenders = tuple(Defender(s, r, n) for s, r, n in zip(seats, roles, tricks, strict=True))
    return Contract(declarer, level, Suit.SPADES, 0, defenders)


def offered_raspasy(active: int, tricks: list[int]) -> bool:
    """Whether pressing these counts one by one is a path the raspasy steps offer."""
    return all(n in offers.raspasy_tricks(active, tricks[:i]) for i, n in enumerate(tricks))


@pytest.mark.parametrize("level", offers.LEVELS)
def test_half_whist_is_offered_only_on_six_or_seven_never_beside_a_whist_nor_twice(
    level: int,
) -> None:
    """notation.md "Errors": "half-whist on 8+ or beside a whist, two half-whists" are refused —
    and every pair of words the steps offer is accepted."""
    seating = Seating(NAMES[:3], 0)
    for first, second in product(ROLES, ROLES):
        offered = first in offers.words(level, ()) and second in offers.words(level, (first,))
        deal = contract(seating, 2, level, (first, second))
        assert accepted(seating, deal) == offered, (level, first, second)


def test_half_whist_levels_are_the_ones_the_engine_accepts() -> None:
    seating = Seating(NAMES[:3], 0)
    takes_half = [
        level
        for level in offers.LEVELS
        if accepted(seating, contract(seating, 0, level, (Role.PASS, Role.HALF)))
    ]
    assert tuple(takes_half) == offers.HALF_WHIST_LEVELS == (6, 7)


@pytest.mark.parametrize(
    ("roles", "played"),
    [
        ((Role.WHIST, Role.PASS), True),
        ((Role.PASS, Role.WHIST), True),
        ((Role.WHIST, Role.WHIST), True),
        ((Role.PASS, Role.PASS), False),
        ((Role.HALF, Role.PASS), False),
        ((Role.PASS, Role.HALF), False),
    ],
)
def test_a_deal_is_played_only_when_someone_whists_and_nobody_takes_a_half_whist(
    roles: tuple[Role, Role], played: bool
) -> None:
    """notation.md: "A deal not played (pass-pass, half-whist, conceded) takes no tricks and no
    result other than `=`"."""
    assert offers.was_played(roles) is played
    seating = Seating(NAMES[:3], 0)
    assert contract(seating, 0, 6, roles).played is played
    if not played:
        down = Contract(0, 6, Suit.SPADES, -1, contract(seating, 0, 6, roles).defenders)
        assert not accepted(seating, down), "an unplayed deal has no result but ="


@pytest.mark.parametrize("size", [3, 4])
def test_only_active_players_are_offered_as_declarers(size: int) -> None:
    """notation.md "Players": "With 4 players the dealer sits the deal out"."""
    for dealer in range(size):
        seating = Seating(NAMES[:size], dealer)
        for seat in range(size):
            offered = seat in seating.active
            assert accepted(seating, Misere(seat, 0)) == offered, (size, dealer, seat)


def test_every_contract_from_six_spades_to_ten_no_trump_is_offered() -> None:
    """notation.md: "`LEVEL` 6–10; `SUIT` one of `♠ ♣ ♦ ♥` … or `nt`"."""
    assert len(offers.contracts()) == 25
    assert offers.contracts()[0] == (6, Suit.SPADES)
    assert offers.contracts()[-1] == (10, Suit.NO_TRUMP)


@pytest.mark.parametrize("level", offers.LEVELS)
def test_the_declarer_takes_from_none_to_all_ten_tricks(level: int) -> None:
    seating = Seating(NAMES[:3], 0)
    for taken in range(-2, TRICKS + 3):
        deal = Contract(
            0,
            level,
            Suit.HEARTS,
            taken - level,
            contract(seating, 0, level, (Role.WHIST, Role.PASS)).defenders,
        )
        assert accepted(seating, deal) == (taken in offers.declarer_tricks()), taken


@pytest.mark.parametrize("taken", range(TRICKS + 1))
def test_two_whisters_share_exactly_the_tricks_the_declarer_left(taken: int) -> None:
    """notation.md "`TRICKS`": "Needed only when both whist (each writes his own)"."""
    seating = Seating(NAMES[:3], 0)
    first, second = seating.defenders(0)
    for split in range(-1, TRICKS + 2):
        for other in range(-1, TRICKS + 2):
            deal = Contract(
                0,
                6,
                Suit.CLUBS,
                taken - 6,
                (Defender(first, Role.WHIST, split), Defender(second, Role.WHIST, other)),
            )
            offered = split in offers.first_whister_tricks(taken) and other == offers.tricks_left(
                (taken, split)
            )
            assert accepted(seating, deal) == offered, (taken, split, other)


def test_misere_tricks_run_from_a_clean_misere_to_all_ten() -> None:
    seating = Seating(NAMES[:3], 1)
    for tricks in range(-1, TRICKS + 3):
        assert accepted(seating, Misere(1, tricks)) == (tricks in offers.declarer_tricks()), tricks


@MODEST
@given(seating=seatings(), tricks=st.lists(st.integers(-1, TRICKS + 1), min_size=3, max_size=3))
def test_raspasy_offers_exactly_the_counts_that_make_ten(
    seating: Seating, tricks: list[int]
) -> None:
    """notation.md "Raspasy": "Tricks of the active players must sum to 10"."""
    offered = offered_raspasy(len(seating.active), tricks)
    deal = Raspasy(tuple(zip(seating.active, tricks, strict=True)))
    assert accepted(seating, deal) == offered, tricks


def test_tricks_left_counts_what_is_not_placed_and_refuses_more_than_ten() -> None:
    assert offers.tricks_left(()) == TRICKS
    assert offers.tricks_left((6, 3)) == 1
    with pytest.raises(ValueError):
        offers.tricks_left((6, 5))


@pytest.mark.parametrize("convention", sorted(PRESETS))
@pytest.mark.parametrize("size", [3, 4])
def test_the_concession_is_offered_exactly_where_the_engine_takes_it(
    convention: str, size: int
) -> None:
    """Issue 13: «без трёх» right after the contract, only where the convention allows it; every
    offered concession (any declarer, any contract) reads back and scores, and none is offered
    where the engine refuses it; never after a defender's word."""
    seating = Seating(NAMES[:size], 0)
    allowed = rules_for(convention, size).three_down
    for declarer in seating.active:
        for level, suit in offers.contracts():
            deal = Contract(declarer, level, suit, 0, (), True)
            assert accepted(seating, deal, convention) == offers.may_concede(allowed, ())
    assert not offers.may_concede(True, (Role.PASS,))


@pytest.mark.parametrize("convention", sorted(PRESETS))
@pytest.mark.parametrize("size", [3, 4])
def test_prikup_tricks_are_offered_exactly_where_the_engine_takes_them(
    convention: str, size: int
) -> None:
    """Issue 13: Odessa's quick tricks in the prikup (1–3) on a contract at a table of four."""
    seating = Seating(NAMES[:size], 0)
    bonus = rules_for(convention, size).prikup_bonus
    offered = offers.prikup_tricks(bonus, seating)
    declarer = seating.active[0]
    base = contract(seating, declarer, 7, (Role.WHIST, Role.PASS))
    for n in range(1, 4):
        deal = replace(base, extras=Extras(prikup=n))
        assert accepted(seating, deal, convention) == (n in offered), (convention, size, n)


@pytest.mark.parametrize("convention", sorted(PRESETS))
def test_the_dealer_whist_is_offered_exactly_where_the_engine_takes_it(convention: str) -> None:
    """conventions.md §6: after two passes, `vist:DEALER pass:X` in a 4-player Odessa game only;
    every offered partner X, every result, reads back and scores."""
    for dealer in range(4):
        seating = Seating(NAMES, dealer)
        odessa = rules_for(convention, 4).odessa_rules
        for declarer in seating.active:
            partners = offers.dealer_whist_partners(odessa, seating, declarer, (Role.PASS,) * 2)
            for x in seating.defenders(declarer):
                for taken in offers.declarer_tricks():
                    pair = (Defender(dealer, Role.WHIST), Defender(x, Role.PASS))
                    whists = tuple(sorted(pair, key=lambda d: (d.player - declarer) % 4))
                    deal = Contract(declarer, 7, Suit.SPADES, taken - 7, whists)
                    assert accepted(seating, deal, convention) == (x in partners)
        three = Seating(NAMES[:3], dealer % 3)
        assert offers.dealer_whist_partners(True, three, 0, (Role.PASS,) * 2) == ()
