"""The picture itself (spec/sheet.md "Rendering"): a PNG that decodes at the expected size, small
enough to send, the same picture every time, drawn with the fonts shipped in the package."""

from __future__ import annotations

import io
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

import bot.sheet
from bot.sheet import render_document_png, render_full_png, render_sheet_png
from bot.sheet.canvas import Canvas
from bot.sheet.layout import BOLD, REGULAR, RunKind, layout_sheet
from bot.sheet.raster import rasterise
from tests.render.factories import picture, random_sheet

SIZE = (1010, 1279)  # portrait: the width Telegram shows a photo at on a phone (model.PHONE_BOX)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_png_decodes_at_the_expected_size(players: int, lang: str) -> None:
    png = render_sheet_png(random_sheet(players, 10), lang)
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    assert image.size == SIZE


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The PNG's chunks, each one's CRC-32 checked by the standard library's zlib."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    found, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        tag, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(tag + data), tag
        found.append((tag, data))
        at += 12 + length
    return found


@pytest.mark.parametrize(("players", "deals"), [(3, 1), (3, 50)])
def test_the_png_stream_deflated_by_isa_l_is_what_zlib_reads(players: int, deals: int) -> None:
    """The strips are deflated by ISA-L (docs/decisions.md): zlib inflates them, checks the
    stream's Adler-32, and gets the picture's rows (RGB at 1 deal, the palette at 50: so much
    text that the RGB stream would come near 200 KB, `raster.is_busy`)."""
    png = render_full_png(random_sheet(players, deals))
    found = chunks(png)
    rows = zlib.decompress(b"".join(data for tag, data in found if tag == b"IDAT"))
    image = Image.open(io.BytesIO(png))
    image.load()
    width, height = image.size
    depth = 3 if image.mode == "RGB" else 1
    assert image.mode == ("RGB" if deals == 1 else "P")
    assert len(rows) == height * (1 + width * depth)
    stride = 1 + width * depth
    assert all(rows[y * stride] == 0 for y in range(height))  # every row unfiltered
    pixels = b"".join(rows[y * stride + 1 : (y + 1) * stride] for y in range(height))
    assert pixels == image.tobytes()


@pytest.mark.parametrize("players", [3, 4])
def test_a_50_deal_sheet_is_under_200_kb(players: int) -> None:
    assert len(render_sheet_png(random_sheet(players, 50))) < 200 * 1024


def test_the_same_sheet_gives_the_same_picture() -> None:
    sheet = random_sheet(3, 20)
    assert picture(render_sheet_png(sheet, "ru")) == picture(render_sheet_png(sheet, "ru"))


def test_the_picture_has_the_seat_colours_and_red_suits() -> None:
    """The drawing is not blank: the sectors' tints and the names' tabs are on it."""
    image = Image.open(io.BytesIO(render_sheet_png(random_sheet(3, 10), "en"))).convert("RGB")
    colours = {colour for _, colour in image.getcolors(maxcolors=1 << 16) or []}
    assert (0x1D, 0x4E, 0xD8) in colours  # seat A's tab
    assert len(colours) > 20  # antialiased text


def test_the_fonts_and_their_licence_ship_inside_the_package() -> None:
    fonts = Path(bot.sheet.__file__).parent / "fonts"
    assert fonts / "DejaVuSans.ttf" == REGULAR and REGULAR.is_file()
    assert fonts / "DejaVuSans-Bold.ttf" == BOLD and BOLD.is_file()
    assert "Bitstream Vera" in (fonts / "LICENSE").read_text()


def test_pictures_drawn_in_several_threads_at_once_are_the_pictures_drawn_alone() -> None:
    sheets = [random_sheet(3, 15, seed=s) for s in range(4)] + [random_sheet(4, 15, seed=9)]
    alone = [render_sheet_png(s, "ru") for s in sheets]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda s: render_sheet_png(s, "ru"), sheets * 2))
    assert together == alone * 2


@pytest.mark.parametrize("players", [3, 4])
def test_even_a_200_deal_sheet_is_under_200_kb_and_decodes(players: int) -> None:
    png = render_sheet_png(random_sheet(players, 200), "en")
    assert len(png) < 200 * 1024
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.size == SIZE


@pytest.mark.parametrize("players", [3, 4])
def test_the_full_sheet_document_is_an_rgb_png_of_every_total(players: int) -> None:
    """`/sheet full`: the same size, in RGB, every total of a 200-deal game drawn (none folded),
    drawn whole without touching the kept pictures."""
    sheet = random_sheet(players, 200)
    bot.sheet.canvas = Canvas()
    png = render_document_png(sheet, "ru")
    assert len(bot.sheet.canvas) == 0
    image = Image.open(io.BytesIO(png))
    image.load()
    assert (image.format, image.mode, image.size) == ("PNG", "RGB", SIZE)
    layout = layout_sheet(sheet, "ru", fold=False)
    assert picture(png)[2] == rasterise(layout).tobytes()  # its pixels are the full layout's
    shown = [r for r in layout.runs if r.kind is RunKind.TOTAL]
    assert len(shown) == sum(len(values) for values in sheet.history.values())


def test_pictures_drawn_over_each_other_from_several_threads_are_each_the_full_picture() -> None:
    """With more games than pictures kept, threads draw over the pictures other games left
    (issue 12): each is its full picture."""
    bot.sheet.canvas = Canvas(kept=2)
    sheets = [random_sheet(3, 10 + 5 * s, seed=s) for s in range(5)]
    full = [picture(render_full_png(s, "en")) for s in sheets]
    jobs = [(game, sheet) for _ in range(3) for game, sheet in enumerate(sheets)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        drawn = list(
            pool.map(lambda job: picture(render_sheet_png(job[1], "en", game=job[0])), jobs)
        )
    assert drawn == [full[game] for game, _ in jobs]
