"""The score sheet («пулька») as a pure layout: a `Sheet` → positioned shapes and text runs.

spec/sheet.md. Nothing here draws; `bot.render.raster` turns a `Layout` into a PNG. Text is measured
with the shipped DejaVu fonts (Pillow's FreeType, the basic layout engine), which is deterministic.

Geometry
--------
* 3 players: a landscape canvas 1200×1000; the drawing is the rectangle above, the strip below. A
  small circle a little below the middle (so the top sector is no thin wedge) holds the pool size and
  the stake; lines from it to the two upper corners
  and to the middle of the lower edge cut three sectors. Seats go clockwise as seen from above the
  table: seat A (index 0) has the **left** sector, B the **top**, C the **right**. (With the lines of
  sheet.md the third sector is at the top, not the bottom.)
* 4 players: a canvas 1000×1200, the drawing a 1000-px square cut by its diagonals: A **bottom**,
  B **left**, C **top**, D **right** (clockwise again).
* Bands are the sheet's concentric rectangles (homothetic about the centre): inside each sector from
  the centre outwards the mountain (from the circle to `scales[0]`), the pool (to `scales[1]`) and the
  whists (to the edge). The whists band is cut by radial lines into one part per other player; each
  part holds the whists on the player whose sector it touches (4 players: the middle third is the
  opposite player). The player's name sits in a coloured tab on the outer edge of his sector where his
  whists parts meet (3 players: the top middle, the lower-left and lower-right corners; 4 players:
  the middle of the edge). Text flows around the tabs and the circle.
* Each band holds its running totals as paper does, `2.4.8.10` (a caption first, the latest value bold
  in the player's colour), wrapped row by row inside the band's polygon, at the largest font size
  that fits (`MAX_SIZE` … `MIN_SIZE`). If even `MIN_SIZE` cannot hold a column, the oldest values give
  way to a leading `…` (never seen in 200-deal tests). A closed pool is tinted gold and its last value
  carries a ✔.
* Numbers: whole, or whole plus a vulgar fraction (36⅔, 12½): a decimal point would read as the
  dot between totals. The strip, where no dots separate values, writes 12.5 when exact in two decimals.

Corrections (issue 6)
---------------------
`corrections` maps `(band, record_index)` — a running total as it stands in `sheet.history` — to a
`Correction(wrong, number)`: the value first written there by mistake and the correction's number. The
total is then drawn as paper does it, wrong value, a dot, the right value, with the number raised:
`10.14.12³.16` (the wrong value grey, run kind `WRONG`; the number run kind `MARK`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from functools import cache, lru_cache
from pathlib import Path
from typing import Final

from PIL import ImageFont

from bot.render.labels import labels
from scoring.deal import Column, Contract, Misere, Raspasy, Role, Suit
from scoring.settle import Settlement, settle
from scoring.sheet import Band, Sheet

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1

FONT_DIR: Final = Path(__file__).parent / "fonts"
REGULAR: Final = FONT_DIR / "DejaVuSans.ttf"
BOLD: Final = FONT_DIR / "DejaVuSans-Bold.ttf"

MAX_SIZE: Final = 28  # px, totals in a band
MIN_SIZE: Final = 9
STRIP_MAX: Final = 24
STRIP_MIN: Final = 10
NAME_MAX: Final = 30
NAME_MIN: Final = 14
PAD: Final = 5.0  # between text and a band's edge

# Colours (phone-readable on white): ink, captions, lines, one colour and one tint per seat.
BACKGROUND: Final = "#ffffff"
INK: Final = "#1f2937"
MUTED: Final = "#6b7280"
LINE: Final = "#374151"
THIN: Final = "#9ca3af"
RED: Final = "#dc2626"  # ♦♥
PLUS: Final = "#15803d"
MINUS: Final = "#b91c1c"
CLOSED_FILL: Final = "#fdf0b8"
CLOSED_MARK: Final = "#15803d"
STRIP_FILL: Final = "#f3f4f6"
SEAT_COLOURS: Final = ("#1d4ed8", "#047857", "#7c3aed", "#c2410c")
SEAT_TINTS: Final = ("#e6eefc", "#e2f4ea", "#efe8fc", "#fbeadf")


@dataclass(frozen=True, slots=True)
class Frame:
    """The canvas of one table size and where its parts go."""

    width: int
    height: int
    sheet: Box
    strip: Box
    centre: Point  # of the circle, and of the concentric band rectangles
    radius: float
    scales: tuple[
        float, float
    ]  # outer edge of the mountain band, of the pool band (0 = centre, 1 = edge)


FRAMES: Final[Mapping[int, Frame]] = {
    # 3 players: the centre sits below the middle so that the top sector is not a thin wedge.
    3: Frame(1200, 1000, (14, 14, 1186, 806), (14, 820, 1186, 986), (600, 462), 62, (0.48, 0.63)),
    4: Frame(1000, 1200, (14, 14, 986, 986), (14, 1000, 986, 1186), (500, 500), 62, (0.48, 0.62)),
}


class RunKind(StrEnum):
    TOTAL = "total"  # a running total of a band
    WRONG = "wrong"  # the wrong value before a corrected total
    MARK = "mark"  # ✔ of a closed pool, a correction's number
    ELLIPSIS = "ellipsis"  # older totals that did not fit
    CAPTION = "caption"  # the band's word: Гора, Пуля, Висты на …
    NAME = "name"  # a player's name in his tab
    CENTRE = "centre"  # pool size and stake in the circle
    STRIP = "strip"  # the strip under the drawing


@dataclass(frozen=True, slots=True)
class TextRun:
    """Text drawn with its top-left at (x, y) (Pillow anchor "la"); `box` is what it occupies."""

    text: str
    x: float
    y: float
    box: Box
    size: int
    bold: bool
    color: str
    kind: RunKind
    band: Band | None = None
    record: int | None = None  # for a total: its index in sheet.records (−1: the start)
    latest: bool = False


@dataclass(frozen=True, slots=True)
class Region:
    """A filled polygon; a band's region carries its band (the polygon its text must stay in)."""

    points: tuple[Point, ...]
    fill: str | None
    player: int
    band: Band | None = None


