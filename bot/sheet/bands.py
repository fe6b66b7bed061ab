"""The sheet's bands (totals as paper writes them, `2.4.8.10`, a correction `12³`, and captions),
the players' name tabs and the circle in the centre."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Final

from bot.sheet.flow import Area, Item, Obstacle, Seg, flow, lay
from bot.sheet.model import (
    CLOSED_MARK,
    INK,
    LINE,
    MUTED,
    Circle,
    Corrections,
    Frame,
    Point,
    Rect,
    RunKind,
    Style,
    TextRun,
    metrics,
    text_width,
)
from locales.numbers import SUPERSCRIPT, format_amount
from scoring.sheet import Band, Sheet


def total_items(
    band: Band, values: Sequence[tuple[int, Fraction]], colour: str, corrections: Corrections
) -> list[Item]:
    """The band's totals in record order, `2.4.8.10`, the latest bold in the player's colour. A
    corrected total is the wrong value, a dot, the right value and the correction's number; a
    value corrected away (its record no longer writes here) stays, grey, with its number."""
    written = {record for record, _ in values}
    away = [(r, None) for b, r in corrections if b == band and r not in written]
    entries: list[tuple[int, Fraction | None]] = sorted([*values, *away], key=lambda e: e[0])
    latest = values[-1][0] if values else None
    items: list[Item] = []
    for i, (record, total) in enumerate(entries):
        dot = "" if i == len(entries) - 1 else "."
        fix = corrections.get((band, record))
        segs: list[Seg] = []
        if fix is not None:
            wrong = format_amount(fix.wrong) + ("" if total is None else ".")
            segs.append(Seg(wrong, color=MUTED, kind=RunKind.WRONG, band=band))
        if total is not None:
            text = format_amount(total) + ("" if fix is not None else dot)
            if record == latest:
                segs.append(
                    Seg(text, bold=True, color=colour, band=band, record=record, latest=True)
                )
            else:
                segs.append(Seg(text, band=band, record=record))
        if fix is not None:
            mark = str(fix.number).translate(SUPERSCRIPT) + dot
            segs.append(Seg(mark, color=MUTED, kind=RunKind.MARK, band=band))
        items.append(Item(tuple(segs)))
    return items


def _caption_items(
    band: Band, words: Sequence[str], closed: bool, rel: float = 1.0, most: int = 0
) -> list[Item]:
    """The caption's words, a closed pool's ✔ after them."""
    items = [
        Item((Seg(word, rel, color=MUTED, kind=RunKind.CAPTION, band=band, most=most),), gap=0.3)
        for word in words
    ]
    if closed:
        mark = Seg("✔", rel, True, CLOSED_MARK, RunKind.MARK, band, most=most)
        items.append(Item((mark,), gap=0.3))
    return items


SHORTEST: Final = 5  # characters, "…" included: a caption is cut no shorter to let totals in


def _shorter(words: list[str]) -> list[str] | None:
    """The caption with its last word a letter shorter and ending in "…", or None."""
    if len(words[-1]) <= 2:
        return None
    return [*words[:-1], words[-1].removesuffix("…")[:-1] + "…"]


def caption_head(
    band: Band, caption: str, area: Area, style: Style, closed: bool = False
) -> tuple[list[TextRun], Area, list[list[Item]]]:
    """The band's word first in the band, wrapping (`Висты` / `→ Клара`), a name too long cut with
    "…", a closed pool's ending in ✔. With `Style.caption_flows` it is returned as heads to flow
    before the totals (then shorter ones, for a band too narrow beside its latest total); else it
    is drawn here and the totals' area returned avoids it. Returns (runs, area, heads)."""
    words: list[str] = []
    for word in caption.split(" "):  # an arrow stays with the name after it: "→ Клара"
        if words and words[-1] == "→":
            words[-1] += " " + word
        else:
            words.append(word)
    runs: list[TextRun] = []
    shorter: list[str] | None = words
    while shorter is not None:
        words = shorter
        runs = flow(_caption_items(band, words, closed), area, *style.caption)
        if runs:
            break
        shorter = _shorter(words)
    if not runs:
        return [], area, []
    if style.caption_flows:
        rel = style.caption[1] / style.totals[-1]
        heads = []
        variant: list[str] | None = words
        while variant is not None:
            heads.append(_caption_items(band, variant, closed, rel, style.caption[0]))
            variant = _shorter(variant)
            if variant is not None and len(variant[-1].removeprefix("→ ")) < SHORTEST:
                break
        return [], area, heads
    x0, y0 = min(r.box[0] for r in runs), min(r.box[1] for r in runs)
    x1, y1 = max(r.box[2] for r in runs), max(r.box[3] for r in runs)
    around = Obstacle((x0 - area.pad, y0 - area.pad, x1 + 0.35 * runs[0].size, y1 + area.pad / 2))
    # Nothing above the caption: the totals read after it.
    left, right = min(x for x, _ in area.points), max(x for x, _ in area.points)
    above = Obstacle((left - 1, area.top - 1, right + 1, y0 - area.pad))
    return runs, Area(area.points, (*area.obstacles, around, above), area.pad), []


