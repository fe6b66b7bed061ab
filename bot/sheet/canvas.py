"""The picture drawn again only where it changed, pixel for pixel the full drawing.

`Canvas.draw(layout)` keeps the last picture drawn over each background (the shapes: they change
only when a pool closes or a name changes, so in practice one per game) cut into tiles; a tile is
drawn again only when the text runs over it are not the ones drawn there last time. A pixel's colour
is the background's with the runs covering it pasted in layout order, so a tile drawn alone from
its runs in that order is the same as the whole picture drawn from scratch.

`Canvas.encode(image)` writes the PNG (`raster.encode_png`'s format: 8-bit RGB rows unfiltered; or,
past `raster.LIMIT`, the fixed 256-colour `PALETTE`) as one zlib stream of strips, deflated by ISA-L
(`isal`, level 1: three times zlib's speed on these strips, 6 % larger; docs/decisions.md),
each strip of 8 rows compressed alone (a fresh compressor ending in a full flush, so its bytes
depend on its rows only): a strip whose rows did not change keeps its compressed bytes. A redrawn
tile marks only the rows under the runs it gained or lost, so a deal recompresses the ~120 rows its
new text lies on, not the whole tiles' 64. A strip kept decodes to the rows it would be
compressed from now (ISA-L may pick another valid encoding of them now and then: the pixels are the
same, not always the bytes); the size of the RGB stream decides the encoding before anything else
is written, so nothing is encoded twice.
"""

from __future__ import annotations

import struct
import time
from collections import OrderedDict
from collections.abc import Callable
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
    Layout,
    Shape,
    TextRun,
)

TILE: Final = 64  # px, the tiles a picture is redrawn by
STRIP: Final = 8  # rows, the strips the PNG stream is compressed by (a line of text spans 3–4)
KEPT: Final = 24  # pictures kept (1010×1280 RGB, 3.9 MB each, and their compressed strips)
IDLE: Final = 15 * 60.0  # seconds a kept picture waits for its game's next picture, then goes
HEADER: Final = b"\x78\x5e"  # zlib header, deflate with a 32 KB window, "default" level class
LEVEL: Final = 1  # ISA-L's levels go 0–3; 1 and 2 compress alike, 3 is 2.5 times slower
END: Final = b"\x03\x00"  # the last deflate block: empty, final

RunKey = tuple[str, int, int, int, bool, str, int]  # text, x, y, size, bold, colour, height
Tile = tuple[int, int]
Masks = Callable[[str, int, bool], tuple[Image.Image, int, int]]  # a run's coverage, its offset
Placed = tuple[TextRun, RunKey, Image.Image, tuple[Tile, ...]]  # a run, its key, mask and tiles


