"""Settlement: spec/settlement.md — the method, its examples, rounding and transfers."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from scoring.errors import InvariantError
from scoring.rules import Rules, rules_for
from scoring.settle import (
    Settlement,
    Transfer,
    amnesty,
    carried_mountains,
    money_on_pairs,
    mountain_whists,
    pair_results,
    round_money,
    settle,
    settle_balances,
)
from scoring.sheet import Totals

A, B, C, D = 0, 1, 2, 3


def totals(
    pool: tuple[int, ...],
    mountain: tuple[int | Fraction, ...],
    whists: dict[tuple[int, int], int | Fraction] | None = None,
) -> Totals:
    """Totals from plain numbers; `whists[(a, b)]` is what a wrote on b."""
    size = len(pool)
    written = whists or {}
    return Totals(
        pool=tuple(Fraction(p) for p in pool),
        mountain=tuple(Fraction(m) for m in mountain),
        whists=tuple(
            tuple(Fraction(written.get((a, b), 0)) for b in range(size)) for a in range(size)
        ),
    )


def rebuilt(settlement: Settlement) -> list[Fraction]:
    balances = [Fraction(0)] * len(settlement.balances)
    for t in settlement.transfers:
        balances[t.debtor] -= t.whists
        balances[t.creditor] += t.whists
    return balances


def rebuilt_money(settlement: Settlement) -> list[Decimal]:
    money = [Decimal(0)] * len(settlement.balances)
    for t in settlement.transfers:
        assert t.money is not None
        money[t.debtor] -= t.money
        money[t.creditor] += t.money
    return money


SOCHI_10: Rules = rules_for("sochi", 3, {"pool_target": "10"})
E1 = totals(
    (20, 20, 20),
    (42, 96, 132),
    {(A, B): 170, (A, C): 60, (B, A): 64, (B, C): 178, (C, A): 88, (C, B): 95},
)
E3 = totals(
    (10, 10, 6),
    (14, 20, 4),
    {(A, B): 30, (A, C): 16, (B, A): 10, (B, C): 24, (C, A): 40, (C, B): 8},
)


def test_settlement_e1_minigames_mail_ru() -> None:
    """settlement.md, "Examples that must hold", E1: balances A +558, B −83, C −475."""
    rules = rules_for("sochi", 3)  # pools closed at the target: the pool carry changes nothing
    mountains = amnesty(carried_mountains(rules, E1))
    assert mountains == (0, 54, 90)  # amnesty −42
    assert mountain_whists(mountains) == (0, 180, 300)  # on B 180 from each, on C 300 from each
    assert pair_results(E1.whists, mountain_whists(mountains)) == {
        (A, B): 286,  # 350 − 64
        (A, C): 272,  # 360 − 88
        (B, C): 203,  # 478 − 275
    }
    settlement = settle(rules, E1)
    assert settlement.balances == (558, -83, -475)
    assert settlement.mountains == (0, 54, 90)
    assert settlement.money is None


def test_settlement_e3_unfinished_pool_sochi() -> None:
    """settlement.md E3: C's 4 missing points go to his mountain (4 → 8); balances A −4, B −64, C +68."""
    assert carried_mountains(SOCHI_10, E3) == (14, 20, 8)
    settlement = settle(SOCHI_10, E3)
    assert settlement.balances == (-4, -64, 68)
    assert settlement.mountains == (6, 12, 0)


def test_settlement_e4_russian_seed_c() -> None:
    """settlement.md E4: pools 48, 48, 54 to 50 — the player at 54 writes 8 off his mountain (4 over × 2),
    each of the others adds 4 (2 short × 2)."""
    rules = rules_for("russian", 3)
    sheet = totals((48, 48, 54), (10, 10, 10))
    assert carried_mountains(rules, sheet) == (14, 14, 2)
    settlement = settle(rules, sheet)
    assert settlement.mountains == (12, 12, 0)
    # No whists: −10·(M − avg M) with avg 8 → A −40, B −40, C +80.
    assert settlement.balances == (-40, -40, 80)


def test_pool_carry_under_sochi_is_one_mountain_point_per_pool_point_and_leningrad_two() -> None:
    sheet = totals((17, 20, 20), (0, 0, 0))
    assert carried_mountains(rules_for("sochi", 3), sheet) == (3, 0, 0)
    assert carried_mountains(rules_for("leningrad", 3), sheet) == (6, 0, 0)


def test_every_pool_closed_at_the_target_leaves_the_mountains_as_they_are() -> None:
    sheet = totals((40, 40, 40, 40), (20, 25, 31, 20))
    assert carried_mountains(rules_for("odessa", 4), sheet) == sheet.mountain


