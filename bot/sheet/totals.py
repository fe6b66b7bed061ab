"""A band's running totals laid out — and laid out again from the first total that changed.

The rule (`lay`): the totals take the largest size of the style's ladder (`model.Style.totals`,
from the bound `flow.size_bound` gives down to its last size) at which they all fit, rows filled
greedily. When not even the last size holds them, the oldest fold behind a leading "…": the fewest
multiple of `Style.fold` (or all but the latest) that lets the rest fit — the first total shown is
the running total they came to. The chat's picture (`model.PHONE`) stops at a size readable on a
phone and folds; the full sheet (`model.FULL`) goes down to 9 px first. Sizes go down a ladder of
steps of about a seventh rather than a pixel at a time, and the oldest totals fold a few at a time
rather than one by one, so that what is drawn stays where it is while a column grows (a deal
redraws a row of a band, and a band shrinks or folds now and then instead of every total).

`grow` gives the same `Laid` as `lay` for totals that extend the ones laid out, at the cost of the
new ones: greedy rows make fitting a prefix property (the items before the first that did not fit
are placed as in any longer flow), so each size keeps its arrangement and resumes it from the
first total that changed. When a size that fitted no longer does, `grow` says so (None) and the
caller lays the column out whole.

Laying a crowded column out whole costs what it shows, not what it holds: a flow reads its items
one by one up to the first that does not fit (`flow.Widths`, `Shown`, `bands.Totals` make and
measure a total only when it is read), the size bound's sum stops once the bound is the ladder's
last size, and the fewest folded is searched from the newest totals down (`_fewest`). A band of
1,500 totals showing 30 makes and measures a few dozen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import accumulate, chain

from bot.sheet.flow import (
    Area,
    Arranged,
    Item,
    Lazy,
    Seg,
    Widths,
    arrange,
    emit,
    enough_need,
    size_bound,
    widths_at,
)
from bot.sheet.model import RunKind, Style, TextRun
from scoring.sheet import Band

Values = Sequence[tuple[int, Fraction]]


@dataclass(frozen=True, slots=True)
class Laid:
    """A column as laid out: its totals' items (after the `head`, the caption's words when they
    flow with the totals), the size they are drawn at, how many are folded, and what `grow`
    resumes from."""

    values: Values
    items: Sequence[Item]  # every total, oldest first
    head: list[Item]  # the first of `heads`, shown before the totals
    heads: list[list[Item]]  # the caption's words, then shorter ones for a last resort
    need: int  # the head's and all but the latest total's widths at the largest size, summed
    # (or as many of them as `_summed` reads: enough that the bound is the ladder's last size)
    bound: int
    size: int
    cut: int  # the oldest totals folded behind "…" (0: none)
    fails: dict[int, Arranged]  # each larger size tried: how far head and items got there
    arranged: Arranged  # the shown items at `size`
    runs: list[TextRun]
    offsets: list[int]  # where each shown item's runs begin in `runs`
    exact: bool = True  # shown as `_shown` says (False: a last resort, never grown)


def _ellipsis(band: Band, style: Style) -> Item:
    """The mark of folded totals: a word rather than a number, so at the captions' size."""
    rel = style.caption[1] / style.totals[-1]
    return Item((Seg("….", rel=rel, kind=RunKind.ELLIPSIS, band=band),))


class Shown(Lazy):
    """`[*head, *items[skip:]]` read in place rather than copied: a crowded band's flow reads its
    items one by one up to the first that does not fit, so the totals it never reaches are never
    made (`bands.Totals`)."""

    __slots__ = ("head", "items", "skip")

    def __init__(self, head: Sequence[Item], items: Sequence[Item], skip: int = 0) -> None:
        self.head, self.items, self.skip = head, items, skip

    def __len__(self) -> int:
        return len(self.head) + len(self.items) - self.skip

    def _item(self, index: int) -> Item:
        if not 0 <= index < len(self):
            raise IndexError(index)
        h = len(self.head)
        return self.head[index] if index < h else self.items[self.skip + index - h]


def _shown(
    band: Band, style: Style, head: Sequence[Item], items: Sequence[Item], cut: int
) -> Shown:
    return Shown([*head, _ellipsis(band, style)], items, cut) if cut else Shown(head, items)


