"""The score sheet as a picture («пулька», spec/sheet.md): pure, synchronous, CPU-bound functions
that the bot awaits through `in_picture_thread`. A `Layout` is drawn with Pillow and saved as PNG,
deterministically: same layout, same pixels; or written as SVG for the Mini App (`sheet_svg`)."""

import asyncio
import contextvars
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache, partial
from html import escape
from typing import Final, ParamSpec, TypeVar

from PIL import Image, ImageDraw

from bot.sheet import model
from bot.sheet.layout import layout_sheet
from bot.sheet.model import Corrections, drawing_lock
from scoring.settle import Settlement
from scoring.sheet import Band, Sheet

P = ParamSpec("P")
R = TypeVar("R")
# One thread draws every picture. FreeType serves one thread at a time anyway (`drawing_lock`), and
# each further drawing thread took a malloc arena of its own: ~25 MB more RSS, at a random deal
# (docs/benchmarks.md "Memory").
_PICTURE_THREAD: Final = ThreadPoolExecutor(max_workers=1, thread_name_prefix="picture")


async def in_picture_thread(draw: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`draw(*args, **kwargs)` in the picture thread, with this task's context (as `to_thread`)."""
    run = partial(contextvars.copy_context().run, draw, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_PICTURE_THREAD, run)


LIMIT: Final = 200 * 1024  # spec/sheet.md: a PNG under 200 KB
BUSY: Final = 400_000  # px² of text from which the RGB PNG nears `LIMIT`: the palette at once
SUPERSAMPLE: Final = 2
LEVEL: Final = 3  # zlib level: 1 is no faster on these pictures, 6 twice as slow for 15 % less


@lru_cache(maxsize=4096)
def mask(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """The text's coverage (mode L) and where its top-left lies from the run's origin: runs sit on
    whole pixels, so one mask serves every run of the same text, size and weight."""
    f = model.font(size, bold)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor="la"))
    coverage = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(coverage).text((-left, -top), text, fill=255, font=f, anchor="la")
    return coverage, left, top


def rasterise(layout: model.Layout) -> Image.Image:
    """The layout's pixels (RGB): shapes drawn twice as large, scaled down (smooth), then text."""
    k = SUPERSAMPLE

    def box(b: model.Box) -> model.Box:
        return (b[0] * k, b[1] * k, b[2] * k - 1, b[3] * k - 1)

    big = Image.new("RGB", (layout.width * k, layout.height * k), model.BACKGROUND)
    draw = ImageDraw.Draw(big)
    for shape in layout.shapes:
        if isinstance(shape, model.Region):
            if shape.fill is not None:
                draw.polygon([(x * k, y * k) for x, y in shape.points], fill=shape.fill)
        elif isinstance(shape, model.Line):
            (x0, y0), (x1, y1) = shape.start, shape.end
            draw.line((x0 * k, y0 * k, x1 * k, y1 * k), fill=shape.color, width=shape.width * k)
        elif isinstance(shape, model.Circle):
            (cx, cy), r = shape.centre, shape.radius
            bounds = box((cx - r, cy - r, cx + r, cy + r))
            draw.ellipse(bounds, fill=shape.fill, outline=shape.outline, width=shape.width * k)
        else:
            radius, width = shape.radius * k, shape.width * k
            draw.rounded_rectangle(box(shape.box), radius, shape.fill, shape.outline, width)
    image = big.reduce(k)
    for run in layout.runs:
        coverage, left, top = mask(run.text, run.size, run.bold)
        image.paste(run.color, (int(run.x) + left, int(run.y) + top), coverage)
    return image


def is_busy(layout: model.Layout) -> bool:
    """So much text (a game of 20 deals or so) that the RGB PNG would come near `LIMIT`."""
    return sum((r.box[2] - r.box[0]) * (r.box[3] - r.box[1]) for r in layout.runs) > BUSY


def _palette() -> Image.Image:
    """The drawing's flat colours, then a 6×6×6 colour cube and a grey ramp to 256: a fixed
    palette, so every flat colour stays exact and an edge takes the nearest colour, fast."""
    m = model
    flat = [m.BACKGROUND, m.INK, m.MUTED, m.LINE, m.THIN, m.RED, m.PLUS, m.MINUS, m.CLOSED_FILL]
    flat += [m.CLOSED_MARK, m.STRIP_FILL, *m.SEAT_COLOURS, *m.SEAT_TINTS, "#ffffff", "#000000"]
    colours = list(dict.fromkeys(tuple(bytes.fromhex(name[1:])) for name in flat))
    steps = range(0, 256, 51)
    cube = [(r, g, b) for r in steps for g in steps for b in steps]
    colours += [c for c in dict.fromkeys(cube) if c not in colours]
    colours += [(g, g, g) for g in range(8, 256, 10) if (g, g, g) not in colours]
    holder = Image.new("P", (1, 1))
    holder.putpalette([channel for rgb in colours[:256] for channel in rgb])
    return holder


PALETTE: Final = _palette()


def encode_png(image: Image.Image, busy: bool = False, limit: int | None = LIMIT) -> bytes:
    """The PNG: RGB, or in `PALETTE` when `busy` or the RGB one passes `limit` (None: never)."""
    if not busy:
        out = io.BytesIO()
        image.save(out, "PNG", compress_level=LEVEL)
        if limit is None or out.tell() < limit:
            return out.getvalue()
    return encode_png(image.quantize(palette=PALETTE, dither=Image.Dither.NONE), limit=None)


def render_sheet_png(
    sheet: Sheet,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    fold: bool = True,
) -> bytes:
    """The chat's picture as PNG bytes (1010×1279, under 200 KB; arguments: `layout_sheet`)."""
    with drawing_lock:
        layout = layout_sheet(
            sheet, lang, settlement=settlement, corrections=corrections, fold=fold
        )
        image = rasterise(layout)
    return encode_png(image, is_busy(layout)) if fold else encode_png(image, limit=None)


# The full sheet (`/sheet full`) as an RGB PNG: every total, none folded behind "…".
render_document_png: Final = partial(render_sheet_png, fold=False)


SVG_FONT: Final = "'DejaVu Sans', 'Verdana', sans-serif"


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
    """The layout as one `<svg>` element (UTF-8 text), scaled by its viewBox to any width. Each total
    keeps `data-record` (its index in `sheet.records`), `data-deal` (the deal's number; 0 for an
    adjustment) and `data-band`, for a tap to show the deal's entries; text is held to the measured
    width (`textLength`) when the page's DejaVu fonts are missing. Classes let the page restyle it
    to the Telegram theme: `bg`, `tint`, `ink`/`muted`, `line`."""
    head = (  # a run's own spaces (`сдаёт: `, ` в.`) are kept: SVG would collapse them
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sheet" '
        f'viewBox="0 0 {layout.width} {layout.height}" xml:space="preserve" '
        f'font-family="{_attr(SVG_FONT)}" role="img">'
    )
    shapes = [_shape(shape, i == 0) for i, shape in enumerate(layout.shapes)]
    runs = [_run(run, sheet) for run in layout.runs]
    return head + "".join(shapes + runs) + "</svg>"