@dataclass(frozen=True, slots=True)
class Line:
    start: Point
    end: Point
    width: int
    color: str


@dataclass(frozen=True, slots=True)
class Circle:
    centre: Point
    radius: float
    fill: str
    outline: str
    width: int


@dataclass(frozen=True, slots=True)
class Rect:
    box: Box
    fill: str | None
    outline: str | None = None
    width: int = 0
    radius: float = 0


Shape = Region | Line | Circle | Rect


@dataclass(frozen=True, slots=True)
class Layout:
    width: int
    height: int
    shapes: tuple[Shape, ...]  # in drawing order
    runs: tuple[TextRun, ...]

    def bands(self) -> dict[Band, Region]:
        return {s.band: s for s in self.shapes if isinstance(s, Region) and s.band is not None}


@dataclass(frozen=True, slots=True)
class Correction:
    """A corrected running total: what was first written, and the correction's number (issue 6)."""

    wrong: Fraction
    number: int


Corrections = Mapping[tuple[Band, int], Correction]

# -- fonts and measuring -----------------------------------------------------------------------


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    path = BOLD if bold else REGULAR
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=1 << 16)
def text_width(text: str, size: int, bold: bool = False) -> int:
    """The advance of `text` in whole px, widened to its ink if a glyph reaches past the advance."""
    f = font(size, bold)
    return math.ceil(max(f.getlength(text), f.getbbox(text, anchor="la")[2]))


@cache
def metrics(size: int, bold: bool = False) -> tuple[int, int]:
    """(ascent, descent) in px."""
    ascent, descent = font(size, bold).getmetrics()
    return ascent, descent


# -- numbers ------------------------------------------------------------------------------------

