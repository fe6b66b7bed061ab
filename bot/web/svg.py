"""The sheet as SVG for the Mini App, from the same layout as the PNG (`bot.sheet`).

Each total keeps `data-record` (its index in `sheet.records`), `data-deal` (the deal's number; 0
for an adjustment) and `data-band`, for a tap to show the deal's entries; text is held to the
measured width (`textLength`) when the page's DejaVu fonts are missing. Classes let the page
restyle it to the Telegram theme: `bg`, `tint`, `ink`/`muted`, `line`.
"""

from __future__ import annotations

from html import escape
from typing import Final

from bot.sheet import model
from scoring.sheet import Band, Sheet

FONT: Final = "'DejaVu Sans', 'Verdana', sans-serif"


def _n(value: float) -> str:
    """A coordinate: at most two decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _attr(value: object) -> str:
    """An attribute's value, escaped; no colour is `none`."""
    return "none" if value is None else escape(str(value), quote=True)


def band_key(band: Band) -> str:
    """`<player>:<column>[:<target>]`, seats as indexes: the band a total stands in."""
    key = f"{band.player}:{band.column.value}"
    return key if band.target is None else f"{key}:{band.target}"


def _shape(shape: model.Shape, first: bool) -> str:
    if isinstance(shape, model.Region):
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in shape.points)
        cls = "tint" if shape.fill in model.SEAT_TINTS else ("band" if shape.band else "region")
        return f'<polygon class="{cls}" points="{points}" fill="{_attr(shape.fill)}"/>'
    if isinstance(shape, model.Line):
        (x0, y0), (x1, y1) = shape.start, shape.end
        return (
            f'<line class="line" x1="{_n(x0)}" y1="{_n(y0)}" x2="{_n(x1)}" y2="{_n(y1)}" '
            f'stroke="{_attr(shape.color)}" stroke-width="{shape.width}"/>'
        )
    if isinstance(shape, model.Circle):
        (cx, cy), r = shape.centre, shape.radius
        return (
            f'<circle class="centre" cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" '
            f'fill="{_attr(shape.fill)}" stroke="{_attr(shape.outline)}" '
            f'stroke-width="{shape.width}"/>'
        )
    x0, y0, x1, y1 = shape.box
    cls = "bg" if first and shape.fill == model.BACKGROUND else "rect"
    stroke = "" if shape.outline is None else f' stroke="{_attr(shape.outline)}"'
    width = f' stroke-width="{shape.width}"' if shape.outline is not None else ""
    radius = f' rx="{_n(shape.radius)}"' if shape.radius else ""
    return (
        f'<rect class="{cls}" x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" '
        f'height="{_n(y1 - y0)}" fill="{_attr(shape.fill)}"{stroke}{width}{radius}/>'
    )


def _run(run: model.TextRun, sheet: Sheet) -> str:
    ascent, _ = model.metrics(run.size, run.bold)
    width = run.box[2] - run.box[0]
    tone = "ink" if run.color == model.INK else ("muted" if run.color == model.MUTED else "tone")
    attrs = [
        f'class="run {run.kind.value} {tone}{" latest" if run.latest else ""}"',
        f'x="{_n(run.x)}" y="{_n(run.y + ascent)}" font-size="{run.size}" fill="{_attr(run.color)}"',
    ]
    if run.bold:
        attrs.append('font-weight="bold"')
    if width > 0 and run.kind is not model.RunKind.CAPTION:
        attrs.append(f'textLength="{_n(width)}" lengthAdjust="spacingAndGlyphs"')
    if run.band is not None:
        attrs.append(f'data-band="{band_key(run.band)}"')
    if run.record is not None and 0 <= run.record < len(sheet.records):
        attrs.append(f'data-record="{run.record}" data-deal="{sheet.records[run.record].number}"')
    return f"<text {' '.join(attrs)}>{escape(run.text, quote=False)}</text>"


def sheet_svg(layout: model.Layout, sheet: Sheet) -> str:
    """The layout as one `<svg>` element (UTF-8 text), scaled by its viewBox to any width."""
    head = (  # a run's own spaces (`сдаёт: `, ` в.`) are kept: SVG would collapse them
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sheet" '
        f'viewBox="0 0 {layout.width} {layout.height}" xml:space="preserve" '
        f'font-family="{_attr(FONT)}" role="img">'
    )
    shapes = [_shape(shape, i == 0) for i, shape in enumerate(layout.shapes)]
    runs = [_run(run, sheet) for run in layout.runs]
    return head + "".join(shapes + runs) + "</svg>"