def test_amnesty_changes_no_balance() -> None:
    lower = totals((20, 20, 20), (0, 54, 90), {(A, B): 170, (B, C): 178, (C, A): 88})
    higher = totals((20, 20, 20), (42, 96, 132), {(A, B): 170, (B, C): 178, (C, A): 88})
    rules = rules_for("sochi", 3)
    assert settle(rules, lower).balances == settle(rules, higher).balances


def test_with_four_players_a_mountain_point_costs_two_and_a_half_whists_a_head() -> None:
    """settlement.md step 3: M × 10 / N with N = 4, dealer included."""
    settlement = settle(rules_for("sochi", 4), totals((20, 20, 20, 20), (0, 0, 0, 4)))
    assert mountain_whists(settlement.mountains) == (0, 0, 0, 10)  # 4 points × 2.5
    assert settlement.balances == (10, 10, 10, -30)
    assert [(t.debtor, t.creditor, t.whists) for t in settlement.transfers] == [
        (D, A, 10),
        (D, B, 10),
        (D, C, 10),
    ]


def test_four_player_settlement_gives_halves_from_odd_mountains() -> None:
    settlement = settle(
        rules_for("moscow", 4),
        totals((20, 20, 20, 20), (3, 0, 0, 0), {(A, B): 7, (C, D): 2}),
    )
    # A: −10·(3 − 3/4) + 7 = −15.5; B: 7.5 − 7 = 0.5; C: 7.5 + 2 = 9.5; D: 7.5 − 2 = 5.5.
    assert settlement.balances == (
        Fraction(-31, 2),
        Fraction(1, 2),
        Fraction(19, 2),
        Fraction(11, 2),
    )
    assert rebuilt(settlement) == list(settlement.balances)


def test_balances_sum_to_zero_and_follow_the_closed_form() -> None:
    settlement = settle(SOCHI_10, E3, Fraction(1, 10))
    assert sum(settlement.balances) == 0
    assert sum(settlement.money or ()) == 0


# -- transfers ------------------------------------------------------------------------------------


def test_transfers_of_e3_are_the_largest_debtor_paying_the_largest_creditor() -> None:
    """cli.md's example: Boris pays Clara 64, then Anna pays Clara 4."""
    settlement = settle(SOCHI_10, E3)
    assert settlement.transfers == (
        Transfer(B, C, Fraction(64), None),
        Transfer(A, C, Fraction(4), None),
    )


def test_transfers_of_e1_are_at_most_two_and_rebuild_the_balances() -> None:
    settlement = settle(rules_for("sochi", 3), E1)
    assert [(t.debtor, t.creditor, t.whists) for t in settlement.transfers] == [
        (C, A, 475),
        (B, A, 83),
    ]
    assert rebuilt(settlement) == list(settlement.balances)


def test_greedy_ties_go_to_the_earlier_seat() -> None:
    balances = [Fraction(-5), Fraction(5), Fraction(-5), Fraction(5)]
    assert settle_balances(balances) == ((A, B, 5), (C, D, 5))


def test_greedy_makes_at_most_n_minus_1_transfers() -> None:
    balances = [Fraction(-7), Fraction(3), Fraction(-1), Fraction(5)]
    payments = settle_balances(balances)
    assert payments == ((A, D, 5), (A, B, 2), (C, B, 1))
    assert len(payments) <= len(balances) - 1


def test_all_square_needs_no_transfer() -> None:
    settlement = settle(rules_for("sochi", 3), totals((20, 20, 20), (5, 5, 5)), Fraction(1))
    assert settlement.balances == (0, 0, 0)
    assert settlement.transfers == ()
    assert settlement.money == (0, 0, 0)


# -- money and rounding -------------------------------------------------------------------------


def test_thirds_with_a_stake_round_to_cents_that_sum_to_zero() -> None:
    """settlement.md "Exactness and rounding": largest remainder, ties by seat."""
    settlement = settle(rules_for("russian", 3), totals((48, 48, 54), (0, 0, 8)), Fraction(1))
    assert settlement.balances == (Fraction(-40, 3), Fraction(-40, 3), Fraction(80, 3))
    # −1333.3, −1333.3, 2666.7 cents: floors −1334, −1334, 2666 leave 2 cents; all remainders ⅔,
    # so the two earliest seats get one each.
    assert settlement.money == (Decimal("-13.33"), Decimal("-13.33"), Decimal("26.66"))
    assert sum(settlement.money) == Decimal("0.00")
    assert [(t.debtor, t.creditor, t.whists, t.money) for t in settlement.transfers] == [
        (A, C, Fraction(40, 3), Decimal("13.33")),
        (B, C, Fraction(40, 3), Decimal("13.33")),
    ]


