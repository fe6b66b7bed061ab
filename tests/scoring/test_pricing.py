"""scoring.pricing: one deal typed without names, priced under every convention at a fresh
table of three (the inline mode) — by the same engine that scores a game."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scoring.errors import InvalidDeal, NotationError
from scoring.notation import Table, parse_record
from scoring.pricing import SEATS, price_deal, seated
from scoring.replay import replay
from scoring.rules import PRESETS, rules_for
from scoring.settle import settle
from scoring.sheet import Game


@pytest.mark.parametrize(
    ("typed", "line"),
    [
        ("7♠ -1 vist pass", "A 7♠ -1 vist:B pass:C"),
        ("7п -1 вист пас", "A 7п -1 вист:B пас:C"),
        ("8бк вист/1 вист/0", "A 8бк вист:B/1 вист:C/0"),
        ("мизер 1", "A мизер 1"),
        ("6♥ pass vist:C", "A 6♥ pass:B vist:C"),
        ("B 7♠ = vist pass", "B 7♠ = vist:A pass:C"),
        ("в 7♠ = vist pass", "B 7♠ = vist:A pass:C"),  # Cyrillic в is seat B
        ("Анна 7п -1 вист:Борис пас:Клара", "A 7п -1 вист:B пас:C"),  # names: seats in order
        ("8бк вист/1 вист=0", "A 8бк вист:B/1 вист:C/0"),
        ("C 6п = вист:A/2 вист:B/2", "C 6п = вист:A/2 вист:B/2"),
        ("рас A/2 B/3 C/5", "рас A/2 B/3 C/5"),  # raspasy names its seats itself
    ],
)
def test_a_deal_without_names_gets_the_declarer_a_and_defenders_the_free_seats(
    typed: str, line: str
) -> None:
    assert seated(typed) == line


def test_every_convention_prices_the_deal_as_a_game_of_one_deal_would() -> None:
    """The price is the game's own: replay the one record, settle it (settlement.md)."""
    priced = price_deal("7♠ -1 vist pass")
    assert [p.convention for p in priced.prices] == list(PRESETS)
    record = parse_record("A 7♠ -1 vist:B pass:C", Table(SEATS))
    for price in priced.prices:
        rules = rules_for(price.convention, 3)
        sheet = replay(Game(rules, SEATS), [record])
        assert price.entries == sheet.records[0].entries
        assert price.balances == settle(rules, sheet.totals).balances
        assert sum(price.balances) == 0


def test_sochi_seven_spades_one_down_costs_the_declarer_fifty_and_two_thirds() -> None:
    """Sochi, 7♠ down one with one whister (greedy): mountain 4 for the remise, 16 whists for
    the whister's 4 tricks, 4 consolation from each defender; settled: −50⅔, +33⅓, +17⅓."""
    sochi = price_deal("7♠ -1 vist pass").prices[0]
    assert sochi.balances == (Fraction(-152, 3), Fraction(100, 3), Fraction(52, 3))


def test_a_convention_that_forbids_the_deal_says_so_and_the_others_price_it() -> None:
    by = {p.convention: p for p in price_deal("6♠ three_down").prices}
    assert by["odessa"].refused == "three-down-not-allowed" and not by["odessa"].balances
    assert by["sochi"].refused is None and by["sochi"].balances[0] == -40


@pytest.mark.parametrize(
    "text", ["", "7♠ -1 vist pass jump", "option pool_target=30", "last-round"]
)
def test_what_is_not_one_deal_is_refused_with_an_example(text: str) -> None:
    with pytest.raises(NotationError) as caught:
        price_deal(text)
    assert caught.value.example
    if text.startswith(("option", "last")):
        assert isinstance(caught.value, InvalidDeal)
