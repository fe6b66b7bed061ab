"""The score sheet («пулька») as a pure layout (spec/sheet.md): a `Sheet` → shapes and text runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from bot.sheet.bands import band_runs, centre_circle, name_tab
from bot.sheet.flow import Area, Obstacle
from bot.sheet.model import (
    BACKGROUND,
    CLOSED_FILL,
    FRAMES,
    FULL,
    LINE,
    PHONE,
    SEAT_COLOURS,
    SEAT_TINTS,
    STRIP_FILL,
    THIN,
    Corrections,
    Frame,
    Layout,
    Line,
    Point,
    Rect,
    Region,
    RunKind,
    Shape,
    TextRun,
)
from bot.sheet.strip import strip_runs
from locales import catalog
from scoring.deal import Column
from scoring.settle import Settlement, settle
from scoring.sheet import Band, Sheet

# px of a name tab's text, by table size and whether the tab is on a side edge
NAME_ROOM: Final = {3: {False: 300.0, True: 260.0}, 4: {False: 300.0, True: 240.0}}


@dataclass(frozen=True, slots=True)
class Sector:
    """One player's part of the drawing: the clockwise path along the edge and its whists parts."""

    seat: int
    path: tuple[Point, ...]  # on the outer edge, clockwise, from the previous player's line
    parts: tuple[tuple[tuple[Point, ...], int], ...]  # (sub-path, whists target)
    anchor: Point  # where the name tab sits on the edge
    splits: tuple[Point, ...] = ()  # edge points of the whists split lines
    toward: Point = (0.0, 0.0)  # the tab goes from the anchor this way along the edge (0: centred)


def sectors(size: int, frame: Frame) -> tuple[Sector, ...]:
    """3 players: lines from the circle to the upper corners and the lower middle, seat A left,
    B top, C right; 4 players: the diagonals, A bottom, B left, C top, D right."""
    x0, y0, x1, y1 = frame.sheet
    cx = frame.centre[0]
    tl, tr, br, bl = (x0, y0), (x1, y0), (x1, y1), (x0, y1)
    tm, bm = (cx, y0), (cx, y1)
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

    # The name tab ends where the middle part meets the last: it takes the end of the middle part
    # rather than cutting it in two, and nothing of the corner part, the smallest.
    out = []
    for seat, (p, q) in enumerate(((br, bl), (bl, tl), (tl, tr), (tr, br))):
        m1, m2 = thirds(p, q)
        targets = ((seat - 1) % 4, (seat + 2) % 4, (seat + 1) % 4)
        parts = (((p, m1), targets[0]), ((m1, m2), targets[1]), ((m2, q), targets[2]))
        back = ((p[0] > q[0]) - (p[0] < q[0]), (p[1] > q[1]) - (p[1] < q[1]))
        out.append(Sector(seat, (p, q), parts, m2, (m1, m2), back))
    return tuple(out)


def scale(point: Point, centre: Point, s: float) -> Point:
    return (centre[0] + (point[0] - centre[0]) * s, centre[1] + (point[1] - centre[1]) * s)


def band_polygon(
    path: Sequence[Point], centre: Point, inner: float, outer: float
) -> tuple[Point, ...]:
    """The part of the ring between two scales that lies over this stretch of the edge."""
    out = [scale(p, centre, outer) for p in path]
    inside = [scale(p, centre, inner) for p in reversed(path)] if inner > 0 else [centre]
    return tuple(out + inside)


def layout_sheet(
    sheet: Sheet,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    fold: bool = True,
) -> Layout:
    """The picture of a 3- or 4-player sheet, nothing drawn yet; without `settlement` the balances
    are `scoring.settle.settle`'s; `corrections` maps (band, record index) to `Correction(wrong,
    number)`, drawn the paper way: `10.14.12³.16`. `fold`: the chat's picture (`model.PHONE`),
    else every total (`model.FULL`)."""
    style = PHONE if fold else FULL
    if settlement is None:
        settlement = settle(sheet.rules, sheet.totals, sheet.game.stake)
    size = sheet.game.size
    if size not in FRAMES:
        raise ValueError(f"a sheet for 3 or 4 players, not {size}")
    frame = FRAMES[size]
    words = catalog.table(lang, "sheet")
    corrections = corrections or {}
    centre = frame.centre
    inner, middle = frame.scales
    names = sheet.game.players
    parts = sectors(size, frame)

    shapes: list[Shape] = [Rect((0, 0, frame.width, frame.height), BACKGROUND)]
    runs: list[TextRun] = []
    circle, centre_runs = centre_circle(sheet, frame, words, style, lang)
    sides = {frame.sheet[0], frame.sheet[2]}
    tabs = [
        name_tab(names[s.seat], s.anchor, frame, SEAT_COLOURS[s.seat], room, style, s.toward)
        for s in parts
        for room in (NAME_ROOM[size][s.anchor[0] in sides],)
    ]
    (cx, cy), r = centre, frame.radius + 3
    circled = Obstacle((cx - r, cy - r, cx + r, cy + r), round=True)
    obstacles = (circled, *(obstacle for _, _, obstacle in tabs))

    # Sectors in their tints, a closed pool in gold; every band a region carrying its band.
    regions: list[tuple[Region, str, Sequence[tuple[int, Fraction]], bool]] = []
    for sector in parts:
        seat = sector.seat
        shapes.append(Region((*sector.path, centre), SEAT_TINTS[seat], seat))
        closed = seat in sheet.closed_pools
        gold = CLOSED_FILL if closed else None
        bands = [
            (Band(seat, Column.MOUNTAIN), sector.path, 0.0, inner, words["mountain"], None),
            (Band(seat, Column.POOL), sector.path, inner, middle, words["pool"], gold),
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
        a = scale(frame.sheet[:2], centre, s)
        b = scale(frame.sheet[2:], centre, s)
        shapes.append(Rect((a[0], a[1], b[0], b[1]), None, THIN, 2))
    for sector in parts:
        for point in sector.splits:
            shapes.append(Line(scale(point, centre, middle), point, 2, THIN))
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
        area, colour = Area(region.points, obstacles), SEAT_COLOURS[region.player]
        runs += band_runs(region.band, caption, values, area, colour, closed, corrections, style)

    # The strip under the drawing.
    shapes.append(Rect(frame.strip, STRIP_FILL, THIN, 2, 10))
    x0, y0, x1, y1 = frame.strip
    strip_area = Area(((x0 + 8, y0 + 6), (x1 - 8, y0 + 6), (x1 - 8, y1 - 6), (x0 + 8, y1 - 6)))
    folded = any(run.kind is RunKind.ELLIPSIS for run in runs)
    corrected = any(run.kind is RunKind.WRONG for run in runs)  # not folded away
    runs += strip_runs(sheet, settlement, words, lang, corrected, folded, strip_area, style)
    return Layout(frame.width, frame.height, tuple(shapes), tuple(runs))
