"""The sheet picture's vocabulary (spec/sheet.md): sizes, colours, frames, shapes, text runs, fonts."""

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from functools import cache, lru_cache
from pathlib import Path
from typing import Final

from PIL import ImageFont

from scoring.sheet import Band

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1

FONT_DIR: Final = Path(__file__).parent / "fonts"
REGULAR: Final = FONT_DIR / "DejaVuSans.ttf"
BOLD: Final = FONT_DIR / "DejaVuSans-Bold.ttf"

# Telegram for iOS fits a photo into 300×380 pt on a phone (docs/decisions.md): the 1010-px-wide
# picture is seen 300 px wide, and every number must be 12 px there, every word 9 px.
PHONE_BOX: Final = (300, 380)
WIDTH: Final = 1010
HEIGHT: Final = WIDTH * PHONE_BOX[1] // PHONE_BOX[0]  # 1279
PHONE_NUMBER: Final = 12
PHONE_LABEL: Final = 9
NUMBER_MIN: Final = math.ceil(PHONE_NUMBER * WIDTH / PHONE_BOX[0])  # 41 px in the picture
LABEL_MIN: Final = math.ceil(PHONE_LABEL * WIDTH / PHONE_BOX[0])  # 31 px


@dataclass(frozen=True, slots=True)
class Style:
    """The type of one kind of picture, px: `totals` is the ladder a band's totals go down, then
    they fold `fold` at a time behind "…"; with `caption_flows` a caption shares its totals' rows
    (at `caption[1] / totals[-1]` of their size), else the totals go around and below it."""

    totals: tuple[int, ...]
    fold: int
    caption_flows: bool
    caption: tuple[int, int]  # largest, smallest
    name: tuple[int, int]
    strip: tuple[int, int]
    words: float
    centre: tuple[int, int]  # the pool size; the word under it when there is no stake


# The chat's picture: readable on a phone, a crowded band's oldest totals folded.
PHONE: Final = Style(
    totals=(52, 46, NUMBER_MIN),
    fold=4,
    caption_flows=True,
    caption=(34, LABEL_MIN),
    name=(38, LABEL_MIN),
    strip=(NUMBER_MIN, NUMBER_MIN),
    words=LABEL_MIN / NUMBER_MIN,
    centre=(56, LABEL_MIN),
)
# Every total (`/sheet full`, the Mini App): type shrinks to 9 px (read zoomed) before folding.
FULL: Final = replace(
    PHONE,
    totals=(*PHONE.totals, 36, 32, 28, 24, 21, 18, 16, 14, 12, 10, 9),
    fold=25,
    caption_flows=False,
    caption=(26, 16),
)

PAD: Final = 5.0  # between text and a band's edge

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
    sheet: Box
    strip: Box
    centre: Point  # of the circle, and of the concentric band rectangles
    scales: tuple[float, float]  # the mountain's and the pool's outer edges (0 centre, 1 edge)
    radius: float = 72


FRAMES: Final[Mapping[int, Frame]] = {
    # 3 players: a landscape drawing, the centre below its middle so that the top sector is not a
    # thin wedge; 4 players: a square. The strip under the drawing takes the rest of the height.
    3: Frame((14, 14, 996, 900), (14, 914, 996, 1265), (505, 510), (0.42, 0.62)),
    4: Frame((14, 14, 996, 996), (14, 1010, 996, 1265), (505, 505), (0.44, 0.64)),
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
    BALANCE = "balance"  # a player's balance in the strip (whists, money)
    LEGEND = "legend"  # the strip's legend of the marks a correction or help leaves


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
    wrong: Fraction
    number: int


Corrections = Mapping[tuple[Band, int], Correction]

# A FreeType face is used by one thread at a time (FreeType's rule): draw and measure under it.
drawing_lock = threading.Lock()


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """A shipped DejaVu face with Pillow's basic layout: the same measures everywhere."""
    path = BOLD if bold else REGULAR
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=1 << 16)
def text_width(text: str, size: int, bold: bool = False) -> int:
    """The advance of `text` in whole px, widened to its ink if a glyph reaches past it."""
    f = font(size, bold)
    return math.ceil(max(f.getlength(text), f.getbbox(text, anchor="la")[2]))


@cache
def metrics(size: int, bold: bool = False) -> tuple[int, int]:
    return font(size, bold).getmetrics()
