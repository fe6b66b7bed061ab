"""Text flow: items placed row by row inside a polygon minus obstacles at the largest size that
holds them; a band's totals folded behind "…" when even the smallest does not."""

import math
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, reduce
from typing import Final

from bot.sheet.model import INK, PAD, Box, Point, RunKind, Style, TextRun, metrics, text_width
from scoring.sheet import Band

Interval = tuple[float, float]
Row = tuple[int, int, int]  # y, x_start, x_end
Start = tuple[int, int, int]  # row y, x, item index


@lru_cache(maxsize=4096)
def _sides(points: tuple[Point, ...]) -> tuple[tuple[float, float, float, float, float], ...]:
    """The polygon's sides that are not horizontal, as (ya, yb, xa, xb − xa, yb − ya)."""
    pairs = zip(points, points[1:] + points[:1], strict=True)
    return tuple((ya, yb, xa, xb - xa, yb - ya) for (xa, ya), (xb, yb) in pairs if ya != yb)


def _cross_section(points: tuple[Point, ...], y: float) -> list[Interval]:
    xs = sorted(
        xa + (y - ya) * dx / dy
        for ya, yb, xa, dx, dy in _sides(points)
        if (ya <= y < yb) or (yb <= y < ya)
    )
    return list(zip(xs[0::2], xs[1::2], strict=True))


def _intersect(a: list[Interval], b: list[Interval]) -> list[Interval]:
    out: list[Interval] = []
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


def _subtract(intervals: list[Interval], cut: Interval) -> list[Interval]:
    out: list[Interval] = []
    for lo, hi in intervals:
        if lo < cut[0]:
            out.append((lo, min(hi, cut[0])))
        if cut[1] < hi:
            out.append((max(lo, cut[1]), hi))
    return out


@dataclass(frozen=True, slots=True)
class Obstacle:
    """A rectangle, or (`round`) the circle inscribed in it, that no text may cover."""

    box: Box
    round: bool = False

    def span(self, y0: float, y1: float) -> Interval | None:
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

    @property
    def top(self) -> float:
        return min(y for _, y in self.points)

    def row(self, y0: float, y1: float) -> list[Interval]:
        """The x intervals where a box spanning y0..y1 fits entirely (padding included)."""
        top, bottom = y0 - PAD, y1 + PAD
        samples = [top, bottom]
        for _, vy in self.points:
            if top < vy < bottom:
                samples += [vy - 1e-6, vy + 1e-6]
        intervals = reduce(_intersect, (_cross_section(self.points, y) for y in samples))
        spans = (obstacle.span(top, bottom) for obstacle in self.obstacles)
        intervals = reduce(_subtract, (span for span in spans if span is not None), intervals)
        return [(lo + PAD, hi - PAD) for lo, hi in intervals if hi - lo > 3 * PAD]


@dataclass(frozen=True, slots=True)
class Seg:
    """A piece of text in a flow; its size is the flow's size × `rel`, at most `most` px."""

    text: str
    rel: float = 1.0
    bold: bool = False
    color: str = INK
    kind: RunKind = RunKind.TOTAL
    band: Band | None = None
    record: int | None = None
    latest: bool = False
    most: int = 0  # 0: no limit but the flow's size


@dataclass(frozen=True, slots=True)
class Item:
    """Segments kept on one row together; `gap` (em) follows it; `newline` forces a new row."""

    segs: tuple[Seg, ...] = ()
    gap: float = 0.0
    newline: bool = False


NEWLINE: Final = Item(newline=True)


def _seg_size(size: int, rel: float, most: int = 0) -> int:
    """A smaller segment (a caption) stays readable: at least 11 px, never above the row's."""
    return min(size, most or size, max(11, round(size * rel)))