def _laid(
    laid: Laid, size: int, cut: int, shown: Sequence[Item], done: Arranged, exact: bool = True
) -> Laid:
    """`laid` (its values, items, head, bounds and failed sizes) at `size`, `shown` arranged."""
    runs = emit(shown, done.starts, size)
    offsets = [0, *accumulate(len(item.segs) for item in shown)]
    return replace(
        laid, size=size, cut=cut, arranged=done, runs=runs, offsets=offsets, exact=exact
    )


def lay(
    band: Band,
    values: Values,
    items: Sequence[Item],
    area: Area,
    style: Style,
    heads: Sequence[list[Item]] = (),
) -> Laid:
    """The column laid out whole, after the first of `heads` (the caption's words flowing with
    the totals), or a shorter one when nothing else lets the latest total in."""
    sizes = style.totals
    lead = list(heads[0]) if heads else []
    every = Shown(lead, items)
    largest, enough = Widths(every, sizes[0]), enough_need(area, sizes[0], sizes[-1])
    last = max(0, len(every) - 1)
    need = _summed(largest.run(0, last), enough)
    bound = size_bound(
        _summed(chain((need,), largest.run(last)), enough), area, sizes[0], sizes[-1]
    )
    nothing = Arranged([], [], None)
    laid = Laid(values, items, lead, list(heads), need, bound, sizes[-1], 0, {}, nothing, [], [0])
    widths = Widths(every, sizes[-1])
    for size in _ladder(sizes, bound):
        widths = Widths(every, size)
        done = arrange(every, widths.run(), area, size)
        if done.failed is None:
            return _laid(laid, size, 0, every, done)
        laid.fails[size] = done
    if not items:  # an empty band: its caption, shorter if it must be
        size = sizes[-1]
        for lead in laid.heads[1:]:
            done = arrange(lead, widths_at(lead, size), area, size)
            if done.failed is None:
                return _laid(laid, size, 0, lead, done, exact=False)
        return replace(laid, size=size, exact=False)
    return _cut(band, laid, widths, area, style)


def _summed(widths: Iterable[int], enough: int) -> int:
    """The widths summed, read only until the sum reaches `enough` (`flow.enough_need`): the size
    bound is then the ladder's last size however many follow."""
    total = 0
    for width in widths:
        total += width
        if total >= enough:
            break
    return total


def _ladder(sizes: tuple[int, ...], bound: int) -> tuple[int, ...]:
    """The sizes worth trying, largest first."""
    return tuple(size for size in sizes if size <= bound)


def _cut(band: Band, laid: Laid, smallest: Widths, area: Area, style: Style) -> Laid:
    """The column at the ladder's smallest size with the fewest oldest totals folded that lets
    the rest fit (`smallest`: head's and items' widths at that size). Fitting only gets easier as
    more are folded (`_fewest`). A shorter head (the caption cut with "…") is taken when it lets
    fewer totals fold. When not even the latest fits after a head and "…", the last resorts: the
    latest after a head alone, after "…" alone, alone; else nothing."""
    step, size = style.fold, style.totals[-1]
    items = laid.items
    dots = [_ellipsis(band, style)]
    best: tuple[int, int, Shown, Arranged] | None = None  # cut, head, shown, arranged
    for index, head in enumerate(laid.heads or [[]]):
        if best is not None and best[0] == 0:
            break
        heading = list(smallest.run(0, len(head))) if index == 0 else widths_at(head, size)
        folding = _Folding(band, style, head, heading, laid, smallest, area, size)
        # The first head was tried whole at this size already (`lay`); a shorter one may fit so.
        cuts = [*range(step, len(items) - 1, step), len(items) - 1]
        if index and cuts[0]:
            cuts.insert(0, 0)
        if best is not None:  # no better than the head before: look for fewer folded only
            cuts = [cut for cut in cuts if cut < best[0]]
        unfolded = bool(index and cuts) and cuts[0] == 0  # no "…": tried on its own
        if unfolded and folding.fits(0):
            fewest: int | None = 0
        else:
            fewest = _fewest(cuts[1:] if unfolded else cuts, folding.fits)
        if fewest is not None:
            best = (fewest, index, *folding.fitted[fewest])
    if best is not None:
        cut, index, shown, done = best
        return _laid(laid, size, cut, shown, done, exact=index == 0)
    latest = items[-1:]
    for resort in [*([*lead, *latest] for lead in laid.heads), [*dots, *latest], latest]:
        done = arrange(resort, widths_at(resort, size), area, size)
        if done.failed is None:
            return _laid(laid, size, len(items) - 1, resort, done, exact=False)
    return replace(laid, size=size, cut=len(items), exact=False)