def band_runs(
    band: Band,
    caption: str,
    values: Sequence[tuple[int, Fraction]],
    area: Area,
    colour: str,
    closed: bool,
    corrections: Corrections,
    style: Style,
) -> list[TextRun]:
    """The band's caption and its totals (`flow.lay`)."""
    drawn, area, heads = caption_head(band, caption, area, style, closed)
    return drawn + lay(band, total_items(band, values, colour, corrections), area, style, heads)


def name_tab(
    name: str,
    anchor: Point,
    frame: Frame,
    colour: str,
    limit: float,
    style: Style,
    toward: Point = (0.0, 0.0),
) -> tuple[Rect, TextRun, Obstacle]:
    """The name in white in a coloured tab at `anchor` on the edge (centred, at a corner, or going
    `toward` along the edge), at most `limit` px of text: smaller type, then cut with "…"."""
    x0, y0, x1, y1 = frame.sheet
    size, smallest = style.name
    text = name
    while size > smallest and text_width(text, size, True) > limit:
        size -= 1
    while text_width(text, size, True) > limit and len(text) > 1:
        text = text[:-2] + "…"
    ascent, descent = metrics(size, True)
    w, h = text_width(text, size, True) + 2 * 12, ascent + descent + 2 * 6
    inset = 8.0
    ax, ay = anchor
    dx, dy = toward
    ax, ay = ax + dx * (w / 2 + inset), ay + dy * (h / 2 + inset)
    bx = round(x0 + inset if ax == x0 else (x1 - inset - w if ax == x1 else ax - w / 2))
    by = round(y0 + inset if ay == y0 else (y1 - inset - h if ay == y1 else ay - h / 2))
    inner = (bx + 12, by + 6, bx + w - 12, by + h - 6)
    run = TextRun(text, bx + 12, by + 6, inner, size, True, "#ffffff", RunKind.NAME)
    tab = Rect((bx, by, bx + w, by + h), colour, None, 0, h / 2)
    return tab, run, Obstacle((bx - 2, by - 2, bx + w + 2, by + h + 2))


def centre_circle(
    sheet: Sheet, frame: Frame, words: Mapping[str, str], style: Style, lang: str = "en"
) -> tuple[Circle, list[TextRun]]:
    """The circle in the centre: the pool size over the stake (or the word "pool" without one),
    a text too wide for it shrinking down to the smallest number."""
    cx, cy = frame.centre
    r = frame.radius
    runs: list[TextRun] = []
    number, word = style.centre
    lines: list[tuple[str, int, bool, str]] = [(str(sheet.rules.pool_target), number, True, INK)]
    if sheet.game.stake is not None:
        stake = format_amount(sheet.game.stake, decimals=True, lang=lang)
        lines.append((stake, style.strip[1], False, MUTED))
    else:
        lines.append((words["centre_pool"], word, False, MUTED))
    total = sum(sum(metrics(s, b)) for _, s, b, _ in lines)
    y = round(cy - total / 2)
    for text, size, bold, colour in lines:
        while size > style.strip[1] and text_width(text, size, bold) > 2 * r - 14:
            size -= 1
        w = text_width(text, size, bold)
        ascent, descent = metrics(size, bold)
        x = round(cx - w / 2)
        box = (x, y, x + w, y + ascent + descent)
        runs.append(TextRun(text, x, y, box, size, bold, colour, RunKind.CENTRE))
        y += ascent + descent
    return Circle((cx, cy), r, "#ffffff", LINE, 3), runs