@lru_cache(maxsize=4096)
def rows(area: Area, size: int) -> tuple[Row, ...]:
    """The rows a flow of one size uses in an area, top to bottom. A row takes the widest stretch
    the area leaves free (values split around the circle read badly), and rows go where they give
    the most room in all, a step apart: not in a narrow corner when one a little lower is wider."""
    # A row's step: DejaVu's line box (1.16 em) already leaves room between two rows.
    height = sum(metrics(size))
    step = height + 1
    found: list[Row] = []
    top, bottom = math.ceil(area.top), max(point[1] for point in area.points)
    for y in range(top, math.floor(bottom - height - PAD) + 1, max(2, step // 5)):
        spans = area.row(y, y + height)
        if spans:
            lo, hi = max(spans, key=lambda span: span[1] - span[0])
            found.append((y, math.ceil(lo), math.floor(hi)))
    # best[i]: the most room rows give from found[i] down; after[i]: the next row a step lower.
    after = [bisect_left(found, row[0] + step, key=lambda row: row[0]) for row in found]
    best = [0] * (len(found) + 1)
    for i in range(len(found) - 1, -1, -1):
        best[i] = max(found[i][2] - found[i][1] + best[after[i]], best[i + 1])
    chosen: list[Row] = []
    i = 0
    while i < len(found):
        if found[i][2] - found[i][1] + best[after[i]] >= best[i + 1]:
            chosen.append(found[i])
            i = after[i]
        else:
            i += 1
    return tuple(chosen)


def arrange(items: Sequence[Item], area: Area, size: int) -> list[Start] | None:
    """Where each item starts, rows filled greedily; None when they do not all fit (measured up
    to the first that does not, so a crowded band costs what it shows)."""
    planned = rows(area, size)
    if not planned:
        return None
    index, fresh = 0, True
    y, x, end = planned[0]
    starts: list[Start] = []
    for i, item in enumerate(items):
        width = sum(text_width(s.text, _seg_size(size, s.rel, s.most), s.bold) for s in item.segs)
        while (item.newline and not fresh) or x + width > end:  # the next row
            index += 1
            if index == len(planned):
                return None
            (y, x, end), fresh = planned[index], True
        if not item.newline:
            starts.append((y, x, i))
            x += width + round(item.gap * size)
            fresh = False
    return starts


def emit(items: Sequence[Item], starts: Sequence[Start], size: int) -> list[TextRun]:
    """The text runs of arranged items, on whole pixels: drawn exactly where measured."""
    ascent, _ = metrics(size)
    runs: list[TextRun] = []
    for y, x, i in starts:
        for seg in items[i].segs:
            seg_size = _seg_size(size, seg.rel, seg.most)
            seg_ascent, seg_descent = metrics(seg_size, seg.bold)
            top = y + ascent - seg_ascent
            w = text_width(seg.text, seg_size, seg.bold)
            box = (x, top, x + w, top + seg_ascent + seg_descent)
            style = (seg_size, seg.bold, seg.color, seg.kind, seg.band, seg.record, seg.latest)
            runs.append(TextRun(seg.text, x, top, box, *style))
            x += w
    return runs


def flow(items: Sequence[Item], area: Area, largest: int, smallest: int) -> list[TextRun]:
    """The items at the largest size from `largest` to `smallest` that holds them all (else [])."""
    lo, hi, found = smallest, largest, None
    while lo <= hi:
        mid = (lo + hi) // 2
        starts = arrange(items, area, mid)
        if starts is None:
            hi = mid - 1
        else:
            found, lo = (starts, mid), mid + 1
    return [] if found is None else emit(items, *found)


# Sizes step by about a seventh and totals fold a few at a time, so what is drawn stays where it is
# while a column grows.
Fitted = tuple[list[Item], list[Start]]  # the items shown, where each starts


def lay(
    band: Band, items: Sequence[Item], area: Area, style: Style, heads: Sequence[list[Item]] = ()
) -> list[TextRun]:
    """The column's runs after the first of `heads` (the caption flowing with the totals) at the
    largest size of the style's ladder that holds them; else the fewest oldest totals folded
    behind "…" (a multiple of `Style.fold`, or all but the latest), with a shorter head when that
    lets fewer fold."""
    lead = list(heads[0]) if heads else []
    runs = _first_fit([([*lead, *items], size) for size in style.totals], area)
    size = style.totals[-1]
    if runs or not items:  # an empty band: its caption, shorter if it must be
        return runs or _first_fit([(head, size) for head in heads[1:]], area)
    # The mark of folded totals is a word rather than a number, so at the captions' size.
    rel = style.caption[1] / style.totals[-1]
    dots = [Item((Seg("….", rel=rel, kind=RunKind.ELLIPSIS, band=band),))]
    best: tuple[int, Fitted] | None = None  # cut, and what fitted
    for index, head in enumerate(heads or [[]]):
        fitted: dict[int, Fitted] = {}

        def fits(cut: int, head: list[Item] = head, fitted: dict[int, Fitted] = fitted) -> bool:
            shown = [*head, *dots, *items[cut:]] if cut else [*head, *items]
            starts = arrange(shown, area, size)
            if starts is not None:
                fitted[cut] = (shown, starts)
            return starts is not None

        cuts = [*range(style.fold, len(items) - 1, style.fold), len(items) - 1]
        if best is not None:  # a shorter head is taken only when fewer fold
            cuts = [cut for cut in cuts if cut < best[0]]
        # (the first head without a fold was tried above; a shorter one may fit so)
        cut = 0 if index and fits(0) else fewest(cuts, fits)
        if cut is not None:
            best = (cut, fitted[cut])
            if cut == 0:
                break
    if best is not None:
        return emit(*best[1], size)
    latest = list(items[-1:])
    resorts = [*([*head, *latest] for head in heads), [*dots, *latest], latest]
    return _first_fit([(shown, size) for shown in resorts], area)


def _first_fit(candidates: Sequence[tuple[list[Item], int]], area: Area) -> list[TextRun]:
    for shown, size in candidates:
        starts = arrange(shown, area, size)
        if starts is not None:
            return emit(shown, starts, size)
    return []


def fewest(cuts: Sequence[int], fits: Callable[[int], bool]) -> int | None:
    """The least of `cuts` (ascending) that `fits`, when every cut above one that fits fits too:
    tried from the largest down in doubling steps, then by halves, so that a crowded band's search
    reads only its newest totals."""
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
