"""The score sheet («пулька») as a pure layout: a `Sheet` → positioned shapes and text runs.

spec/sheet.md. Nothing here draws; `bot.sheet.raster` turns a `Layout` into a PNG. Text is measured
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
* Numbers (`locales.numbers`): whole, or whole plus a vulgar fraction (36⅔, 12½): a decimal mark
  would read as the dot between totals. The strip and the centre, where no dots separate values,
  write a value exact in two decimals the language's way: `0,1`, `+5,54` in Russian, `0.1`,
  `+5.54` in English.

Corrections
---------------------
`corrections` maps `(band, record_index)` — a running total as it stands in `sheet.history` — to a
`Correction(wrong, number)`: the value first written there by mistake and the correction's number. The
total is then drawn as paper does it, wrong value, a dot, the right value, with the number raised:
`10.14.12³.16` (the wrong value grey, run kind `WRONG`; the number run kind `MARK`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from bot.sheet.bands import (
    band_runs,
    caption_run,
    centre_circle,
    name_tab,
    total_items,
    value_item,
)
from bot.sheet.drawn import Drawn, drawn, extends
from bot.sheet.flow import Area, Obstacle, flow
from bot.sheet.geometry import band_polygon, scale, sectors
from bot.sheet.labels import labels
from bot.sheet.measure import font, metrics, text_width
from bot.sheet.model import (
    BACKGROUND,
    BOLD,
    CLOSED_FILL,
    FRAMES,
    LINE,
    MUTED,
    RED,
    REGULAR,
    SEAT_COLOURS,
    SEAT_TINTS,
    STRIP_FILL,
    STRIP_MAX,
    STRIP_MIN,
    THIN,
    Box,
    Circle,
    Correction,
    Corrections,
    Layout,
    Line,
    Point,
    Rect,
    Region,
    RunKind,
    Shape,
    TextRun,
)
from bot.sheet.strip import strip_items
from bot.sheet.totals import Laid, grow, lay
from locales.numbers import format_amount, format_money
from scoring.deal import Column
from scoring.settle import Settlement
from scoring.sheet import Band, Sheet

__all__ = [  # the names the renderer's callers and tests use, wherever they live now
    "BACKGROUND",
    "BOLD",
    "CLOSED_FILL",
    "FRAMES",
    "MUTED",
    "RED",
    "REGULAR",
    "Box",
    "Circle",
    "Correction",
    "Corrections",
    "Layout",
    "Line",
    "Point",
    "Rect",
    "Region",
    "RunKind",
    "Shape",
    "TextRun",
    "font",
    "format_amount",
    "format_money",
    "layout_sheet",
    "metrics",
    "text_width",
]


_BANDS: OrderedDict[tuple[object, ...], tuple[list[TextRun], Area, Laid]] = OrderedDict()
BANDS_KEPT: Final = 2048  # bands laid out, kept (a dozen a game)


def kept_band_runs(
    band: Band,
    caption: str,
    values: Sequence[tuple[int, Fraction]],
    area: Area,
    colour: str,
    closed: bool,
    corrections: Corrections,
    game: object = None,
) -> list[TextRun]:
    """`band_runs`, laid out again only where the band changed since it was last laid out: a deal
    touches a few bands of the dozen, and adds a total or two to each (`bot.sheet.totals.grow`). Kept per `game` (any key: the caller's game id), since games whose bands look
    alike would otherwise take each other's place. Call under `bot.sheet.drawing_lock`, like the
    layout."""
    mine = tuple(sorted(((k[1], v) for k, v in corrections.items() if k[0] == band), key=_first))
    key = (game, band, caption, area, colour, closed, mine)
    kept = _BANDS.get(key)
    if kept is None:
        head, inner = caption_run(band, caption, area)
        laid = None
    else:
        head, inner, laid = kept
        if laid.values is values or (len(laid.values) == len(values) and laid.values == values):
            _BANDS.move_to_end(key)
            return head + laid.runs
    grown = None
    if laid is not None and not mine and extends(laid.values, values):
        old = len(laid.values) - 1
        tail = [value_item(band, *values[old], False, False, colour, closed)]
        last = len(values) - 1
        tail += [
            value_item(band, record, total, i == last, i == last, colour, closed)
            for i, (record, total) in enumerate(values[old + 1 :], old + 1)
        ]
        grown = grow(band, laid, values, laid.items[:old] + tail, inner)
    if grown is None:
        grown = lay(band, values, total_items(band, values, colour, closed, corrections), inner)
    _BANDS[key] = (head, inner, grown)
    _BANDS.move_to_end(key)
    while len(_BANDS) > BANDS_KEPT:
        _BANDS.popitem(last=False)
    return head + grown.runs


def _first(item: tuple[int, Correction]) -> int:
    return item[0]


def layout_sheet(
    sheet: Sheet | Drawn,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    keep: bool = True,
    game: object = None,
) -> Layout:
    """The whole picture of a 3- or 4-player sheet as shapes and text runs, nothing drawn yet.

    `sheet` may be what the picture reads of it (`bot.sheet.drawn`), which carries its balances;
    for a `Sheet` without a `settlement` the balances are computed with `scoring.settle.settle`.
    `keep`: bands whose values did not change since `game`'s last layout are taken as they were
    then (`kept_band_runs`); False lays every band out afresh (the same runs).
    """
    if isinstance(sheet, Sheet):
        sheet = drawn(sheet, settlement)
    size = sheet.game.size
    if size not in FRAMES:
        raise ValueError(f"a sheet for 3 or 4 players, not {size}")
    frame = FRAMES[size]
    words = labels(lang)
    corrections = corrections or {}
    centre = frame.centre
    inner, middle = frame.scales
    names = sheet.game.players
    parts = sectors(size, frame)

    shapes: list[Shape] = [Rect((0, 0, frame.width, frame.height), BACKGROUND)]
    runs: list[TextRun] = []
    circle, centre_runs = centre_circle(sheet, frame, words, lang)
    sides = {frame.sheet[0], frame.sheet[2]}
    tabs = [
        name_tab(
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
        area = Area(region.points, obstacles)
        colour = SEAT_COLOURS[region.player]
        band = region.band
        if keep:
            runs += kept_band_runs(band, caption, values, area, colour, closed, corrections, game)
        else:
            runs += band_runs(band, caption, values, area, colour, closed, corrections)

    # The strip under the drawing.
    shapes.append(Rect(frame.strip, STRIP_FILL, THIN, 2, 10))
    x0, y0, x1, y1 = frame.strip
    strip_area = Area(((x0 + 8, y0 + 6), (x1 - 8, y0 + 6), (x1 - 8, y1 - 6), (x0 + 8, y1 - 6)))
    strip_runs, _ = flow(
        strip_items(sheet, words, lang, bool(corrections)),
        strip_area,
        STRIP_MAX,
        STRIP_MIN,
    )
    runs += strip_runs
    return Layout(frame.width, frame.height, tuple(shapes), tuple(runs))
