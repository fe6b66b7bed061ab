"""The score sheet («пулька») as a pure layout: a `Sheet` → positioned shapes and text runs.

spec/sheet.md. Nothing here draws; `bot.sheet.raster` turns a `Layout` into a PNG. Text is measured
with the shipped DejaVu fonts (Pillow's FreeType, the basic layout engine), which is deterministic.

Geometry
--------
* Both tables on a portrait canvas of 1010×1279 (`model.WIDTH`, `HEIGHT`): the width a phone shows
  a photo at in a chat, and no taller than Telegram lets it be at that width (`model.PHONE_BOX`);
  the drawing above, the strip below.
* 3 players: the drawing a landscape rectangle. A small circle a little below the middle (so the
  top sector is no thin wedge) holds the pool size and the stake; lines from it to the two upper
  corners and to the middle of the lower edge cut three sectors. Seats go clockwise as seen from
  above the table: seat A (index 0) has the **left** sector, B the **top**, C the **right**. (With
  the lines of sheet.md the third sector is at the top, not the bottom.)
* 4 players: the drawing a square cut by its diagonals: A **bottom**, B **left**, C **top**, D
  **right** (clockwise again).
* Bands are the sheet's concentric rectangles (homothetic about the centre): inside each sector from
  the centre outwards the mountain (from the circle to `scales[0]`), the pool (to `scales[1]`) and the
  whists (to the edge). The whists band is cut by radial lines into one part per other player; each
  part holds the whists on the player whose sector it touches (4 players: the middle third is the
  opposite player). The player's name sits in a coloured tab on the outer edge of his sector (3
  players: the top middle, the lower-left and lower-right corners, where his whists parts meet; 4
  players: at the end of the middle part, against the split line). Text flows around the tabs and
  the circle.
* Each band holds its running totals as paper does, `2.4.8.10` (its caption first, the latest value
  bold in the player's colour), wrapped row by row inside the band's polygon, at the largest size of
  the style's ladder that fits (`model.Style`). The chat's picture (`model.PHONE`, `fold=True`)
  keeps every number at least 12 px and every word 9 px as the phone shows it: a band its smallest
  size cannot hold folds its oldest totals behind a leading `…` (the first shown is the running
  total they came to; the strip's legend says so), its caption sharing the totals' rows. The full
  sheet (`model.FULL`, `fold=False`: `/sheet full`, the Mini App) shrinks a crowded band's type
  instead, down to 9 px (read zoomed); only a band too full even for that folds. A closed pool is
  tinted gold and its caption carries a ✔.
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
    Totals,
    band_runs,
    caption_head,
    centre_circle,
    name_tab,
    total_items,
)
from bot.sheet.drawn import Drawn, drawn, extends
from bot.sheet.flow import Area, Obstacle
from bot.sheet.geometry import band_polygon, scale, sectors
from bot.sheet.labels import labels
from bot.sheet.measure import font, metrics, text_width
from bot.sheet.model import (
    BACKGROUND,
    BOLD,
    CLOSED_FILL,
    FRAMES,
    FULL,
    LINE,
    MUTED,
    PHONE,
    RED,
    REGULAR,
    SEAT_COLOURS,
    SEAT_TINTS,
    STRIP_FILL,
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
    Style,
    TextRun,
)
from bot.sheet.strip import strip_runs
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


NAME_ROOM: Final = {3: {False: 300.0, True: 260.0}, 4: {False: 300.0, True: 240.0}}
"""px of a name tab's text, by table size and whether the tab is on a side edge."""

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
    style: Style,
    game: object = None,
) -> list[TextRun]:
    """`band_runs`, laid out again only where the band changed since it was last laid out: a deal
    touches a few bands of the dozen, and adds a total or two to each (`bot.sheet.totals.grow`). Kept per `game` (any key: the caller's game id), since games whose bands look
    alike would otherwise take each other's place. Call under `bot.sheet.drawing_lock`, like the
    layout."""
    mine = tuple(sorted(((k[1], v) for k, v in corrections.items() if k[0] == band), key=_first))
    key = (game, band, caption, area, colour, closed, mine, style)
    kept = _BANDS.get(key)
    if kept is None:
        drawn, inner, heads = caption_head(band, caption, area, style, closed)
        laid = None
    else:
        drawn, inner, laid = kept
        heads = laid.heads
        if laid.values is values or (len(laid.values) == len(values) and laid.values == values):
            _BANDS.move_to_end(key)
            return drawn + laid.runs
    grown = None
    if laid is not None and isinstance(laid.items, Totals) and extends(laid.values, values):
        # (totals no correction touches: the items made so far stay as they were)
        grown = grow(band, laid, values, laid.items.extended(values), inner, style)
    if grown is None:
        items = total_items(band, values, colour, corrections)
        grown = lay(band, values, items, inner, style, heads)
    _BANDS[key] = (drawn, inner, grown)
    _BANDS.move_to_end(key)
    while len(_BANDS) > BANDS_KEPT:
        _BANDS.popitem(last=False)
    return drawn + grown.runs


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
    fold: bool = True,
) -> Layout:
    """The whole picture of a 3- or 4-player sheet as shapes and text runs, nothing drawn yet.

    `sheet` may be what the picture reads of it (`bot.sheet.drawn`), which carries its balances;
    for a `Sheet` without a `settlement` the balances are computed with `scoring.settle.settle`.
    `keep`: bands whose values did not change since `game`'s last layout are taken as they were
    then (`kept_band_runs`); False lays every band out afresh (the same runs).
    `fold`: the chat's picture, type readable on a phone and the oldest totals of a crowded band
    folded (`model.PHONE`); False: every total, a crowded band's type smaller (`model.FULL`).
    """
    style = PHONE if fold else FULL
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
    circle, centre_runs = centre_circle(sheet, frame, words, style, lang)
    sides = {frame.sheet[0], frame.sheet[2]}
    tabs = [
        name_tab(
            names[s.seat],
            s.anchor,
            frame,
            SEAT_COLOURS[s.seat],
            NAME_ROOM[size][s.anchor[0] in sides],
            style,
            s.toward,
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
            runs += kept_band_runs(
                band, caption, values, area, colour, closed, corrections, style, game
            )
        else:
            runs += band_runs(band, caption, values, area, colour, closed, corrections, style)

    # The strip under the drawing.
    shapes.append(Rect(frame.strip, STRIP_FILL, THIN, 2, 10))
    x0, y0, x1, y1 = frame.strip
    strip_area = Area(((x0 + 8, y0 + 6), (x1 - 8, y0 + 6), (x1 - 8, y1 - 6), (x0 + 8, y1 - 6)))
    folded = any(run.kind is RunKind.ELLIPSIS for run in runs)
    corrected = any(run.kind is RunKind.WRONG for run in runs)  # not folded away
    runs += strip_runs(sheet, words, lang, corrected, folded, strip_area, style)
    return Layout(frame.width, frame.height, tuple(shapes), tuple(runs))
