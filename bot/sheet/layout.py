"""The score sheet («пулька») as a pure layout (spec/sheet.md): a `Sheet` → shapes and text runs.

3 players: a landscape drawing cut by lines from a circle below its middle to the two upper
corners and the middle of the lower edge; seat A has the left sector, B the top, C the right.
4 players: a square cut by its diagonals, A bottom, B left, C top, D right. In each sector, from
the centre out: the mountain, the pool, then the whists, cut into one part per other player (4
players: the middle third is the opposite player). Names sit in tabs on the edge; the strip under
the drawing holds the game's facts and balances. Each band writes its running totals as paper does,
`2.4.8.10`, the latest bold in the player's colour (`bot.sheet.totals`). A correction is drawn the
paper way, `10.14.12³.16`: `corrections` maps (band, record index) to `Correction(wrong, number)`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from bot.sheet.bands import band_runs, centre_circle, name_tab
from bot.sheet.drawn import Drawn, drawn
from bot.sheet.flow import Area, Obstacle
from bot.sheet.geometry import band_polygon, scale, sectors
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
    Correction,
    Corrections,
    Layout,
    Line,
    Rect,
    Region,
    RunKind,
    Shape,
    TextRun,
)
from bot.sheet.strip import strip_runs
from locales import catalog
from scoring.deal import Column
from scoring.settle import Settlement
from scoring.sheet import Band, Sheet

__all__ = ["Correction", "Corrections", "Layout", "RunKind", "layout_sheet"]  # bot.web's

# px of a name tab's text, by table size and whether the tab is on a side edge
NAME_ROOM: Final = {3: {False: 300.0, True: 260.0}, 4: {False: 300.0, True: 240.0}}


def layout_sheet(
    sheet: Sheet | Drawn,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    fold: bool = True,
) -> Layout:
    """The picture of a 3- or 4-player sheet, nothing drawn yet; without `settlement` the balances
    are `scoring.settle.settle`'s. `fold`: the chat's picture (`model.PHONE`), else every total
    (`model.FULL`)."""
    style = PHONE if fold else FULL
    if isinstance(sheet, Sheet):
        sheet = drawn(sheet, settlement)
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
    runs += strip_runs(sheet, words, lang, corrected, folded, strip_area, style)
    return Layout(frame.width, frame.height, tuple(shapes), tuple(runs))