def test_the_largest_remainder_gets_the_cent_before_an_earlier_seat() -> None:
    balances = [Fraction(1, 1000), Fraction(7, 1000), Fraction(-8, 1000)]
    # 0.1, 0.7, −0.8 cents: floors 0, 0, −1 leave one cent; remainders .1, .7, .2 → seat B.
    assert round_money(balances, Fraction(1)) == (
        Decimal("0.00"),
        Decimal("0.01"),
        Decimal("-0.01"),
    )


def test_equal_remainders_give_the_cent_to_the_earlier_seat() -> None:
    balances = [Fraction(1, 3), Fraction(1, 3), Fraction(-2, 3)]
    assert round_money(balances, Fraction(1)) == (
        Decimal("0.34"),
        Decimal("0.33"),
        Decimal("-0.67"),
    )


def test_money_is_the_balance_times_the_stake() -> None:
    settlement = settle(SOCHI_10, E3, Fraction(1, 10))
    assert settlement.money == (Decimal("-0.40"), Decimal("-6.40"), Decimal("6.80"))
    assert [t.money for t in settlement.transfers] == [Decimal("6.40"), Decimal("0.40")]
    assert rebuilt_money(settlement) == list(settlement.money)


def test_money_follows_the_whist_payments_even_when_rounding_splits_halves() -> None:
    """Half whists at a kopeck a whist: the money of each pair comes from the rounded balances."""
    balances = [Fraction(-2), Fraction(-2), Fraction(3, 2), Fraction(5, 2)]
    money = round_money(balances, Fraction(1, 100))
    assert money == (Decimal("-0.02"), Decimal("-0.02"), Decimal("0.02"), Decimal("0.02"))
    pairs = [(d, c) for d, c, _ in settle_balances(balances)]
    assert pairs == [(A, D), (B, C), (B, D)]
    assert money_on_pairs(pairs, money) == [Decimal("0.02"), Decimal("0.02"), Decimal("0.00")]


def test_money_that_rounding_moves_between_separate_pairs_is_paid_on_its_own_pairs() -> None:
    """A–B and C–D settle apart in whists, but rounding gives B a cent that C owes."""
    sheet = totals(
        (20, 20, 20, 20), (0, 0, 0, 0), {(B, A): Fraction(11, 2), (D, C): Fraction(11, 2)}
    )
    settlement = settle(rules_for("sochi", 4), sheet, Fraction(1, 100))
    assert settlement.balances == (
        Fraction(-11, 2),
        Fraction(11, 2),
        Fraction(-11, 2),
        Fraction(11, 2),
    )
    assert settlement.money == (
        Decimal("-0.05"),
        Decimal("0.06"),
        Decimal("-0.06"),
        Decimal("0.05"),
    )
    assert money_on_pairs([(A, B), (C, D)], settlement.money) is None
    assert settlement.transfers == (
        Transfer(A, B, Fraction(11, 2), Decimal("0.00")),
        Transfer(C, D, Fraction(11, 2), Decimal("0.00")),
        Transfer(C, B, Fraction(0), Decimal("0.06")),
        Transfer(A, D, Fraction(0), Decimal("0.05")),
    )
    assert rebuilt(settlement) == list(settlement.balances)
    assert rebuilt_money(settlement) == list(settlement.money)


def test_a_stake_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="stake"):
        settle(SOCHI_10, E3, Fraction(-1, 10))


def test_a_zero_stake_settles_with_no_money() -> None:
    """settlement.md "Input strictness": "the stake is a decimal number `≥ 0`"."""
    settlement = settle(SOCHI_10, E3, Fraction(0))
    assert settlement.money == (0, 0, 0)
    assert [t.money for t in settlement.transfers] == [0, 0]


def test_totals_of_different_sizes_are_refused() -> None:
    broken = Totals(E3.pool, E3.mountain[:2], E3.whists)
    with pytest.raises(ValueError, match="same players"):
        settle(SOCHI_10, broken)


def test_settling_the_e1_balances_pays_as_the_settlement_of_e1_does() -> None:
    """settlement.md "Who pays whom" on summed balances (debts over several games): the
    balances of E1 settle with the same payments as the game itself."""
    settlement = settle(rules_for("sochi", 3), E1)
    payments = settle_balances(settlement.balances)
    assert payments == tuple((t.debtor, t.creditor, t.whists) for t in settlement.transfers)
    assert payments == ((C, A, 475), (B, A, 83))


def test_settling_money_balances_keeps_every_cent() -> None:
    money = (Decimal("3.87"), Decimal("-4.93"), Decimal("1.06"))
    assert settle_balances(money) == ((1, 0, Decimal("3.87")), (1, 2, Decimal("1.06")))


def test_balances_that_do_not_sum_to_zero_cannot_be_settled() -> None:
    with pytest.raises(InvariantError):
        settle_balances((Fraction(1), Fraction(-2)))
