"""The sheet picture's vocabulary: sizes, colours, the frames of 3 and 4 players, and the layout's
shapes and text runs (spec/sheet.md). Pure data: nothing here measures or draws."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Final

from scoring.sheet import Band

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1

FONT_DIR: Final = Path(__file__).parent / "fonts"
REGULAR: Final = FONT_DIR / "DejaVuSans.ttf"
BOLD: Final = FONT_DIR / "DejaVuSans-Bold.ttf"

MAX_SIZE: Final = 28  # px, totals in a band
CAPTION_MAX: Final = 22  # px, a band's word: at least 20 px at the 1200 px width
CAPTION_MIN: Final = 20
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
    """A corrected running total: what was first written, and the correction's number."""

    wrong: Fraction
    number: int


Corrections = Mapping[tuple[Band, int], Correction]
