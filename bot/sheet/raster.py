"""Draw a `Layout` with Pillow and encode it as PNG. Deterministic: same layout, same pixels (and
almost always the same bytes: ISA-L now and then deflates a strip another valid way).

Text runs sit on whole pixels, so the coverage mask of a run depends only on its text, size and
weight; masks are cached and pasted, which spares FreeType most of the work on the next picture.
The shapes under the text are drawn at twice the size and scaled down (smooth diagonals), and cached:
they change only when a pool closes.
The PNG is written unfiltered, deflated by ISA-L in strips (`bot.sheet.strips`): Pillow's adaptive
row filters cost more time than they save bytes on a flat drawing like this one.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from bot.sheet.canvas import encode_image
from bot.sheet.layout import BACKGROUND, Circle, Layout, Line, Rect, Region, Shape, font


@lru_cache(maxsize=8192)
def mask(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """The text's coverage (mode L) and where its top-left lies from the run's origin."""
    f = font(size, bold)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor="la"))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=f, anchor="la")
    return mask, left, top


SUPERSAMPLE = 2  # the drawing under the text is drawn twice as large and scaled down: smooth lines


def _draw_shapes(draw: ImageDraw.ImageDraw, shapes: tuple[Shape, ...], k: int) -> None:
    def box(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        return (b[0] * k, b[1] * k, b[2] * k - 1, b[3] * k - 1)

    for shape in shapes:
        if isinstance(shape, Region):
            if shape.fill is not None:
                draw.polygon([(x * k, y * k) for x, y in shape.points], fill=shape.fill)
        elif isinstance(shape, Line):
            (x0, y0), (x1, y1) = shape.start, shape.end
            draw.line((x0 * k, y0 * k, x1 * k, y1 * k), fill=shape.color, width=shape.width * k)
        elif isinstance(shape, Circle):
            (cx, cy), r = shape.centre, shape.radius
            draw.ellipse(
                box((cx - r, cy - r, cx + r, cy + r)),
                fill=shape.fill,
                outline=shape.outline,
                width=shape.width * k,
            )
        elif isinstance(shape, Rect):
            draw.rounded_rectangle(
                box(shape.box),
                radius=shape.radius * k,
                fill=shape.fill,
                outline=shape.outline,
                width=shape.width * k,
            )


@lru_cache(maxsize=8)  # 3.9 MB each: the pictures of the few games being played now
def _background(width: int, height: int, shapes: tuple[Shape, ...]) -> Image.Image:
    """Everything but the text; the same for every deal until a pool closes or a name changes."""
    big = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), BACKGROUND)
    _draw_shapes(ImageDraw.Draw(big), shapes, SUPERSAMPLE)
    return big.reduce(SUPERSAMPLE)


def background(layout: Layout) -> Image.Image:
    """The layout's drawing under the text (kept, not to be drawn on)."""
    return _background(layout.width, layout.height, layout.shapes)


def rasterise(layout: Layout) -> Image.Image:
    image = _background(layout.width, layout.height, layout.shapes).copy()
    for run in layout.runs:
        coverage, left, top = mask(run.text, run.size, run.bold)
        image.paste(run.color, (int(run.x) + left, int(run.y) + top), coverage)
    return image


LIMIT = 200 * 1024  # spec/sheet.md: a PNG under 200 KB
BUSY = 400_000  # px² of text boxes from which a picture goes to the palette without trying RGB


def is_busy(layout: Layout) -> bool:
    """So much text that the RGB stream comes near `LIMIT`: the stream grows with the area the
    text covers (its letters' edges), some 165 KB at 400,000 px² (a game of 20 deals or so at
    the chat picture's type; 120–210 KB from the first deal to the 200th). Such a picture is
    written in the palette at once and never compressed twice. One below it is RGB unless its
    stream passes `LIMIT` after all."""
    ink = sum((run.box[2] - run.box[0]) * (run.box[3] - run.box[1]) for run in layout.runs)
    return ink > BUSY


def encode_png(image: Image.Image, busy: bool = False) -> bytes:
    """An 8-bit RGB PNG, rows unfiltered, deflated in strips (`bot.sheet.canvas`); a picture
    that would pass `LIMIT` (most sheets past some 20 deals) is written in the fixed 256-colour
    palette instead. Encoded whole here; the bot keeps the strips that did not change."""
    return encode_image(image, LIMIT, busy)