MINUS_SIGN: Final = "−"
_VULGAR: Final[Mapping[tuple[int, int], str]] = {
    (1, 2): "½",
    (1, 3): "⅓",
    (2, 3): "⅔",
    (1, 4): "¼",
    (3, 4): "¾",
    (1, 5): "⅕",
    (2, 5): "⅖",
    (3, 5): "⅗",
    (4, 5): "⅘",
    (1, 6): "⅙",
    (5, 6): "⅚",
    (1, 8): "⅛",
    (3, 8): "⅜",
    (5, 8): "⅝",
    (7, 8): "⅞",
}
_SUPER: Final = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUB: Final = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def format_amount(value: Fraction, *, decimals: bool = False, sign: bool = False) -> str:
    """36⅔, 12½, −5; with `decimals` a value exact in two decimals is written 12.5 instead."""
    negative = value < 0
    magnitude = -value if negative else value
    whole, rest = divmod(magnitude, 1)
    if rest == 0:
        text = str(int(whole))
    elif decimals and (magnitude * 100).denominator == 1:
        text = f"{Decimal(magnitude.numerator) / Decimal(magnitude.denominator):f}"
    else:
        frac = Fraction(rest)
        glyph = _VULGAR.get((frac.numerator, frac.denominator))
        if glyph is None:
            glyph = (
                f"{str(frac.numerator).translate(_SUPER)}⁄{str(frac.denominator).translate(_SUB)}"
            )
        text = (str(int(whole)) if whole else "") + glyph
    if negative:
        return MINUS_SIGN + text
    return ("+" + text) if sign and value > 0 else text


def format_money(value: Decimal) -> str:
    text = f"{abs(value):.2f}"
    if value < 0:
        return MINUS_SIGN + text
    return ("+" + text) if value > 0 else text


# -- polygons and text flow ---------------------------------------------------------------------


def _cross_section(points: Sequence[Point], y: float) -> list[tuple[float, float]]:
    """The intervals of x inside the polygon on the horizontal line y."""
    xs: list[float] = []
    count = len(points)
    for i in range(count):
        xa, ya = points[i]
        xb, yb = points[(i + 1) % count]
        if (ya <= y < yb) or (yb <= y < ya):
            xs.append(xa + (y - ya) * (xb - xa) / (yb - ya))
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


@dataclass(frozen=True, slots=True)
class Item:
    """Segments kept on one row together; `gap` (em) follows it; `newline` forces a new row."""

    segs: tuple[Seg, ...] = ()
    gap: float = 0.0
    newline: bool = False


NEWLINE: Final = Item(newline=True)


def _seg_size(size: int, rel: float) -> int:
    """A smaller segment (a caption) stays readable: at least 11 px, never above the row's size."""
    return min(size, max(11, round(size * rel)))


def line_height(size: int) -> int:
    ascent, descent = metrics(size)
    return ascent + descent + max(1, round(size * 0.08))


