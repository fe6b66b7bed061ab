"""Plane checks for the layout tests: a box inside a polygon, boxes that overlap."""

from __future__ import annotations

from collections.abc import Sequence

from bot.sheet.model import Box, Point

EPS = 1e-6


def _on_segment(p: Point, a: Point, b: Point) -> bool:
    cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    if abs(cross) > EPS * max(1.0, abs(b[0] - a[0]) + abs(b[1] - a[1])):
        return False
    return (
        min(a[0], b[0]) - EPS <= p[0] <= max(a[0], b[0]) + EPS
        and min(a[1], b[1]) - EPS <= p[1] <= max(a[1], b[1]) + EPS
    )


def point_in_polygon(p: Point, polygon: Sequence[Point]) -> bool:
    """Inside or on the edge."""
    inside = False
    count = len(polygon)
    for i in range(count):
        a, b = polygon[i], polygon[(i + 1) % count]
        if _on_segment(p, a, b):
            return True
        if (a[1] > p[1]) != (b[1] > p[1]):
            x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if p[0] < x:
                inside = not inside
    return inside


def _segment_enters_box(a: Point, b: Point, box: Box) -> bool:
    """Whether the segment a–b passes through the open interior of the box (Liang–Barsky)."""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q <= 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return t1 - t0 > EPS


def box_in_polygon(box: Box, polygon: Sequence[Point]) -> bool:
    """The box lies in the polygon: its corners are inside and no edge of the polygon cuts it."""
    x0, y0, x1, y1 = box
    if not all(point_in_polygon(c, polygon) for c in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))):
        return False
    inner = (x0 + EPS, y0 + EPS, x1 - EPS, y1 - EPS)
    count = len(polygon)
    return not any(
        _segment_enters_box(polygon[i], polygon[(i + 1) % count], inner) for i in range(count)
    )


def overlaps(a: Box, b: Box) -> bool:
    """The open interiors meet (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlapping_pairs(boxes: Sequence[Box]) -> list[tuple[int, int]]:
    """Every pair of overlapping boxes, by a sweep over x."""
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][0])
    active: list[int] = []
    found: list[tuple[int, int]] = []
    for i in order:
        active = [j for j in active if boxes[j][2] > boxes[i][0]]
        found += [(j, i) for j in active if overlaps(boxes[i], boxes[j])]
        active.append(i)
    return found
