"""The picture itself (spec/sheet.md "Rendering"): a PNG that decodes at the expected size, small
enough to send, the same picture every time, drawn with the fonts shipped in the package."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

import bot.sheet
from bot.sheet import rasterise, render_document_png, render_sheet_png
from bot.sheet.layout import layout_sheet
from bot.sheet.model import BOLD, REGULAR, RunKind
from tests.render.factories import picture, random_sheet

SIZE = (1010, 1279)  # portrait: the width Telegram shows a photo at on a phone (model.PHONE_BOX)


def test_the_same_sheet_gives_the_same_picture() -> None:
    sheet = random_sheet(3, 20)
    assert render_sheet_png(sheet, "ru") == render_sheet_png(sheet, "ru")


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


@pytest.mark.parametrize(
    ("players", "deals", "lang", "mode"),
    [(3, 1, "ru", "RGB"), (4, 50, "en", None), (4, 200, "ru", None), (3, 2000, "en", "P")],
)
def test_a_picture_is_under_200_kb_rgb_while_little_is_written_and_decodes(
    players: int, deals: int, lang: str, mode: str | None
) -> None:
    """spec/sheet.md: under 200 KB; RGB for a short game, the fixed palette once text crowds it."""
    png = render_sheet_png(random_sheet(players, deals), lang)
    assert len(png) < 200 * 1024
    image = Image.open(io.BytesIO(png))
    image.load()
    assert (image.format, image.size) == ("PNG", SIZE)
    assert image.mode == (mode or image.mode)


@pytest.mark.parametrize("players", [3, 4])
def test_the_full_sheet_document_is_an_rgb_png_of_every_total(players: int) -> None:
    """`/sheet full`: the same size, in RGB, every total of a 200-deal game drawn (none folded)."""
    sheet = random_sheet(players, 200)
    png = render_document_png(sheet, "ru")
    image = Image.open(io.BytesIO(png))
    image.load()
    assert (image.format, image.mode, image.size) == ("PNG", "RGB", SIZE)
    layout = layout_sheet(sheet, "ru", fold=False)
    assert picture(png)[2] == rasterise(layout).tobytes()  # its pixels are the full layout's
    shown = [r for r in layout.runs if r.kind is RunKind.TOTAL]
    assert len(shown) == sum(len(values) for values in sheet.history.values())