def deflate(data: bytes) -> bytes:
    """One strip compressed alone: raw deflate blocks ending byte-aligned (a full flush)."""
    packer = isal_zlib.compressobj(LEVEL, isal_zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush(isal_zlib.Z_FULL_FLUSH)


@dataclass(slots=True)
class _Stream:
    """A PNG stream's strips as last compressed: their bytes, and each one's Adler-32 and length
    (the stream's checksum is combined from them; the rows themselves are not kept)."""

    packed: list[bytes] = field(default_factory=list)
    sums: list[tuple[int, int]] = field(default_factory=list)

    def size(self, count: int) -> None:
        if len(self.packed) != count:
            self.packed, self.sums = [b""] * count, [(1, 0)] * count

    def put(self, index: int, rows: bytes) -> None:
        self.packed[index] = deflate(rows)
        self.sums[index] = (isal_zlib.adler32(rows), len(rows))

    def zlib(self) -> bytes:
        check = 1
        for adler, length in self.sums:
            check = adler32_combine(check, adler, length)
        return b"".join((HEADER, *self.packed, END, struct.pack(">I", check)))


ADLER: Final = 65521


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


@dataclass(slots=True)
class _Picture:
    image: Image.Image
    tiles: dict[Tile, tuple[RunKey, ...]]  # what each tile shows: its runs' keys, in layout order
    rgb: _Stream = field(default_factory=_Stream)
    paletted: _Stream = field(default_factory=_Stream)
    dirty: set[int] | None = None  # RGB strips not compressed since they changed (None: all)
    stale: set[int] | None = None  # paletted strips not mapped since they changed (None: all)
    runs: tuple[TextRun, ...] = ()  # the runs drawn (held: their ids name them below)
    ids: set[int] = field(default_factory=set)
    over: dict[Tile, list[TextRun]] = field(default_factory=dict)  # the runs over each tile
    # id(run) → where each run drawn is: placed when it came, forgotten when it goes
    placed: dict[int, Placed] = field(default_factory=dict)
    used: float = 0.0  # when it was last drawn (`Canvas.clock`)


def fresh(image: Image.Image) -> _Picture:
    """A picture that keeps nothing yet (to encode `image` whole)."""
    return _Picture(image, {})


def weight(picture: _Picture) -> int:
    """The bytes a kept picture holds: its pixels and its strips compressed, twice (RGB and
    paletted), and about as much again for the runs it knows where they are."""
    image = picture.image
    pixels = image.width * image.height * len(image.getbands())
    packed = sum(map(len, picture.rgb.packed)) + sum(map(len, picture.paletted.packed))
    return pixels + packed + 256 * len(picture.placed)


def _pixels(layout: Layout) -> int:
    return layout.width * layout.height * 3


def changed_rows(tile: Tile, old: tuple[RunKey, ...], new: tuple[RunKey, ...]) -> list[range]:
    """The rows of a redrawn tile whose pixels may differ: those under the runs drawn there only
    before or only now, or the whole tile if the runs drawn both times are in another order (a
    pixel is the background with the runs over it pasted in order)."""
    top = tile[1] * TILE
    before, after = set(old), set(new)
    both = before & after
    if (
        len(before) != len(old)  # a run drawn twice over itself: not worth a finer answer
        or len(after) != len(new)
        or [k for k in old if k in both] != [k for k in new if k in both]
    ):
        return [range(top, top + TILE)]
    return [range(max(top, key[2]), min(top + TILE, key[2] + key[6])) for key in before ^ after]


def _spans(tiles: set[Tile]) -> list[tuple[int, int, int]]:
    """The tiles as runs side by side in their rows: (row, first column, column after the last)."""
    spans: list[tuple[int, int, int]] = []
    for tx, ty in sorted(tiles, key=lambda tile: (tile[1], tile[0])):
        if spans and spans[-1][0] == ty and spans[-1][2] == tx:
            spans[-1] = (ty, spans[-1][1], tx + 1)
        else:
            spans.append((ty, tx, tx + 1))
    return spans


def _strips_of(rows: list[range], height: int) -> set[int]:
    """The strips the rows lie in (a tile at the bottom may reach past the picture)."""
    return {
        s
        for span in rows
        if span and span[0] < height
        for s in range(span[0] // STRIP, min(span[-1], height - 1) // STRIP + 1)
    }


class Canvas:
    """The pictures kept, by background. Not thread-safe: draw under `bot.sheet.drawing_lock`."""

    def __init__(
        self,
        kept: int = KEPT,
        idle: float = IDLE,
        clock: Callable[[], float] = time.monotonic,
        budget: int | None = None,
    ) -> None:
        self.kept = kept
        self.idle = idle  # a game not drawn for this long gives its memory back
        self.clock = clock
        self.budget = budget  # bytes the pictures may hold together (None: `kept` alone)
        self._pictures: OrderedDict[tuple[object, int, int, tuple[Shape, ...]], _Picture] = (
            OrderedDict()
        )
        self._weights: dict[tuple[object, int, int, tuple[Shape, ...]], int] = {}
        self.tiles_drawn = 0  # tiles drawn again so far (tests read it)

    def __len__(self) -> int:
        """How many pictures are kept now."""
        return len(self._pictures)

    @property
    def held(self) -> int:
        """The bytes the kept pictures hold (pixels and compressed strips)."""
        return sum(self._weights.values())

    def expire(self) -> int:
        """Drop the pictures not drawn on for `idle` seconds (a timer calls it, so that a game
        gone quiet gives its memory back without another picture being drawn); how many went."""
        now, gone = self.clock(), 0
        while self._pictures and now - next(iter(self._pictures.values())).used > self.idle:
            self._drop()
            gone += 1
        return gone

    def _drop(self) -> None:
        """The least recently drawn picture goes."""
        key, _ = self._pictures.popitem(last=False)
        self._weights.pop(key, None)

    def _full(self, extra: int = 0) -> bool:
        """Whether the pictures kept (and `extra` more bytes) are past the count or the budget."""
        if len(self._pictures) + (extra > 0) > self.kept:
            return True
        return self.budget is not None and self.held + extra > self.budget

    @staticmethod
    def _place(run: TextRun, width: int, height: int, mask: Masks) -> Placed:
        shape, left, top = mask(run.text, run.size, run.bold)
        w, h = shape.size
        x, y = int(run.x) + left, int(run.y) + top
        x1, y1 = min(width, x + w) - 1, min(height, y + h) - 1
        tiles = tuple(
            (tx, ty)
            for ty in range(max(0, y) // TILE, max(0, y1) // TILE + 1)
            for tx in range(max(0, x) // TILE, max(0, x1) // TILE + 1)
        )
        return run, (run.text, x, y, run.size, run.bold, run.color, h), shape, tiles

    def draw(
        self, layout: Layout, background: Image.Image, mask: Masks, game: object = None
    ) -> tuple[Image.Image, _Picture]:
        """The layout drawn over its `background`, the last picture of `game` (any key: the
        caller's game id) over it redrawn where its runs differ; the image is the kept one (copy
        it before the next draw to keep it).

        The work is the runs that changed, not the picture: the layout gives an unchanged run as
        the very object it gave last time (`bot.sheet.totals`), so the runs gone and the runs new
        are two set differences, and only the tiles under them are looked at again."""
        key = (game, layout.width, layout.height, layout.shapes)
        picture = self._pictures.get(key)
        if picture is None and self._pictures and self._full(_pixels(layout)):
            # More games than pictures kept: draw over the least recent one on the same background
            # (its tiles say what it shows, so this is as exact, only less of it is kept).
            alike = next((k for k in self._pictures if k[1:] == key[1:]), None)
            if alike is not None:
                picture = self._pictures.pop(alike)
                self._weights.pop(alike, None)
        if picture is None:
            picture = _Picture(background.copy(), {})
            picture.dirty = None
        self._paint(picture, layout, background, mask)
        self._pictures[key] = picture
        self._pictures.move_to_end(key)
        self._weights[key] = weight(picture)
        picture.used = now = self.clock()
        while len(self._pictures) > 1 and (
            self._full() or now - next(iter(self._pictures.values())).used > self.idle
        ):
            self._drop()  # never this one: it is the last, used now
        return picture.image, picture

    def _paint(
        self, picture: _Picture, layout: Layout, background: Image.Image, mask: Masks
    ) -> None:
        width, height = layout.width, layout.height
        placed = picture.placed

        def known(run: TextRun) -> Placed:
            found = placed.get(id(run))
            if found is None:
                found = placed[id(run)] = self._place(run, width, height, mask)
            return found

        runs = layout.runs
        ids = {id(run) for run in runs}
        gone, new = picture.ids - ids, ids - picture.ids
        over = picture.over
        touched: set[Tile] = set()
        for run in picture.runs if gone else ():
            if id(run) in gone:
                touched.update(known(run)[3])
        added = [run for run in runs if id(run) in new] if new else []
        for run in added:
            touched.update(known(run)[3])
        for tile in touched:
            over[tile] = [r for r in over.get(tile, ()) if id(r) not in gone]
        order = {id(run): i for i, run in enumerate(runs)} if touched else {}
        if added:
            for run in added:
                for tile in known(run)[3]:
                    over[tile].append(run)
            for tile in touched:
                over[tile].sort(key=lambda r: order[id(r)])
        dirty: set[Tile] = set()
        rows: list[range] = []
        # A picture drawn from nothing has every strip to encode: which rows changed is moot.
        tracked = picture.dirty is not None or picture.stale is not None
        for tile in touched:
            signature = tuple(known(run)[1] for run in over[tile])
            shown = picture.tiles.get(tile, ())
            if shown != signature:
                dirty.add(tile)
                if tracked:
                    rows += changed_rows(tile, shown, signature)
            if signature:
                picture.tiles[tile] = signature
            else:
                picture.tiles.pop(tile, None)
                del over[tile]
        image = picture.image
        for ty, first, last in _spans(dirty):
            # Side by side dirty tiles are drawn as one box: a run over several is pasted once.
            box = (first * TILE, ty * TILE, min(width, last * TILE), min(height, (ty + 1) * TILE))
            over_box = {id(r): r for tx in range(first, last) for r in over.get((tx, ty), ())}
            patch = background.crop(box)
            for run in sorted(over_box.values(), key=lambda r: order[id(r)]):
                _, (_, x, y, _, _, colour, _), shape, _ = known(run)
                patch.paste(colour, (x - box[0], y - box[1]), shape)
            image.paste(patch, box[:2])
        self.tiles_drawn += len(dirty)
        strips = _strips_of(rows, height)
        if picture.dirty is not None:
            picture.dirty |= strips
        if picture.stale is not None:
            picture.stale |= strips
        for gone_id in gone:
            placed.pop(gone_id, None)
        picture.runs, picture.ids = runs, ids

    @staticmethod
    def encode(image: Image.Image, picture: _Picture, limit: int, busy: bool = False) -> bytes:
        """The PNG of `image` (the picture's), the strips not drawn on since kept compressed: in
        RGB, or in the palette when the picture is `busy` (`raster.is_busy`: so much text that
        the RGB stream would come near `limit`) or its RGB stream passes `limit`."""
        if busy:
            return Canvas._paletted(image, picture)
        width, height = image.size
        rgb = image.convert("RGB") if image.mode != "RGB" else image
        count = (height + STRIP - 1) // STRIP
        stream = picture.rgb
        changed = (
            set(range(count))
            if picture.dirty is None or len(stream.packed) != count
            else picture.dirty
        )
        stream.size(count)
        if len(changed) == count:  # a picture drawn from nothing: its rows read at once
            for index, rows in enumerate(_every_strip(rgb)):
                stream.put(index, rows)
        else:
            for index in changed:
                stream.put(index, _rows(rgb, index))
        picture.dirty = set()
        if sum(map(len, stream.packed)) + 80 < limit:
            return png(width, height, 2, stream.zlib())
        return Canvas._paletted(rgb, picture)

    @staticmethod
    def _paletted(image: Image.Image, picture: _Picture) -> bytes:
        """The picture in `PALETTE`: every flat colour of the drawing stays exact, the edges of
        letters and lines take the nearest colour. The palette is fixed, so each pixel's index
        depends on that pixel only and a strip is mapped again only when its pixels changed."""
        width, height = image.size
        count = (height + STRIP - 1) // STRIP
        stream = picture.paletted
        stale = picture.stale
        if stale is None or len(stream.packed) != count:
            stale = set(range(count))
        stream.size(count)
        if len(stale) == count:  # a picture drawn from nothing: mapped at once, a third the work
            whole = image.quantize(palette=_HOLDER, dither=Image.Dither.NONE)
            for index, rows in enumerate(_every_strip(whole)):
                stream.put(index, rows)
        for index in stale if len(stale) < count else ():
            top = index * STRIP
            part = image.crop((0, top, width, min(height, top + STRIP)))
            stream.put(index, _rows(part.quantize(palette=_HOLDER, dither=Image.Dither.NONE), 0))
        picture.stale = set()
        return png(width, height, 3, stream.zlib(), bytes(PALETTE))


def _rows(image: Image.Image, index: int) -> bytes:
    """Strip `index` of the picture as PNG rows, each after its filter byte 0 (none)."""
    width, height = image.size
    top = index * STRIP
    raw = image.crop((0, top, width, min(height, top + STRIP))).tobytes()
    stride = len(raw) // (min(height, top + STRIP) - top)
    return b"".join(b"\0" + raw[i : i + stride] for i in range(0, len(raw), stride))


def _every_strip(image: Image.Image) -> list[bytes]:
    """Every strip of the picture as `_rows` gives it, the pixels read once."""
    height = image.height
    raw = image.tobytes()
    stride = len(raw) // height
    return [
        b"".join(
            b"\0" + raw[row * stride : (row + 1) * stride]
            for row in range(top, min(height, top + STRIP))
        )
        for top in range(0, height, STRIP)
    ]


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
