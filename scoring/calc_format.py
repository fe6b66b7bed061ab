"""A paper sheet written back as a `/calc` message, and drawn as a sheet with no records."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Final

from scoring.deal import Column
from scoring.paper import PaperSheet
from scoring.sheet import Band, Game, Sheet

COMMAND: Final = "/calc"


def as_sheet(paper: PaperSheet) -> Sheet:
    """The paper sheet as a `Sheet` with no records, each total written at index −1."""
    game = Game(paper.rules, paper.players, 0, paper.stake)
    totals = paper.totals
    history: dict[Band, tuple[tuple[int, Fraction], ...]] = {}
    for seat in range(len(paper.players)):
        history[Band(seat, Column.POOL)] = ((-1, totals.pool[seat]),)
        history[Band(seat, Column.MOUNTAIN)] = ((-1, totals.mountain[seat]),)
        for other in range(len(paper.players)):
            if other != seat and totals.whists[seat][other]:
                history[Band(seat, Column.WHISTS, other)] = ((-1, totals.whists[seat][other]),)
    closed = frozenset(
        seat for seat, pool in enumerate(totals.pool) if pool >= paper.rules.pool_target
    )
    return Sheet(game, (), totals, history, closed_pools=closed)


def format_calc(sheet: PaperSheet) -> str:
    """The sheet as a `/calc` message that reads back to it (zero whists pairs left out)."""
    rules, names = sheet.rules, sheet.players
    head = [COMMAND, rules.convention, "pool", str(rules.pool_target)]
    if sheet.stake is not None:
        head += ["stake", format_stake(sheet.stake)]
    head += [
        f"{name}={value}"
        for name, value in rules.overrides(len(names)).items()
        if name != "pool_target"
    ]
    lines = [" ".join(head)]
    for seat, name in enumerate(names):
        words = [
            name,
            "pool",
            format_amount(sheet.totals.pool[seat]),
            "mountain",
            format_amount(sheet.totals.mountain[seat]),
        ]
        pairs = [
            f"{other} {format_amount(sheet.totals.whists[seat][k])}"
            for k, other in enumerate(names)
            if k != seat and sheet.totals.whists[seat][k]
        ]
        if pairs:
            words += ["whists", *pairs]
        lines.append(" ".join(words))
    return "\n".join(lines)


def format_amount(value: Fraction) -> str:
    """`30`, `36.5`, or `110/3` when no short decimal is exact."""
    if value.denominator == 1:
        return str(value.numerator)
    decimal = _decimal(value)
    return (
        format(decimal, "f") if decimal is not None else f"{value.numerator}/{value.denominator}"
    )


def format_stake(value: Fraction) -> str:
    decimal = _decimal(value)
    if decimal is None:
        raise ValueError(f"a stake of {value} has no short decimal form")
    return format(decimal, "f")


def _decimal(value: Fraction) -> Decimal | None:
    """The value as a decimal of at most 6 places, or None."""
    scaled = value * 10**6
    if scaled.denominator != 1:
        return None
    return (Decimal(scaled.numerator) / Decimal(10**6)).normalize()