class _Rows:
    """The rows a flow of one size can use in one area, top to bottom: (y, x_start, x_end).

    Computed lazily and kept (see `_rows`): the same band at the same size gives the same rows in
    every picture of a game and in every step of the size search. A row uses the widest stretch
    the band leaves free (values split around the circle read badly)."""

    __slots__ = ("area", "done", "height", "rows", "slide", "step", "y")

    def __init__(self, area: Area, size: int) -> None:
        ascent, descent = metrics(size)
        self.area = area
        self.height = ascent + descent
        self.step = line_height(size)
        self.slide = max(1, self.step // 4)
        self.y = math.ceil(area.top)
        self.rows: list[tuple[int, int, int]] = []
        self.done = False

    def get(self, index: int) -> tuple[int, int, int] | None:
        while len(self.rows) <= index and not self.done:
            self._next()
        return self.rows[index] if index < len(self.rows) else None

    def _next(self) -> None:
        area, height = self.area, self.height
        bottom = area.bottom
        while self.y + height + area.pad <= bottom:
            spans = area.row(self.y, self.y + height)
            if spans:
                lo, hi = max(spans, key=lambda span: span[1] - span[0])
                self.rows.append((self.y, math.ceil(lo), math.floor(hi)))
                self.y += self.step
                return
            self.y += self.slide  # nothing free here (an apex, the circle): slide down, retry
        self.done = True


@lru_cache(maxsize=4096)
def _rows(area: Area, size: int) -> _Rows:
    return _Rows(area, size)


def _widths(items: Sequence[Item], size: int) -> list[int]:
    """Each item's width at this size; −1 marks a forced new row."""
    return [
        -1
        if item.newline
        else sum(text_width(s.text, _seg_size(size, s.rel), s.bold) for s in item.segs)
        for item in items
    ]


def _arrange(items: Sequence[Item], area: Area, size: int) -> list[tuple[int, int, int]] | None:
    """Where each item starts — (row y, x, item index) — or None when they do not all fit."""
    rows = _rows(area, size)
    widths = _widths(items, size)
    index = 0
    row = rows.get(0)
    if row is None:
        return None
    y, x, end = row
    at_row_start = True
    starts: list[tuple[int, int, int]] = []
    for i, width in enumerate(widths):
        if width < 0:
            if not at_row_start:
                index += 1
                row = rows.get(index)
                if row is None:
                    return None
                y, x, end = row
            at_row_start = True
            continue
        while x + width > end:
            index += 1
            row = rows.get(index)
            if row is None:
                return None
            y, x, end = row
            at_row_start = True
        starts.append((y, x, i))
        x += width + round(items[i].gap * size)
        at_row_start = False
    return starts


def _emit(items: Sequence[Item], starts: list[tuple[int, int, int]], size: int) -> list[TextRun]:
    """The text runs of arranged items; positions are whole pixels, so a run is drawn exactly
    where it was measured."""
    ascent, _ = metrics(size)
    runs: list[TextRun] = []
    for y, x, i in starts:
        for seg in items[i].segs:
            seg_size = _seg_size(size, seg.rel)
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


def _place(items: Sequence[Item], area: Area, size: int) -> list[TextRun] | None:
    """Put the items row by row, left to right; None when they do not all fit at this size."""
    starts = _arrange(items, area, size)
    return None if starts is None else _emit(items, starts, size)


def flow(
    items: Sequence[Item], area: Area, largest: int, smallest: int
) -> tuple[list[TextRun], int]:
    """The items at the largest size from `largest` down to `smallest` that fits, and that size;
    no runs when even `smallest` is too large."""
    need = sum(max(0, w) for w in _widths(items, largest)) * line_height(largest)
    bound = largest
    if need > 0:  # text area grows with the square of the size: skip sizes that cannot fit
        bound = min(largest, max(smallest, math.floor(largest * math.sqrt(area.area() / need))))
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
    return _emit(items, found[0], found[1]), found[1]


# -- the sheet ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sector:
    """One player's part of the drawing: the clockwise path along the edge and its whists parts."""

    seat: int
    path: tuple[Point, ...]  # on the outer edge, clockwise, from the previous player's line
    parts: tuple[tuple[tuple[Point, ...], int], ...]  # (sub-path, whists target)
    anchor: Point  # where the name tab sits on the edge
    splits: tuple[Point, ...] = field(default=())  # edge points of the whists split lines


def sectors(size: int, frame: Frame) -> tuple[Sector, ...]:
    x0, y0, x1, y1 = frame.sheet
    cx, cy = frame.centre
    tl, tr, br, bl = (x0, y0), (x1, y0), (x1, y1), (x0, y1)
    tm, bm, lm, rm = (cx, y0), (cx, y1), (x0, cy), (x1, cy)
    if size == 3:
        a, b, c = 0, 1, 2
        return (
            Sector(a, (bm, bl, tl), (((bm, bl), c), ((bl, tl), b)), bl, (bl,)),
            Sector(b, (tl, tm, tr), (((tl, tm), a), ((tm, tr), c)), tm, (tm,)),
            Sector(c, (tr, br, bm), (((tr, br), b), ((br, bm), a)), br, (br,)),
        )

    def thirds(p: Point, q: Point) -> tuple[Point, Point]:
        return (
            (p[0] + (q[0] - p[0]) / 3, p[1] + (q[1] - p[1]) / 3),
            (p[0] + 2 * (q[0] - p[0]) / 3, p[1] + 2 * (q[1] - p[1]) / 3),
        )

    out = []
    for seat, (p, q, anchor) in enumerate(
        ((br, bl, bm), (bl, tl, lm), (tl, tr, tm), (tr, br, rm))
    ):
        m1, m2 = thirds(p, q)
        targets = ((seat - 1) % 4, (seat + 2) % 4, (seat + 1) % 4)
        parts = (((p, m1), targets[0]), ((m1, m2), targets[1]), ((m2, q), targets[2]))
        out.append(Sector(seat, (p, q), parts, anchor, (m1, m2)))
    return tuple(out)


def _scale(point: Point, centre: Point, s: float) -> Point:
    return (centre[0] + (point[0] - centre[0]) * s, centre[1] + (point[1] - centre[1]) * s)


def band_polygon(
    path: Sequence[Point], centre: Point, inner: float, outer: float
) -> tuple[Point, ...]:
    """The part of the ring between two scales that lies over this stretch of the edge."""
    out = [_scale(p, centre, outer) for p in path]
    inside = [_scale(p, centre, inner) for p in reversed(path)] if inner > 0 else [centre]
    return tuple(out + inside)


def _suit_segs(text: str, **style: object) -> list[Seg]:
    """Split text so that ♦ and ♥ come out red."""
    segs: list[Seg] = []
    current = ""
    for ch in text:
        if ch in "♦♥":
            if current:
                segs.append(Seg(current, **style))  # type: ignore[arg-type]
                current = ""
            segs.append(Seg(ch, **{**style, "color": RED}))  # type: ignore[arg-type]
        else:
            current += ch
    if current:
        segs.append(Seg(current, **style))  # type: ignore[arg-type]
    return segs


def _total_items(
    band: Band,
    values: Sequence[tuple[int, Fraction]],
    colour: str,
    closed: bool,
    corrections: Corrections,
) -> list[Item]:
    items = []
    last = len(values) - 1
    for i, (record, total) in enumerate(values):
        text = format_amount(total)
        fix = corrections.get((band, record))
        segs: list[Seg] = []
        if fix is not None:
            segs.append(
                Seg(format_amount(fix.wrong) + ".", color=MUTED, kind=RunKind.WRONG, band=band)
            )
        if i == last:
            segs.append(Seg(text, bold=True, color=colour, band=band, record=record, latest=True))
        else:
            segs.append(Seg(text if fix else text + ".", band=band, record=record))
        if fix is not None:
            mark = str(fix.number).translate(_SUPER) + ("" if i == last else ".")
            segs.append(Seg(mark, color=MUTED, kind=RunKind.MARK, band=band))
        if i == last and closed:
            segs.append(Seg(" ✔", bold=True, color=CLOSED_MARK, kind=RunKind.MARK, band=band))
        items.append(Item(tuple(segs)))
    return items


def _band_runs(
    band: Band,
    caption: str,
    values: Sequence[tuple[int, Fraction]],
    area: Area,
    colour: str,
    closed: bool,
    corrections: Corrections,
) -> list[TextRun]:
    head = Item((Seg(caption, rel=0.6, color=MUTED, kind=RunKind.CAPTION, band=band),), gap=0.35)
    totals = _total_items(band, values, colour, closed, corrections)
    runs, _ = flow([head, *totals], area, MAX_SIZE, MIN_SIZE)
    if runs or not totals:
        return runs
    # Not even the smallest size holds the column: keep the newest values behind a "…".
    ellipsis = Item((Seg("….", kind=RunKind.ELLIPSIS, band=band),))
    lo, hi = 1, len(totals) - 1
    best: list[TextRun] = []
    while lo <= hi:
        mid = (lo + hi) // 2
        placed = _place([head, ellipsis, *totals[-mid:]], area, MIN_SIZE)
        if placed is None:
            hi = mid - 1
        else:
            best, lo = placed, mid + 1
    return best


def _tab(
    name: str, anchor: Point, frame: Frame, colour: str, limit: float
) -> tuple[Rect, TextRun, Obstacle]:
    """The name tab at an anchor on the edge: a coloured rounded box, the name in white, at most
    `limit` px of text (the font shrinks to `NAME_MIN`, then the name is cut with "…")."""
    x0, y0, x1, y1 = frame.sheet
    size = NAME_MAX
    text = name
    while size > NAME_MIN and text_width(text, size, True) > limit:
        size -= 1
    while text_width(text, size, True) > limit and len(text) > 1:
        text = text[:-2] + "…"
    ascent, descent = metrics(size, True)
    w, h = text_width(text, size, True) + 2 * 12, ascent + descent + 2 * 6
    inset = 8.0
    ax, ay = anchor
    bx = round(x0 + inset if ax == x0 else (x1 - inset - w if ax == x1 else ax - w / 2))
    by = round(y0 + inset if ay == y0 else (y1 - inset - h if ay == y1 else ay - h / 2))
    box = (bx, by, bx + w, by + h)
    run = TextRun(
        text,
        bx + 12,
        by + 6,
        (bx + 12, by + 6, bx + w - 12, by + h - 6),
        size,
        True,
        "#ffffff",
        RunKind.NAME,
    )
    return (
        Rect(box, colour, None, 0, h / 2),
        run,
        Obstacle((bx - 2, by - 2, bx + w + 2, by + h + 2)),
    )


def _centre(sheet: Sheet, frame: Frame, words: Mapping[str, str]) -> tuple[Circle, list[TextRun]]:
    cx, cy = frame.centre
    r = frame.radius
    runs: list[TextRun] = []
    lines: list[tuple[str, int, bool, str]] = [(str(sheet.rules.pool_target), 34, True, INK)]
    if sheet.game.stake is not None:
        stake = format_amount(sheet.game.stake, decimals=True)
        lines.append((words["centre_stake"].format(stake=stake), 15, False, MUTED))
    else:
        lines.append((words["centre_pool"], 15, False, MUTED))
    total = sum(sum(metrics(s, b)) for _, s, b, _ in lines)
    y = round(cy - total / 2)
    for text, size, bold, colour in lines:
        while size > 8 and text_width(text, size, bold) > 2 * r - 14:
            size -= 1
        w = text_width(text, size, bold)
        ascent, descent = metrics(size, bold)
        x = round(cx - w / 2)
        runs.append(
            TextRun(
                text, x, y, (x, y, x + w, y + ascent + descent), size, bold, colour, RunKind.CENTRE
            )
        )
        y += ascent + descent
    return Circle((cx, cy), r, "#ffffff", LINE, 3), runs


def _deal_summary(sheet: Sheet, words: Mapping[str, str]) -> tuple[int, str] | None:
    names = sheet.game.players
    for scored in reversed(sheet.records):
        if not scored.number:
            continue
        deal = scored.record
        if isinstance(deal, Contract):
            suit = "" if deal.suit is None else deal.suit.value
            if deal.suit is Suit.NO_TRUMP:
                suit = words["no_trump"]
            head = f"{names[deal.declarer]} {deal.level}{suit}"
            if deal.three_down:
                return scored.number, f"{head} {words['three_down']}"
            if Role.HALF in deal.roles and not deal.played:
                return scored.number, f"{head} {words['half_whist']}"
            if not deal.played:
                return scored.number, f"{head} {words['passed']}"
            result = "=" if deal.result == 0 else f"{deal.result:+d}".replace("-", MINUS_SIGN)
            return scored.number, f"{head} {result}"
        if isinstance(deal, Misere):
            result = "=" if deal.tricks == 0 else words["tricks"].format(count=deal.tricks)
            return scored.number, f"{names[deal.declarer]} {words['misere']} {result}"
        if isinstance(deal, Raspasy):
            tricks = ", ".join(f"{names[p]} {t}" for p, t in deal.tricks)
            return scored.number, f"{words['raspasy']}: {tricks}"
    return None


def _strip_items(
    sheet: Sheet, words: Mapping[str, str], settlement: Settlement | None
) -> list[Item]:
    game, rules = sheet.game, sheet.rules
    names = game.players
    sep = Seg(" · ", color=MUTED, kind=RunKind.STRIP)
    items = [
        Item((Seg(words.get(rules.convention, rules.convention), bold=True, kind=RunKind.STRIP),)),
        Item((sep, Seg(words["target"].format(target=rules.pool_target), kind=RunKind.STRIP))),
    ]
    if game.stake is not None:
        stake = format_amount(game.stake, decimals=True)
        items.append(
            Item((sep, Seg(words["centre_stake"].format(stake=stake), kind=RunKind.STRIP)))
        )
    items.append(Item((sep, Seg(words["deals"].format(count=sheet.deals), kind=RunKind.STRIP))))
    if sheet.finished:
        items.append(Item((sep, Seg(words["finished"], bold=True, kind=RunKind.STRIP))))
    else:
        dealer = sheet.next_dealer
        items.append(
            Item(
                (
                    sep,
                    Seg(words["next_dealer"], kind=RunKind.STRIP),
                    Seg(names[dealer], bold=True, color=SEAT_COLOURS[dealer], kind=RunKind.STRIP),
                )
            )
        )
        if sheet.last_round_announced:
            items.append(Item((sep, Seg(words["last_round"], bold=True, kind=RunKind.STRIP))))
    overrides = rules.overrides(game.size)
    if overrides:
        items += [NEWLINE, Item((Seg(words["overrides"], color=MUTED, kind=RunKind.STRIP),))]
        pairs = list(overrides.items())
        for i, (name, value) in enumerate(pairs):
            text = f"{name}={value}" + (", " if i < len(pairs) - 1 else "")
            items.append(Item((Seg(text, kind=RunKind.STRIP),), gap=0.2))
    if settlement is not None:
        head = words["balance_final"] if sheet.finished else words["balance_now"]
        items += [NEWLINE, Item((Seg(head, color=MUTED, kind=RunKind.STRIP),), gap=0.5)]
        for seat, balance in enumerate(settlement.balances):
            colour = PLUS if balance > 0 else (MINUS if balance < 0 else INK)
            amount = format_amount(balance, decimals=True, sign=True) + " " + words["whists_unit"]
            segs = [
                Seg(names[seat] + " ", bold=True, color=SEAT_COLOURS[seat], kind=RunKind.STRIP),
                Seg(amount, bold=True, color=colour, kind=RunKind.STRIP),
            ]
            if settlement.money is not None:
                money = format_money(settlement.money[seat])
                segs.append(Seg(f" ({money})", color=colour, kind=RunKind.STRIP))
            items.append(Item(tuple(segs), gap=0.9))
    summary = _deal_summary(sheet, words)
    if summary is not None:
        number, text = summary
        segs = [Seg(words["last_deal"].format(number=number), color=MUTED, kind=RunKind.STRIP)]
        segs += _suit_segs(text, kind=RunKind.STRIP)
        items += [NEWLINE, Item(tuple(segs))]
    return items


def layout_sheet(
    sheet: Sheet,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
) -> Layout:
    """The whole picture of a 3- or 4-player sheet as shapes and text runs, nothing drawn yet.

    Without a `settlement` the balances are computed with `scoring.settle.settle`.
    """
    size = sheet.game.size
    if size not in FRAMES:
        raise ValueError(f"a sheet for 3 or 4 players, not {size}")
    frame = FRAMES[size]
    words = labels(lang)
    corrections = corrections or {}
    if settlement is None:
        settlement = settle(sheet.rules, sheet.totals, sheet.game.stake)
    centre = frame.centre
    inner, middle = frame.scales
    names = sheet.game.players
    parts = sectors(size, frame)

    shapes: list[Shape] = [Rect((0, 0, frame.width, frame.height), BACKGROUND)]
    runs: list[TextRun] = []
    circle, centre_runs = _centre(sheet, frame, words)
    sides = {frame.sheet[0], frame.sheet[2]}
    tabs = [
        _tab(
            names[s.seat],
            s.anchor,
            frame,
            SEAT_COLOURS[s.seat],
            250.0 if size == 3 and s.anchor[0] not in sides else 200.0,
        )
        for s in parts
    ]
    obstacles = (
        Obstacle(
            (
                centre[0] - frame.radius - 3,
                centre[1] - frame.radius - 3,
                centre[0] + frame.radius + 3,
                centre[1] + frame.radius + 3,
            ),
            round=True,
        ),
        *(obstacle for _, _, obstacle in tabs),
    )

    # Sectors in their tints, a closed pool in gold; every band a region carrying its band.
    regions: list[tuple[Region, str, Sequence[tuple[int, Fraction]], bool]] = []
    for sector in parts:
        seat = sector.seat
        shapes.append(Region((*sector.path, centre), SEAT_TINTS[seat], seat))
        closed = seat in sheet.closed_pools
        bands = [
            (Band(seat, Column.MOUNTAIN), sector.path, 0.0, inner, words["mountain"], None),
            (
                Band(seat, Column.POOL),
                sector.path,
                inner,
                middle,
                words["pool"],
                CLOSED_FILL if closed else None,
            ),
        ]
        for path, target in sector.parts:
            caption = words["whists_on"].format(name=names[target])
            bands.append((Band(seat, Column.WHISTS, target), path, middle, 1.0, caption, None))
        for band, path, lo, hi, caption, fill in bands:
            region = Region(band_polygon(path, centre, lo, hi), fill, seat, band)
            shapes.append(region)
            history = sheet.history.get(band, ())
            regions.append((region, caption, history, closed and band.column is Column.POOL))

    # Lines: the concentric rectangles, the sector lines, the whists splits, the frame.
    for s in (middle, inner):
        a = _scale(frame.sheet[:2], centre, s)
        b = _scale(frame.sheet[2:], centre, s)
        shapes.append(Rect((a[0], a[1], b[0], b[1]), None, THIN, 2))
    for sector in parts:
        for point in sector.splits:
            shapes.append(Line(_scale(point, centre, middle), point, 2, THIN))
    for sector in parts:
        corner = sector.path[0]
        dx, dy = corner[0] - centre[0], corner[1] - centre[1]
        length = math.hypot(dx, dy)
        start = (centre[0] + dx * frame.radius / length, centre[1] + dy * frame.radius / length)
        shapes.append(Line(start, corner, 3, LINE))
    shapes.append(Rect(frame.sheet, None, LINE, 3))
    shapes.append(circle)
    for rect, run, _ in tabs:
        shapes.append(rect)
        runs.append(run)
    runs += centre_runs

    for region, caption, values, closed in regions:
        assert region.band is not None
        area = Area(region.points, obstacles)
        colour = SEAT_COLOURS[region.player]
        runs += _band_runs(region.band, caption, values, area, colour, closed, corrections)

    # The strip under the drawing.
    shapes.append(Rect(frame.strip, STRIP_FILL, THIN, 2, 10))
    x0, y0, x1, y1 = frame.strip
    strip_area = Area(((x0 + 8, y0 + 6), (x1 - 8, y0 + 6), (x1 - 8, y1 - 6), (x0 + 8, y1 - 6)))
    strip_runs, _ = flow(_strip_items(sheet, words, settlement), strip_area, STRIP_MAX, STRIP_MIN)
    runs += strip_runs
    return Layout(frame.width, frame.height, tuple(shapes), tuple(runs))
