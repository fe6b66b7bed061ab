"""Settlement («расписывание пульки»): who owes whom — spec/settlement.md."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from math import floor
from typing import Final, TypeVar

from scoring.errors import InvariantError
from scoring.rules import Rules
from scoring.sheet import Totals

WHISTS_PER_MOUNTAIN_POINT: Final = 10  # step 3: shared among the others
CENTS: Final = 100  # money is rounded to 0.01

Amount = TypeVar("Amount", Fraction, Decimal)


@dataclass(frozen=True, slots=True)
class Transfer:
    """`debtor` pays `creditor` `whists` exactly, and `money` when a stake is set."""

    debtor: int
    creditor: int
    whists: Fraction
    money: Decimal | None


@dataclass(frozen=True, slots=True)
class Settlement:
    balances: tuple[Fraction, ...]  # exact, whists; positive = is owed
    mountains: tuple[Fraction, ...]  # after the pool carry and the amnesty
    money: tuple[Decimal, ...] | None  # rounded to 0.01 by largest remainder, summing to 0
    transfers: tuple[Transfer, ...]


def carried_mountains(rules: Rules, totals: Totals) -> tuple[Fraction, ...]:
    """Step 1: each mountain plus (target − pool) × pool_to_mountain — negative when over (E4)."""
    return tuple(
        mountain + (rules.pool_target - pool) * rules.pool_to_mountain
        for pool, mountain in zip(totals.pool, totals.mountain, strict=True)
    )


def amnesty(mountains: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Step 2: the smallest mountain written off every mountain."""
    least = min(mountains)
    return tuple(m - least for m in mountains)


def mountain_whists(mountains: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Step 3: the whists each other player writes on a player for his mountain, M × 10 / N."""
    return tuple(m * WHISTS_PER_MOUNTAIN_POINT / len(mountains) for m in mountains)


def pair_results(
    whists: Sequence[Sequence[Fraction]], on_mountain: Sequence[Fraction]
) -> dict[tuple[int, int], Fraction]:
    """Step 4: for each pair i < j, what i gets from j once their whists cancel (negative: i pays)."""
    return {
        (i, j): (whists[i][j] + on_mountain[j]) - (whists[j][i] + on_mountain[i])
        for i, j in combinations(range(len(on_mountain)), 2)
    }


def round_money(balances: Sequence[Fraction], stake: Fraction) -> tuple[Decimal, ...]:
    """Balance × stake to 0.01 by the largest-remainder method (ties: the earlier seat), summing to 0."""
    exact = [b * stake * CENTS for b in balances]
    cents = [floor(x) for x in exact]
    missing = -sum(cents)  # the remainders add up to a whole number of cents
    by_remainder = sorted(range(len(exact)), key=lambda i: (-(exact[i] - cents[i]), i))
    for i in by_remainder[:missing]:
        cents[i] += 1
    return tuple(Decimal(c).scaleb(-2) for c in cents)


def settle_balances(balances: Sequence[Amount]) -> tuple[tuple[int, int, Amount], ...]:
    """Zero-sum balances paid greedily in ≤ N − 1 payments: largest debtor to largest creditor."""
    if sum(balances) != 0:
        raise InvariantError(f"balances sum to {sum(balances)}, not 0")
    left = list(balances)
    payments: list[tuple[int, int, Amount]] = []
    while True:
        debtor = min(range(len(left)), key=lambda i: (left[i], i))
        creditor = min(range(len(left)), key=lambda i: (-left[i], i))
        if left[debtor] >= 0 or left[creditor] <= 0:
            return tuple(payments)
        amount = min(-left[debtor], left[creditor])
        left[debtor] += amount
        left[creditor] -= amount
        payments.append((debtor, creditor, amount))


def settle(rules: Rules, totals: Totals, stake: Fraction | None = None) -> Settlement:
    """Balances and payments if the game ended with these totals (settlement.md "Method")."""
    size = len(totals.pool)
    rows = (totals.mountain, totals.whists, *totals.whists)
    if any(len(row) != size for row in rows):
        raise ValueError("pool, mountain and whists must cover the same players")
    if stake is not None and stake < 0:
        raise ValueError("the stake must not be negative")
    mountains = amnesty(carried_mountains(rules, totals))
    pairs = pair_results(totals.whists, mountain_whists(mountains))
    balances = [Fraction(0)] * size
    for (i, j), result in pairs.items():
        balances[i] += result
        balances[j] -= result
    money = None if stake is None else round_money(balances, stake)
    # the greedy whist payments, and money on the same pairs from the rounded balances
    by_pair = {(d, c): amount for d, c, amount in settle_balances(balances)}
    if money is None:
        transfers = tuple(Transfer(d, c, amount, None) for (d, c), amount in by_pair.items())
        return Settlement(tuple(balances), mountains, None, transfers)
    paid = money_on_pairs(list(by_pair), money)
    if paid is not None:
        cash_by_pair = dict(zip(by_pair, paid, strict=True))
    else:  # money greedily on its own pairs; a pair paying one currency only pays 0 of the other
        cash_by_pair = {(d, c): cash for d, c, cash in settle_balances(money)}
    transfers = tuple(
        Transfer(d, c, by_pair.get((d, c), Fraction(0)), cash_by_pair.get((d, c), Decimal("0.00")))
        for d, c in dict.fromkeys([*by_pair, *cash_by_pair])  # the whist pairs first
    )
    return Settlement(tuple(balances), mountains, money, transfers)


def money_on_pairs(
    pairs: Sequence[tuple[int, int]], money: Sequence[Decimal]
) -> list[Decimal] | None:
    """What each (debtor, creditor) pair pays so that the money balances are rebuilt, or None."""
    left = list(money)
    amounts: dict[int, Decimal] = {}
    open_pairs = set(range(len(pairs)))
    while open_pairs:  # the pairs of greedy payments make a forest: peel it leaf by leaf
        degree = Counter(seat for k in open_pairs for seat in pairs[k])
        k = min(k for k in open_pairs if 1 in (degree[pairs[k][0]], degree[pairs[k][1]]))
        debtor, creditor = pairs[k]
        amount = left[creditor] if degree[creditor] == 1 else -left[debtor]
        left[debtor] += amount
        left[creditor] -= amount
        amounts[k] = amount
        open_pairs.remove(k)
    if any(left) or any(amount < 0 for amount in amounts.values()):
        return None
    return [amounts[k] for k in range(len(pairs))]
