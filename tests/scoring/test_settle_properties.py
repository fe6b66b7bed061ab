"""Settlement properties over random totals under every preset (settlement.md "Method", "Who pays whom")."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import PRESETS, Rules, rules_for
from scoring.settle import WHISTS_PER_MOUNTAIN_POINT, carried_mountains, settle
from scoring.sheet import Totals

amounts = st.integers(-1800, 1800).map(lambda n: Fraction(n, 6))  # halves and thirds
stakes = st.none() | st.sampled_from(["0.01", "0.10", "0.25", "1", "0.001", "3"]).map(Fraction)


@st.composite
def games(draw: st.DrawFn) -> tuple[Rules, Totals, Fraction | None]:
    size = draw(st.sampled_from([3, 4]))
    rules = rules_for(draw(st.sampled_from(sorted(PRESETS))), size)
    pool = tuple(Fraction(draw(st.integers(0, rules.pool_target + 15))) for _ in range(size))
    mountain = tuple(draw(amounts) for _ in range(size))
    whists = tuple(
        tuple(Fraction(0) if a == b else abs(draw(amounts)) for b in range(size))
        for a in range(size)
    )
    return rules, Totals(pool, mountain, whists), draw(stakes)


def closed_form_balance(
    mountains: Sequence[Fraction], whists: Sequence[Sequence[Fraction]], player: int
) -> Fraction:
    """`−10·(M_i − avg M) + Σ_j (W[i][j] − W[j][i])`, M after the pool carry (settlement.md "Method")."""
    average = Fraction(sum(mountains, Fraction(0)), len(mountains))
    written = sum(
        (whists[player][j] - whists[j][player] for j in range(len(mountains))), Fraction(0)
    )
    return -WHISTS_PER_MOUNTAIN_POINT * (mountains[player] - average) + written


@given(games())
def test_balances_sum_to_exactly_zero(game: tuple[Rules, Totals, Fraction | None]) -> None:
    settlement = settle(*game)
    assert sum(settlement.balances) == 0


@given(games())
def test_balances_follow_the_closed_form(game: tuple[Rules, Totals, Fraction | None]) -> None:
    rules, totals, stake = game
    settlement = settle(rules, totals, stake)
    carried = carried_mountains(rules, totals)
    assert list(settlement.balances) == [
        closed_form_balance(carried, totals.whists, i) for i in range(len(totals.pool))
    ]


@given(games())
def test_transfers_rebuild_the_balances(game: tuple[Rules, Totals, Fraction | None]) -> None:
    settlement = settle(*game)
    balances = [Fraction(0)] * len(settlement.balances)
    for t in settlement.transfers:
        assert t.whists >= 0 and t.debtor != t.creditor
        balances[t.debtor] -= t.whists
        balances[t.creditor] += t.whists
    assert balances == list(settlement.balances)
    whist_payments = [t for t in settlement.transfers if t.whists]
    assert len(whist_payments) <= len(balances) - 1


@given(games())
def test_money_sums_to_zero_and_is_within_a_cent(
    game: tuple[Rules, Totals, Fraction | None],
) -> None:
    rules, totals, stake = game
    settlement = settle(rules, totals, stake)
    if stake is None:
        assert settlement.money is None
        assert all(t.money is None for t in settlement.transfers)
        return
    assert settlement.money is not None
    assert sum(settlement.money) == 0
    for money, balance in zip(settlement.money, settlement.balances, strict=True):
        assert money == money.quantize(Decimal("0.01"))
        assert abs(Fraction(money) - balance * stake) < Fraction(1, 100)
    paid = [Decimal(0)] * len(settlement.money)
    for t in settlement.transfers:
        assert t.money is not None and t.money >= 0
        paid[t.debtor] -= t.money
        paid[t.creditor] += t.money
    assert paid == list(settlement.money)


@given(games())
def test_amnesty_leaves_the_smallest_mountain_at_zero(
    game: tuple[Rules, Totals, Fraction | None],
) -> None:
    settlement = settle(*game)
    assert min(settlement.mountains) == 0
