"""The picture drawn again only where it changed, pixel for pixel the full drawing.

`Canvas.draw(layout)` keeps the last picture drawn over each background (the shapes: they change
only when a pool closes or a name changes, so in practice one per game) and what text runs lie
over each of its tiles; a tile whose runs are not the ones drawn there last time marks the rows
under the runs it gained or lost (`changed_rows`). A pixel's colour is the background's with the
runs covering it pasted in layout order, so rows drawn alone from the background and the runs over
them, in that order, are the rows of the whole picture drawn from scratch.

A kept picture holds its pixels only compressed: its PNG strips (`bot.sheet.strips`, 150–400 KB
against 3.9 MB of RGB), so that a memory budget keeps a thousand games, not dozens. A deal draws
again the ~15–40 strips its new text lies on (`_write`: the background's rows and the runs over
them) and deflates them; the others keep their bytes. Nothing is inflated to draw on: the runs
kept say what every row shows. `Canvas.encode(picture)` writes the PNG from the strips (RGB; or,
when the picture is busy or its RGB stream passes the limit, the fixed 256-colour palette, whose
strips are mapped again from the RGB rows only where they changed). A strip kept decodes to the
rows it would be compressed from now (ISA-L may pick another valid encoding of them now and then:
the pixels are the same, not always the bytes).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

from PIL import Image

from bot.sheet.model import Layout, Shape, TextRun
from bot.sheet.strips import (
    STRIP,
    Stream,
    filtered,
    image_rows,
    paletted_png,
    quantized,
    rgb_png,
    strips,
    unfiltered,
)

TILE: Final = 64  # px, the tiles a picture is redrawn by
KEPT: Final = 24  # pictures kept (their compressed strips, 150–400 KB each, and where runs lie)
IDLE: Final = 15 * 60.0  # seconds a kept picture waits for its game's next picture, then goes
# What a run placed on a kept picture holds: its key, its tiles, its place in them (tracemalloc).
RUN_BYTES: Final = 1400
PNG_BYTES: Final = 80  # a PNG's signature, chunk headers and checksums around its stream

RunKey = tuple[str, int, int, int, bool, str, int]  # text, x, y, size, bold, colour, height
Tile = tuple[int, int]
Key = tuple[object, int, int, tuple[Shape, ...]]  # a kept picture's: its game, size, background
Masks = Callable[[str, int, bool], tuple[Image.Image, int, int]]  # a run's coverage, its offset
# A run's key and its tiles. Not its mask: that is asked of `Masks` (a cache shared by every
# picture) when pasted, so that no picture holds masks the cache let go.
Placed = tuple[RunKey, tuple[Tile, ...]]


@dataclass(slots=True)
class Picture:
    """A kept picture: its pixels as compressed strips, and what each tile shows."""

    width: int
    height: int
    tiles: dict[Tile, tuple[RunKey, ...]] = field(default_factory=dict)  # its runs' keys, in order
    rgb: Stream = field(default_factory=Stream)  # the pixels, always up to date
    paletted: Stream = field(default_factory=Stream)  # mapped from `rgb` when sent so
    stale: set[int] | None = None  # paletted strips not mapped since they changed (None: all)
    # The RGB rows of the strips the last drawing wrote, until encoded: mapped to the palette from
    # here rather than inflated again.
    written: dict[int, bytes] = field(default_factory=dict)
    runs: tuple[TextRun, ...] = ()  # the runs drawn (held: their ids name them below)
    ids: set[int] = field(default_factory=set)
    over: dict[Tile, list[TextRun]] = field(default_factory=dict)  # the runs over each tile
    # id(run) → where each run drawn is: placed when it came, forgotten when it goes
    placed: dict[int, Placed] = field(default_factory=dict)
    used: float = 0.0  # when it was last drawn (`Canvas.clock`)
    kept_as: Key | None = None  # its key among a `Canvas`'s pictures

    def pixels(self) -> Image.Image:
        """The picture's pixels, inflated (for tests and tools: the bot sends `Canvas.encode`'s
        PNG)."""
        raw = b"".join(
            unfiltered(self.rgb.rows(index), _rows_in(index, self.height))
            for index in range(len(self.rgb.packed))
        )
        return Image.frombytes("RGB", (self.width, self.height), raw)


def weight(picture: Picture) -> int:
    """The bytes a kept picture holds: its strips compressed (RGB, and paletted once sent so), and
    for each run it knows where it lies, its key, its tiles and its place in them."""
    return picture.rgb.held + picture.paletted.held + RUN_BYTES * len(picture.placed)


def _rows_in(index: int, height: int) -> int:
    """How many rows strip `index` has (the last may be short)."""
    return min(height, (index + 1) * STRIP) - index * STRIP


def _runs_of(indices: list[int]) -> Iterator[tuple[int, int]]:
    """Sorted strip indices as runs of neighbours: (first, after the last)."""
    start = prev = -2
    for index in indices:
        if index != prev + 1:
            if start >= 0:
                yield start, prev + 1
            start = index
        prev = index
    if start >= 0:
        yield start, prev + 1


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
        self._pictures: OrderedDict[Key, Picture] = OrderedDict()
        self._weights: dict[Key, int] = {}
        self._held = 0  # the sum of `_weights`
        self.tiles_drawn = 0  # tiles drawn again so far (tests read it)

    def __len__(self) -> int:
        """How many pictures are kept now."""
        return len(self._pictures)

    @property
    def held(self) -> int:
        """The bytes the kept pictures hold (`weight`: their strips and placed runs)."""
        return self._held

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
        self._held -= self._weights.pop(key, 0)

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
        return (run.text, x, y, run.size, run.bold, run.color, h), tiles

    def draw(
        self, layout: Layout, background: Image.Image, mask: Masks, game: object = None
    ) -> Picture:
        """The layout drawn over its `background`, the last picture of `game` (any key: the
        caller's game id) over it redrawn where its runs differ; the picture is the kept one
        (encode it before the next draw: `Canvas.encode`).

        The work is the runs that changed, not the picture: the layout gives an unchanged run as
        the very object it gave last time (`bot.sheet.totals`), so the runs gone and the runs new
        are two set differences, and only the tiles under them are looked at again."""
        key = (game, layout.width, layout.height, layout.shapes)
        picture = self._pictures.get(key)
        if picture is None and self._pictures and self._full(self.held // len(self._pictures)):
            # More games than pictures kept: draw over the least recent one on the same background
            # (its tiles say what it shows, so this is as exact, only less of it is kept).
            alike = next((k for k in self._pictures if k[1:] == key[1:]), None)
            if alike is not None:
                picture = self._pictures.pop(alike)
                self._held -= self._weights.pop(alike, 0)
        if picture is None:
            picture = Picture(layout.width, layout.height)
        self._paint(picture, layout, background, mask)
        self._pictures[key] = picture
        self._pictures.move_to_end(key)
        picture.kept_as = key
        self._held += weight(picture) - self._weights.get(key, 0)
        self._weights[key] = weight(picture)
        picture.used = now = self.clock()
        while len(self._pictures) > 1 and (
            self._full() or now - next(iter(self._pictures.values())).used > self.idle
        ):
            self._drop()  # never this one: it is the last, used now
        return picture

    def _paint(
        self, picture: Picture, layout: Layout, background: Image.Image, mask: Masks
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
                touched.update(known(run)[1])
        added = [run for run in runs if id(run) in new] if new else []
        for run in added:
            touched.update(known(run)[1])
        for tile in touched:
            over[tile] = [r for r in over.get(tile, ()) if id(r) not in gone]
        order = {id(run): i for i, run in enumerate(runs)} if touched else {}
        if added:
            for run in added:
                for tile in known(run)[1]:
                    over[tile].append(run)
            for tile in touched:
                over[tile].sort(key=lambda r: order[id(r)])
        dirty: set[Tile] = set()
        rows: list[range] = []
        for tile in touched:
            signature = tuple(known(run)[0] for run in over[tile])
            shown = picture.tiles.get(tile, ())
            if shown != signature:
                dirty.add(tile)
                rows += changed_rows(tile, shown, signature)
            if signature:
                picture.tiles[tile] = signature
            else:
                picture.tiles.pop(tile, None)
                del over[tile]
        self.tiles_drawn += len(dirty)
        if picture.rgb.packed:
            changed = _strips_of(rows, height)
            _write(picture, sorted(changed), background, mask, known, order)
            if picture.stale is not None:
                picture.stale |= changed
        else:  # nothing kept yet: every strip drawn
            _write(picture, list(range(strips(height))), background, mask, known, order)
        for gone_id in gone:
            placed.pop(gone_id, None)
        picture.runs, picture.ids = runs, ids

    def encode(self, picture: Picture, limit: int, busy: bool = False) -> bytes:
        """The PNG of the picture as last drawn (`_encode`), the picture weighed again: its
        paletted strips are made here."""
        png = _encode(picture, limit, busy)
        key = picture.kept_as
        if key is not None and self._pictures.get(key) is picture:
            self._held += weight(picture) - self._weights[key]
            self._weights[key] = weight(picture)
        return png


def _encode(picture: Picture, limit: int, busy: bool = False) -> bytes:
    """The PNG of a picture from its strips: in RGB, or in the palette when the picture is `busy`
    (`raster.is_busy`: so much text that the RGB stream would come near `limit`) or its RGB
    stream passes `limit`."""
    if busy or sum(map(len, picture.rgb.packed)) + PNG_BYTES >= limit:
        return _paletted(picture)
    picture.written = {}
    return rgb_png(picture.width, picture.height, picture.rgb)


def _write(
    picture: Picture,
    changed: list[int],
    background: Image.Image,
    mask: Masks,
    known: Callable[[TextRun], Placed],
    order: dict[int, int],
) -> None:
    """The strips `changed` of the picture (sorted) drawn again and compressed. Each run of
    neighbouring strips is drawn as one band of rows, whole: the background's rows with every
    text run over them pasted in layout order (clipped to the band), which are the full
    drawing's rows; so no pixel is kept, nor inflated again, to draw on."""
    width, height, over = picture.width, picture.height, picture.over
    stream = picture.rgb
    stream.size(strips(height))
    picture.written = {}
    columns = -(-width // TILE)
    for first, last in _runs_of(changed):
        top, bottom = first * STRIP, min(height, last * STRIP)
        band = background.crop((0, top, width, bottom))
        runs = {
            id(run): run
            for ty in range(top // TILE, (bottom - 1) // TILE + 1)
            for tx in range(columns)
            for run in over.get((tx, ty), ())
        }
        for run in sorted(runs.values(), key=lambda r: order[id(r)]):
            (text, x, y, size, bold, colour, h), _ = known(run)
            if y < bottom and y + h > top:
                band.paste(colour, (x, y - top), mask(text, size, bold)[0])
        data, stride = band.tobytes(), 3 * width
        for index in range(first, last):
            start = (index * STRIP - top) * stride
            count = _rows_in(index, height)
            rows = filtered(data[start : start + count * stride], count)
            stream.put(index, rows)
            picture.written[index] = rows


def _paletted(picture: Picture) -> bytes:
    """The picture in the palette (`strips.quantized`), the strips changed since last mapped
    mapped again from their RGB rows."""
    width, height = picture.width, picture.height
    count = strips(height)
    stream, stale = picture.paletted, picture.stale
    if stale is None or len(stream.packed) != count:
        stale = set(range(count))
    stream.size(count)
    for index in stale:
        rows = picture.written.get(index)
        stream.put(index, quantized(width, rows if rows is not None else picture.rgb.rows(index)))
    picture.stale, picture.written = set(), {}
    return paletted_png(width, height, stream)


def encode_image(image: Image.Image, limit: int, busy: bool = False) -> bytes:
    """The PNG of a picture drawn whole (`Canvas.encode`'s, kept nowhere): RGB, or the palette
    when `busy` or past `limit`."""
    rgb = image.convert("RGB") if image.mode != "RGB" else image
    picture = Picture(rgb.width, rgb.height)
    count = strips(rgb.height)
    picture.written = {
        index: image_rows(rgb, index * STRIP, index * STRIP + _rows_in(index, rgb.height))
        for index in range(count)
    }
    if not busy:
        picture.rgb.size(count)
        for index, rows in picture.written.items():
            picture.rgb.put(index, rows)
    return _encode(picture, limit, busy)
