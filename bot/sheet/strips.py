"""A picture's pixels held compressed: PNG rows in strips, each strip deflated alone.

The PNG (`raster.encode_png`'s format: 8-bit RGB rows unfiltered, or the fixed 256-colour
`PALETTE`) is one zlib stream of strips of `STRIP` rows, deflated by ISA-L (`isal`, level 1: three
times zlib's speed on these strips, 6 % larger; docs/decisions.md). Each strip is a fresh raw
deflate stream ending in a full flush, so its bytes depend on its rows only: it is inflated alone
(to change a few of its rows) and written into the stream as it is, and a strip whose rows did not
change keeps its bytes. The stream's Adler-32 is combined from the strips' own.

A kept picture (`bot.sheet.canvas`) holds its pixels only so: 1010×1280 RGB rows are 3.9 MB, their
strips 150–400 KB.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Final

from isal import isal_zlib
from PIL import Image

from bot.sheet.model import (
    BACKGROUND,
    CLOSED_FILL,
    CLOSED_MARK,
    INK,
    LINE,
    MINUS,
    MUTED,
    PLUS,
    RED,
    SEAT_COLOURS,
    SEAT_TINTS,
    STRIP_FILL,
    THIN,
)

STRIP: Final = 8  # rows, the strips the PNG stream is compressed by (a line of text spans 3–4)
HEADER: Final = b"\x78\x5e"  # zlib header, deflate with a 32 KB window, "default" level class
LEVEL: Final = 1  # ISA-L's levels go 0–3; 1 and 2 compress alike, 3 is 2.5 times slower
END: Final = b"\x03\x00"  # the last deflate block: empty, final
ADLER: Final = 65521


def deflate(data: bytes) -> bytes:
    """One strip compressed alone: raw deflate blocks ending byte-aligned (a full flush)."""
    packer = isal_zlib.compressobj(LEVEL, isal_zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush(isal_zlib.Z_FULL_FLUSH)


def inflate(packed: bytes) -> bytes:
    """A strip's rows again: its blocks inflated alone (it ends in a full flush, not a final
    block, so the stream is read to its end rather than finished)."""
    return isal_zlib.decompressobj(-15).decompress(packed)


def strips(height: int) -> int:
    """How many strips a picture of `height` rows has."""
    return (height + STRIP - 1) // STRIP


def filtered(raw: bytes, rows: int) -> bytes:
    """Raw pixel rows as PNG rows, each after its filter byte 0 (none)."""
    stride = len(raw) // rows
    return b"".join(b"\0" + raw[i : i + stride] for i in range(0, len(raw), stride))


def unfiltered(data: bytes, rows: int) -> bytes:
    """PNG rows (filter byte 0) as raw pixel rows: their filter bytes taken out."""
    step = len(data) // rows
    return b"".join(data[i + 1 : i + step] for i in range(0, len(data), step))


def image_rows(image: Image.Image, top: int, bottom: int) -> bytes:
    """Rows `top` to `bottom` of `image` as PNG rows."""
    part = (
        image.crop((0, top, image.width, bottom)) if (top, bottom) != (0, image.height) else image
    )
    return filtered(part.tobytes(), bottom - top)


@dataclass(slots=True)
class Stream:
    """A PNG stream's strips as last compressed: their bytes, and each one's Adler-32 and length
    (the stream's checksum is combined from them)."""

    packed: list[bytes] = field(default_factory=list)
    sums: list[tuple[int, int]] = field(default_factory=list)

    def size(self, count: int) -> None:
        if len(self.packed) != count:
            self.packed, self.sums = [b""] * count, [(1, 0)] * count

    def put(self, index: int, rows: bytes) -> None:
        self.packed[index] = deflate(rows)
        self.sums[index] = (isal_zlib.adler32(rows), len(rows))

    def rows(self, index: int) -> bytes:
        """Strip `index`'s PNG rows, inflated."""
        return inflate(self.packed[index])

    @property
    def held(self) -> int:
        """What the strips hold: their compressed bytes and a list slot and checksum each."""
        return sum(map(len, self.packed)) + 120 * len(self.packed)

    def zlib(self) -> bytes:
        check = 1
        for adler, length in self.sums:
            check = adler32_combine(check, adler, length)
        return b"".join((HEADER, *self.packed, END, struct.pack(">I", check)))


def adler32_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs (zlib's adler32_combine)."""
    rem = length % ADLER
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % ADLER
    sum1 += (second & 0xFFFF) + ADLER - 1
    sum2 += ((first >> 16) & 0xFFFF) + ((second >> 16) & 0xFFFF) + ADLER - rem
    sum1 %= ADLER
    sum2 %= ADLER
    return sum1 | (sum2 << 16)


def _chunk(tag: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + tag + data + struct.pack(">I", isal_zlib.crc32(tag + data))
    )


def png(width: int, height: int, colour: int, idat: bytes, palette: bytes | None = None) -> bytes:
    """A PNG of 8-bit samples, `colour` type 2 (RGB) or 3 (palette)."""
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    chunks = [b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header)]
    if palette is not None:
        chunks.append(_chunk(b"PLTE", palette))
    chunks += [_chunk(b"IDAT", idat), _chunk(b"IEND", b"")]
    return b"".join(chunks)


def rgb_png(width: int, height: int, stream: Stream) -> bytes:
    return png(width, height, 2, stream.zlib())


def paletted_png(width: int, height: int, stream: Stream) -> bytes:
    return png(width, height, 3, stream.zlib(), bytes(PALETTE))


def quantized(width: int, rgb_rows: bytes) -> bytes:
    """RGB PNG rows as `PALETTE` PNG rows: every flat colour of the drawing stays exact, the
    edges of letters and lines take the nearest colour. The palette is fixed, so each pixel's
    index depends on that pixel only and a strip is mapped again only when its pixels changed."""
    rows = len(rgb_rows) // (3 * width + 1)
    image = Image.frombytes("RGB", (width, rows), unfiltered(rgb_rows, rows))
    return filtered(image.quantize(palette=_HOLDER, dither=Image.Dither.NONE).tobytes(), rows)


def _palette() -> list[int]:
    """The drawing's flat colours (model.py), then a 6×6×6 colour cube and a grey ramp to 256."""
    flat = [BACKGROUND, INK, MUTED, LINE, THIN, RED, PLUS, MINUS, CLOSED_FILL, CLOSED_MARK]
    flat += [STRIP_FILL, *SEAT_COLOURS, *SEAT_TINTS, "#ffffff", "#000000"]
    colours: list[tuple[int, int, int]] = []
    for name in flat:
        rgb = (int(name[1:3], 16), int(name[3:5], 16), int(name[5:7], 16))
        if rgb not in colours:
            colours.append(rgb)
    steps = (0, 51, 102, 153, 204, 255)
    for r in steps:
        for g in steps:
            for b in steps:
                if (r, g, b) not in colours:
                    colours.append((r, g, b))
    grey = 8
    while len(colours) < 256:
        if (grey, grey, grey) not in colours:
            colours.append((grey, grey, grey))
        grey += 10
    return [channel for rgb in colours[:256] for channel in rgb]


PALETTE: Final = _palette()
_HOLDER = Image.new("P", (1, 1))
_HOLDER.putpalette(PALETTE)
