"""Text flow: items (runs of segments kept together) placed row by row inside a polygon minus
obstacles, at the largest font size that holds them all."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, overload

from bot.sheet.measure import metrics, text_width
from bot.sheet.model import INK, PAD, Box, Point, RunKind, TextRun
from scoring.sheet import Band


@lru_cache(maxsize=4096)
def _sides(points: tuple[Point, ...]) -> tuple[tuple[float, float, float, float, float], ...]:
    """The polygon's sides that are not horizontal, each as (ya, yb, xa, xb − xa, yb − ya): what
    `_cross_section` reads for every line a band's rows are planned on."""
    count = len(points)
    sides = []
    for i in range(count):
        xa, ya = points[i]
        xb, yb = points[(i + 1) % count]
        if ya != yb:
            sides.append((ya, yb, xa, xb - xa, yb - ya))
    return tuple(sides)


def _cross_section(points: tuple[Point, ...], y: float) -> list[tuple[float, float]]:
    """The intervals of x inside the polygon on the horizontal line y."""
    xs = [
        xa + (y - ya) * dx / dy
        for ya, yb, xa, dx, dy in _sides(points)
        if (ya <= y < yb) or (yb <= y < ya)
    ]
    xs.sort()
    return list(zip(xs[0::2], xs[1::2], strict=True))


def _intersect(
    a: list[tuple[float, float]], b: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _subtract(
    intervals: list[tuple[float, float]], cut: tuple[float, float]
) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for lo, hi in intervals:
        if cut[1] <= lo or cut[0] >= hi:
            out.append((lo, hi))
            continue
        if cut[0] > lo:
            out.append((lo, cut[0]))
        if cut[1] < hi:
            out.append((cut[1], hi))
    return out


@dataclass(frozen=True, slots=True)
class Obstacle:
    """A rectangle (`radius` 0) or a circle around `box`'s centre that no text may cover."""

    box: Box
    round: bool = False

    def span(self, y0: float, y1: float) -> tuple[float, float] | None:
        x0, top, x1, bottom = self.box
        if y1 <= top or y0 >= bottom:
            return None
        if not self.round:
            return (x0, x1)
        cx, cy, r = (x0 + x1) / 2, (top + bottom) / 2, (x1 - x0) / 2
        d = 0.0 if y0 <= cy <= y1 else min(abs(y0 - cy), abs(y1 - cy))
        if d >= r:
            return None
        w = math.sqrt(r * r - d * d)
        return (cx - w, cx + w)


@dataclass(frozen=True, slots=True)
class Area:
    """Where a flow may put text: a polygon minus obstacles, `PAD` away from every edge."""

    points: tuple[Point, ...]
    obstacles: tuple[Obstacle, ...] = ()
    pad: float = PAD

    @property
    def top(self) -> float:
        return min(y for _, y in self.points)

    @property
    def bottom(self) -> float:
        return max(y for _, y in self.points)

    def area(self) -> float:
        pts = self.points
        return abs(
            sum(
                pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0] * pts[i][1]
                for i in range(len(pts))
            )
            / 2
        )

    def row(self, y0: float, y1: float) -> list[tuple[float, float]]:
        """The x intervals where a box spanning y0..y1 fits entirely (padding included)."""
        top, bottom = y0 - self.pad, y1 + self.pad
        samples = [top, bottom]
        for _, vy in self.points:
            if top < vy < bottom:
                samples += [vy - 1e-6, vy + 1e-6]
        intervals = _cross_section(self.points, samples[0])
        for y in samples[1:]:
            if not intervals:
                return []
            intervals = _intersect(intervals, _cross_section(self.points, y))
        for obstacle in self.obstacles:
            span = obstacle.span(top, bottom)
            if span is not None:
                intervals = _subtract(intervals, span)
        return [(lo + self.pad, hi - self.pad) for lo, hi in intervals if hi - lo > 3 * self.pad]


@dataclass(frozen=True, slots=True)
class Seg:
    """A piece of text in a flow; its size is the flow's size × `rel`."""

    text: str
    rel: float = 1.0
    bold: bool = False
    color: str = INK
    kind: RunKind = RunKind.TOTAL
    band: Band | None = None
    record: int | None = None
    latest: bool = False
    most: int = 0  # px, the largest its size may be (0: as the flow's)


@dataclass(frozen=True, slots=True)
class Item:
    """Segments kept on one row together; `gap` (em) follows it; `newline` forces a new row."""

    segs: tuple[Seg, ...] = ()
    gap: float = 0.0
    newline: bool = False


NEWLINE: Final = Item(newline=True)