@dataclass(slots=True)
class _Folding:
    """A column at its smallest size after one head, tried with its oldest totals folded."""

    band: Band
    style: Style
    head: list[Item]
    heading: list[int]  # the head's widths
    laid: Laid
    smallest: Widths  # the widths of `laid`'s own head and its totals
    area: Area
    size: int
    fitted: dict[int, tuple[Shown, Arranged]] = field(default_factory=dict)

    def fits(self, cut: int) -> bool:
        """Whether the totals after the oldest `cut` fit (kept in `fitted` when they do)."""
        shown = _shown(self.band, self.style, self.head, self.laid.items, cut)
        dot = widths_at(shown.head[len(self.head) :], self.size)
        widths = chain(self.heading, dot, self.smallest.run(len(self.laid.head) + cut))
        done = arrange(shown, widths, self.area, self.size)
        if done.failed is None:
            self.fitted[cut] = (shown, done)
        return done.failed is None


def _fewest(cuts: Sequence[int], fits: Callable[[int], bool]) -> int | None:
    """The least of `cuts` (ascending) that `fits`, when every cut above one that fits fits too:
    tried from the largest down in steps that double, then halving between the last two, so
    that a crowded band's search reads only its newest totals."""
    if not cuts or not fits(cuts[-1]):
        return None
    good, step = len(cuts) - 1, 1
    bad = good - step
    while bad >= 0 and fits(cuts[bad]):
        good, step = bad, step * 2
        bad = good - step
    bad = max(bad, -1)
    while good - bad > 1:  # cuts[good] fits, cuts[bad] does not (or is before the first)
        middle = (good + bad) // 2
        if fits(cuts[middle]):
            good = middle
        else:
            bad = middle
    return cuts[good]


def grow(
    band: Band, laid: Laid, values: Values, items: Sequence[Item], area: Area, style: Style
) -> Laid | None:
    """`lay(values, items, head=laid.head)` from `laid`, when `items` keep all but the last of
    `laid.items` and add at least one (the last one changes: it is no longer the latest); None
    when only laying the column out whole can tell (`laid` must be laid out in the same
    `style`)."""
    kept = len(laid.items) - 1  # the items that stay as they were
    if (
        kept < 0
        or not laid.exact
        or laid.cut >= len(laid.items)
        or len(items) <= kept + 1
        or laid.cut % style.fold
    ):
        return None  # (a cut of all but the latest is no cut of the longer column)
    head = laid.head
    h = len(head)
    every = Shown(head, items)
    ladder = style.totals
    largest, enough = Widths(items, ladder[0]), enough_need(area, ladder[0], ladder[-1])
    need = _summed(chain((laid.need,), largest.run(kept, len(items) - 1)), enough)
    bound = size_bound(_summed((need, largest[-1]), enough), area, ladder[0], ladder[-1])
    sizes = _ladder(ladder, bound)  # the ladder's sizes up to the bound: fewer as it grows
    if len(sizes) > len(_ladder(ladder, laid.bound)) or (not laid.cut and laid.size not in sizes):
        return None
    fails: dict[int, Arranged] = {}
    for size in sizes:
        if size == laid.size and not laid.cut:
            break
        refused = laid.fails[size]
        if refused.failed is not None and refused.failed >= h + kept:
            refused = _resume(every, area, size, h + kept, refused)
            if refused.failed is None:
                return None  # a larger size fits now (a total grew narrower): lay it out whole
        fails[size] = refused
    size, cut = laid.size, laid.cut
    shown = _shown(band, style, head, items, cut)
    first = h + kept - cut + (1 if cut else 0)  # the first shown item that changed
    done = _resume(shown, area, size, first, laid.arranged)
    if done.failed is not None:
        return None  # the column needs a smaller size, or more folded: lay it out whole
    runs = laid.runs[: laid.offsets[first]] + emit(shown, done.starts[first:], size)
    offsets = laid.offsets[: first + 1]
    for item in shown[first:]:
        offsets.append(offsets[-1] + len(item.segs))
    return Laid(
        values, items, head, laid.heads, need, bound, size, cut, fails, done, runs, offsets
    )


def _resume(
    items: Sequence[Item], area: Area, size: int, first: int, before: Arranged
) -> Arranged:
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
