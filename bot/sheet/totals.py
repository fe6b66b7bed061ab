"""A band's running totals laid out — and laid out again from the first total that changed.

The rule (`lay`): the totals take the largest size of the ladder `SIZES` (from the bound
`flow.size_bound` gives down to `MIN_SIZE`) at which they all fit, rows filled greedily. When not
even `MIN_SIZE` holds them, the oldest give way behind a leading "…": the fewest multiple of `STEP`
(or all but the latest) that lets the rest fit. Sizes go down a ladder of steps of about a seventh
rather than a pixel at a time, and the oldest totals leave `STEP` at a time rather than one by one,
so that what is drawn stays where it is while a column grows (a deal redraws a row of a
band, and a band shrinks a handful of times in a whole game instead of every few totals).

`grow` gives the same `Laid` as `lay` for totals that extend the ones laid out, at the cost of the
new ones: greedy rows make fitting a prefix property (the items before the first that did not fit
are placed as in any longer flow), so each size keeps its arrangement and resumes it from the
first total that changed. When a size that fitted no longer does, `grow` says so (None) and the
caller lays the column out whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from typing import Final

from bot.sheet.flow import Area, Arranged, Item, Seg, arrange, emit, size_bound, widths_at
from bot.sheet.model import MAX_SIZE, MIN_SIZE, RunKind, TextRun
from scoring.sheet import Band

STEP: Final = 25  # totals hidden at a time behind "…" when a column outgrows its band
SIZES: Final = (28, 24, 21, 18, 16, 14, 12, 10, 9)  # px, the totals' sizes (MAX_SIZE … MIN_SIZE)
assert SIZES[0] == MAX_SIZE and SIZES[-1] == MIN_SIZE

Values = Sequence[tuple[int, Fraction]]


@dataclass(frozen=True, slots=True)
class Laid:
    """A column as laid out: its totals' items, the size they are drawn at, how many are hidden,
    and what `grow` resumes from."""

    values: Values
    items: list[Item]  # every total, oldest first
    largest: list[int]  # each item's width at MAX_SIZE (the size bound)
    bound: int
    size: int
    cut: int  # the oldest totals hidden behind "…" (0: none)
    fails: dict[int, Arranged]  # each larger size tried: how far the items got there
    arranged: Arranged  # the shown items at `size`
    runs: list[TextRun]
    offsets: list[int]  # where each shown item's runs begin in `runs`


def _ellipsis(band: Band) -> Item:
    return Item((Seg("….", kind=RunKind.ELLIPSIS, band=band),))


def _shown(band: Band, items: list[Item], cut: int) -> list[Item]:
    return [_ellipsis(band), *items[cut:]] if cut else items


def _laid(
    values: Values,
    items: list[Item],
    largest: list[int],
    bound: int,
    fails: dict[int, Arranged],
    size: int,
    cut: int,
    shown: list[Item],
    done: Arranged,
) -> Laid:
    runs = emit(shown, done.starts, size)
    offsets = [0, *accumulate(len(item.segs) for item in shown)]
    return Laid(values, items, largest, bound, size, cut, fails, done, runs, offsets)


def lay(band: Band, values: Values, items: list[Item], area: Area) -> Laid:
    """The column laid out whole."""
    largest = widths_at(items, MAX_SIZE)
    bound = size_bound(sum(largest), area, MAX_SIZE, MIN_SIZE)
    fails: dict[int, Arranged] = {}
    widths: list[int] = []
    for size in _ladder(bound):
        widths = widths_at(items, size)
        done = arrange(items, widths, area, size)
        if done.failed is None or not items:
            return _laid(values, items, largest, bound, fails, size, 0, items, done)
        fails[size] = done
    return _cut(band, values, items, largest, bound, fails, widths, area)


def _ladder(bound: int) -> tuple[int, ...]:
    """The sizes worth trying, largest first."""
    return tuple(size for size in SIZES if size <= bound)


def _cut(
    band: Band,
    values: Values,
    items: list[Item],
    largest: list[int],
    bound: int,
    fails: dict[int, Arranged],
    smallest: list[int],
    area: Area,
) -> Laid:
    """The column at MIN_SIZE with the fewest oldest totals hidden that lets the rest fit
    (`smallest`: the items' widths at MIN_SIZE); none shown when not even the latest fits.
    Fitting only gets easier as more are hidden, so the search halves."""
    cuts = [*range(STEP, len(items) - 1, STEP), len(items) - 1]
    dot = widths_at([_ellipsis(band)], MIN_SIZE)
    best: tuple[int, list[Item], list[int], Arranged] | None = None
    lo, hi = 0, len(cuts) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        cut = cuts[mid]
        shown, widths = _shown(band, items, cut), dot + smallest[cut:]
        done = arrange(shown, widths, area, MIN_SIZE)
        if done.failed is None:
            best, hi = (cut, shown, widths, done), mid - 1
        else:
            lo = mid + 1
    if best is None:
        nothing = Arranged([], [], None)
        return Laid(values, items, largest, bound, MIN_SIZE, len(items), fails, nothing, [], [0])
    cut, shown, _, done = best
    return _laid(values, items, largest, bound, fails, MIN_SIZE, cut, shown, done)


def grow(band: Band, laid: Laid, values: Values, items: list[Item], area: Area) -> Laid | None:
    """`lay(values, items)` from `laid`, when `items` keep all but the last of `laid.items` and add
    at least one (the last one changes: it is no longer the latest); None when only laying the
    column out whole can tell."""
    kept = len(laid.items) - 1  # the items that stay as they were
    if kept < 0 or laid.cut >= len(laid.items) or len(items) <= kept + 1 or laid.cut % STEP:
        return None  # (a cut of all but the latest is no cut of the longer column)
    largest = laid.largest[:kept] + widths_at(items[kept:], MAX_SIZE)
    bound = size_bound(sum(largest), area, MAX_SIZE, MIN_SIZE)
    sizes = _ladder(bound)  # the ladder's sizes up to the bound: fewer as the column grows
    if len(sizes) > len(_ladder(laid.bound)) or (not laid.cut and laid.size not in sizes):
        return None
    fails: dict[int, Arranged] = {}
    for size in sizes:
        if size == laid.size and not laid.cut:
            break
        refused = laid.fails[size]
        if refused.failed is not None and refused.failed >= kept:
            refused = _resume(items, area, size, kept, refused)
            if refused.failed is None:
                return None  # a larger size fits now (a total grew narrower): lay it out whole
        fails[size] = refused
    size, cut = laid.size, laid.cut
    shown = _shown(band, items, cut)
    first = kept - cut + (1 if cut else 0)  # the first shown item that changed
    done = _resume(shown, area, size, first, laid.arranged)
    if done.failed is not None:
        return None  # the column needs a smaller size, or more hidden: lay it out whole
    runs = laid.runs[: laid.offsets[first]] + emit(shown, done.starts[first:], size)
    offsets = laid.offsets[: first + 1]
    for item in shown[first:]:
        offsets.append(offsets[-1] + len(item.segs))
    return Laid(values, items, largest, bound, size, cut, fails, done, runs, offsets)


def _resume(items: list[Item], area: Area, size: int, first: int, before: Arranged) -> Arranged:
    """`before` (an arrangement at `size` of items that agree with these before `first`, and got
    at least that far) carried on from item `first`."""
    return arrange(
        items,
        widths_at(items[first:], size),
        area,
        size,
        first,
        before.cursors[first - 1] if first else None,
        before.starts[:first],
        before.cursors[:first],
    )