class Lazy(Sequence[Item]):
    """Items made one at a time, as a flow reads them (`_item`, for an index in range): a crowded
    band's flow reads up to the first item that does not fit, so the rest are never made."""

    __slots__ = ()

    def _item(self, index: int) -> Item:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> Item: ...
    @overload
    def __getitem__(self, index: slice) -> list[Item]: ...
    def __getitem__(self, index: int | slice) -> Item | list[Item]:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        return self._item(index + len(self) if index < 0 else index)

    def __iter__(self) -> Iterator[Item]:
        return (self._item(i) for i in range(len(self)))


def _seg_size(size: int, rel: float, most: int = 0) -> int:
    """A smaller segment (a caption) stays readable: at least 11 px, never above the row's size
    (nor above `most`, when given)."""
    return min(size, most or size, max(11, round(size * rel)))


def line_height(size: int) -> int:
    """A row's step: DejaVu's line box (1.16 em) already leaves a third of an em between the
    digits of two rows."""
    ascent, descent = metrics(size)
    return ascent + descent + 1


class _Rows:
    """The rows a flow of one size can use in one area, top to bottom: (y, x_start, x_end).

    Planned once and kept (see `_rows`): the same band at the same size gives the same rows in
    every picture of a game and in every step of the size search. A row uses the widest stretch
    the band leaves free (values split around the circle read badly). Rows go where they give
    the most room in all, a row's step apart: a row is not put in a narrow corner when one a
    little lower would be far wider (past a name tab, in the foot of an L, clear of the circle)."""

    __slots__ = ("rows",)

    def __init__(self, area: Area, size: int) -> None:
        ascent, descent = metrics(size)
        height, step = ascent + descent, line_height(size)
        probe = max(2, step // 5)
        found: list[tuple[int, int, int]] = []
        y, bottom = math.ceil(area.top), area.bottom
        while y + height + area.pad <= bottom:
            spans = area.row(y, y + height)
            if spans:
                lo, hi = max(spans, key=lambda span: span[1] - span[0])
                found.append((y, math.ceil(lo), math.floor(hi)))
            y += probe
        # best[i]: the most room rows can give from found[i] down; a row taken at found[i]
        # leaves the next at found[after[i]] or lower.
        ys = [row[0] for row in found]
        count = len(found)
        best = [0] * (count + 1)
        after = [bisect_left(ys, row[0] + step) for row in found]
        for i in range(count - 1, -1, -1):
            _, lo, hi = found[i]
            best[i] = max(hi - lo + best[after[i]], best[i + 1])
        self.rows: list[tuple[int, int, int]] = []
        i = 0
        while i < count:
            _, lo, hi = found[i]
            if hi - lo + best[after[i]] >= best[i + 1]:
                self.rows.append(found[i])
                i = after[i]
            else:
                i += 1

    def get(self, index: int) -> tuple[int, int, int] | None:
        return self.rows[index] if index < len(self.rows) else None


@lru_cache(maxsize=4096)
def _rows(area: Area, size: int) -> _Rows:
    return _Rows(area, size)


def item_width(item: Item, size: int) -> int:
    """The item's width at this size; −1 marks a forced new row."""
    if item.newline:
        return -1
    width = 0
    for seg in item.segs:
        width += text_width(seg.text, _seg_size(size, seg.rel, seg.most), seg.bold)
    return width


def widths_at(items: Sequence[Item], size: int) -> list[int]:
    """Each item's width at this size; −1 marks a forced new row."""
    return [item_width(item, size) for item in items]


class Widths:
    """The widths of `items` at one size, each measured when first read: a flow stops at the
    first item that does not fit, so a band of 1,500 totals that shows a hundred measures little
    more than those."""

    __slots__ = ("_known", "items", "size")

    def __init__(self, items: Sequence[Item], size: int) -> None:
        self.items = items
        self.size = size
        self._known: list[int | None] = [None] * len(items)

    def __getitem__(self, index: int) -> int:
        known = self._known[index]
        if known is None:
            known = self._known[index] = item_width(self.items[index], self.size)
        return known

    def run(self, start: int = 0, stop: int | None = None) -> Iterator[int]:
        """The widths of items `start` to `stop` (by default the last), as a flow reads them."""
        for index in range(start, len(self.items) if stop is None else stop):
            yield self[index]


@dataclass(slots=True)
class Arranged:
    """Where a flow put its items at one size: `starts` (row y, x, item index) of each item placed,
    in order; `cursors[i]` the pen after item i (row index, x, at a row's start); `failed` the
    first item that did not fit (None when all did). Greedy rows make it a prefix property: the
    items before `failed` are placed as they would be in any longer flow that starts with them."""

    starts: list[tuple[int, int, int]]
    cursors: list[tuple[int, int, bool]]
    failed: int | None


def arrange(
    items: Sequence[Item],
    widths: Iterable[int],
    area: Area,
    size: int,
    begin: int = 0,
    cursor: tuple[int, int, bool] | None = None,
    starts: list[tuple[int, int, int]] | None = None,
    cursors: list[tuple[int, int, bool]] | None = None,
) -> Arranged:
    """Place items row by row from item `begin` on (`widths`: theirs, from `begin` on, read one
    by one up to the first that does not fit), the pen
    at `cursor` (by default the first row's start); `starts` and `cursors` are those of the items
    before `begin` (extended here)."""
    rows = _rows(area, size)
    starts = [] if starts is None else starts
    cursors = [] if cursors is None else cursors
    if cursor is None:
        row = rows.get(0)
        if row is None:
            return Arranged(starts, cursors, begin)
        cursor = (0, row[1], True)
    index, x, at_row_start = cursor
    row = rows.get(index)
    assert row is not None
    y, _, end = row
    for i, width in zip(range(begin, len(items)), widths, strict=True):
        if width < 0:
            if not at_row_start:
                index += 1
                row = rows.get(index)
                if row is None:
                    return Arranged(starts, cursors, i)
                y, x, end = row
            at_row_start = True
            cursors.append((index, x, True))
            continue
        while x + width > end:
            index += 1
            row = rows.get(index)
            if row is None:
                return Arranged(starts, cursors, i)
            y, x, end = row
            at_row_start = True
        starts.append((y, x, i))
        x += width + round(items[i].gap * size)
        at_row_start = False
        cursors.append((index, x, False))
    return Arranged(starts, cursors, None)


def _arrange(items: Sequence[Item], area: Area, size: int) -> list[tuple[int, int, int]] | None:
    """Where each item starts — (row y, x, item index) — or None when they do not all fit."""
    done = arrange(items, widths_at(items, size), area, size)
    return done.starts if done.failed is None else None


def emit(
    items: Sequence[Item], starts: Sequence[tuple[int, int, int]], size: int
) -> list[TextRun]:
    """The text runs of arranged items; positions are whole pixels, so a run is drawn exactly
    where it was measured."""
    ascent, _ = metrics(size)
    runs: list[TextRun] = []
    for y, x, i in starts:
        for seg in items[i].segs:
            seg_size = _seg_size(size, seg.rel, seg.most)
            seg_ascent, seg_descent = metrics(seg_size, seg.bold)
            top = y + ascent - seg_ascent
            w = text_width(seg.text, seg_size, seg.bold)
            runs.append(
                TextRun(
                    seg.text,
                    x,
                    top,
                    (x, top, x + w, top + seg_ascent + seg_descent),
                    seg_size,
                    seg.bold,
                    seg.color,
                    seg.kind,
                    seg.band,
                    seg.record,
                    seg.latest,
                )
            )
            x += w
    return runs


def enough_need(area: Area, largest: int, smallest: int) -> int:
    """The least `need` for which `size_bound` gives `smallest`: once the widths summed so far
    reach it, the rest of a flow's items cannot change the bound (widths are never negative in
    a band's totals), so they need not be measured at `largest`."""
    room, line = area.area(), line_height(largest)
    low, high = 0, 1
    while _bound(high, room, line, largest, smallest) > smallest:
        low, high = high, high * 2
    while high - low > 1:  # the bound at low is above smallest, at high it is smallest
        middle = (low + high) // 2
        if _bound(middle, room, line, largest, smallest) > smallest:
            low = middle
        else:
            high = middle
    return high


def size_bound(need: int, area: Area, largest: int, smallest: int) -> int:
    """The largest size worth trying for items `need` px wide in all at size `largest`: text
    area grows with the square of the size, so sizes whose text outgrows the area are skipped."""
    if need <= 0:
        return largest
    return _bound(need, area.area(), line_height(largest), largest, smallest)


def _bound(need: int, room: float, line: int, largest: int, smallest: int) -> int:
    """`size_bound` for a positive `need`, from the area's `room` and the `line` height at
    `largest`."""
    return min(largest, max(smallest, math.floor(largest * math.sqrt(room / (need * line)))))


def flow(
    items: Sequence[Item], area: Area, largest: int, smallest: int
) -> tuple[list[TextRun], int]:
    """The items at the largest size from `largest` down to `smallest` that fits, and that size;
    no runs when even `smallest` is too large."""
    need = sum(max(0, w) for w in widths_at(items, largest))
    bound = size_bound(need, area, largest, smallest)
    lo, hi = smallest, bound
    found: tuple[list[tuple[int, int, int]], int] | None = None
    starts = _arrange(items, area, hi)
    if starts is not None:
        found, lo = (starts, hi), hi + 1
    else:
        hi -= 1
    while lo <= hi:
        mid = (lo + hi) // 2
        starts = _arrange(items, area, mid)
        if starts is None:
            hi = mid - 1
        else:
            found, lo = (starts, mid), mid + 1
    if found is None:
        return [], smallest
    return emit(items, found[0], found[1]), found[1]
