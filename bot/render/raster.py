"""Draw a `Layout` with Pillow and encode it as PNG. Deterministic: same layout, same bytes.

Text runs sit on whole pixels, so the coverage mask of a run depends only on its text, size and
weight; masks are cached and pasted, which spares FreeType most of the work on the next picture.
The PNG is written unfiltered with zlib level 3: Pillow's adaptive row filters cost more time than
they save bytes on a flat drawing like this one.
"""

from __future__ import annotations

import struct
import zlib
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.render.layout import BACKGROUND, Circle, Layout, Line, Rect, Region, font


@lru_cache(maxsize=8192)
def _mask(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """The text's coverage (mode L) and where its top-left lies from the run's origin."""
    f = font(size, bold)
    left, top, right, bottom = f.getbbox(text, anchor="la")
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=f, anchor="la")
    return mask, left, top


def rasterise(layout: Layout) -> Image.Image:
    image = Image.new("RGB", (layout.width, layout.height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for shape in layout.shapes:
        if isinstance(shape, Region):
            if shape.fill is not None:
                draw.polygon(shape.points, fill=shape.fill)
        elif isinstance(shape, Line):
            draw.line((shape.start, shape.end), fill=shape.color, width=shape.width)
        elif isinstance(shape, Circle):
            (cx, cy), r = shape.centre, shape.radius
            draw.ellipse(
                (cx - r, cy - r, cx + r, cy + r),
                fill=shape.fill,
                outline=shape.outline,
                width=shape.width,
            )
        elif isinstance(shape, Rect):
            if shape.radius:
                draw.rounded_rectangle(
                    shape.box,
                    radius=shape.radius,
                    fill=shape.fill,
                    outline=shape.outline,
                    width=shape.width,
                )
            else:
                draw.rectangle(
                    shape.box, fill=shape.fill, outline=shape.outline, width=shape.width
                )
    for run in layout.runs:
        mask, left, top = _mask(run.text, run.size, run.bold)
        image.paste(run.color, (int(run.x) + left, int(run.y) + top), mask)
    return image


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def encode_png(image: Image.Image) -> bytes:
    """An 8-bit RGB PNG, rows unfiltered."""
    width, height = image.size
    raw = image.convert("RGB").tobytes()
    stride = width * 3
    rows = b"".join(b"\0" + raw[i : i + stride] for i in range(0, len(raw), stride))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(rows, 3)),
            _chunk(b"IEND", b""),
        )
    )
