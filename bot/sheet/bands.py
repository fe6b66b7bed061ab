"""The columns of the sheet: each band's running totals as paper writes them (`2.4.8.10`, a
correction `12³`, a closed pool's ✔), the players' name tabs and the circle in the centre."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from bot.sheet.flow import Area, Item, Obstacle, Seg, flow, place
from bot.sheet.measure import metrics, text_width
from bot.sheet.model import (
    CLOSED_MARK,
    INK,
    LINE,
    MAX_SIZE,
    MIN_SIZE,
    MUTED,
    NAME_MAX,
    NAME_MIN,
    RED,
    Circle,
    Corrections,
    Frame,
    Point,
    Rect,
    RunKind,
    TextRun,
)
from locales.numbers import SUPERSCRIPT, format_amount
from scoring.sheet import Band, Sheet


def suit_segs(text: str, **style: object) -> list[Seg]:
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
            mark = str(fix.number).translate(SUPERSCRIPT) + ("" if i == last else ".")
            segs.append(Seg(mark, color=MUTED, kind=RunKind.MARK, band=band))
        if i == last and closed:
            segs.append(Seg(" ✔", bold=True, color=CLOSED_MARK, kind=RunKind.MARK, band=band))
        items.append(Item(tuple(segs)))
    return items


def band_runs(
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
        placed = place([head, ellipsis, *totals[-mid:]], area, MIN_SIZE)
        if placed is None:
            hi = mid - 1
        else:
            best, lo = placed, mid + 1
    return best


def name_tab(
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


def centre_circle(
    sheet: Sheet, frame: Frame, words: Mapping[str, str], lang: str = "en"
) -> tuple[Circle, list[TextRun]]:
    """The circle in the centre: the pool size, and the stake written the language's way."""
    cx, cy = frame.centre
    r = frame.radius
    runs: list[TextRun] = []
    lines: list[tuple[str, int, bool, str]] = [(str(sheet.rules.pool_target), 34, True, INK)]
    if sheet.game.stake is not None:
        stake = format_amount(sheet.game.stake, decimals=True, lang=lang)
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
