"""Where each player's part of the sheet lies: the sectors cut by the lines from the centre and
the bands (concentric rectangles, homothetic about the centre) inside them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.sheet.model import Frame, Point


@dataclass(frozen=True, slots=True)
class Sector:
    """One player's part of the drawing: the clockwise path along the edge and its whists parts."""

    seat: int
    path: tuple[Point, ...]  # on the outer edge, clockwise, from the previous player's line
    parts: tuple[tuple[tuple[Point, ...], int], ...]  # (sub-path, whists target)
    anchor: Point  # where the name tab sits on the edge
    splits: tuple[Point, ...] = field(default=())  # edge points of the whists split lines
    toward: Point = (0.0, 0.0)  # the tab goes from the anchor this way along the edge (0: centred)


def sectors(size: int, frame: Frame) -> tuple[Sector, ...]:
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
