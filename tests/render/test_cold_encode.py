"""A picture drawn from nothing is encoded at once (its pixels read, and mapped to the palette,
in one go): the same strips as encoding it strip by strip, as a kept picture's changed strips are."""

from __future__ import annotations

import pytest
from PIL import Image

from bench.sheets import random_game
from bot.sheet import layout_sheet
from bot.sheet.canvas import _HOLDER, STRIP, _every_strip, _rows
from bot.sheet.raster import rasterise


@pytest.mark.parametrize(("size", "deals"), [(3, 2000), (4, 200), (3, 12)])
def test_a_picture_read_at_once_gives_the_strips_read_one_by_one(size: int, deals: int) -> None:
    image = rasterise(layout_sheet(random_game(size, deals, 7, pool_target=99999), keep=False))
    width, height = image.size
    count = (height + STRIP - 1) // STRIP
    assert _every_strip(image) == [_rows(image, index) for index in range(count)]
    whole = image.quantize(palette=_HOLDER, dither=Image.Dither.NONE)
    one_by_one = [
        _rows(
            image.crop((0, top, width, min(height, top + STRIP))).quantize(
                palette=_HOLDER, dither=Image.Dither.NONE
            ),
            0,
        )
        for top in range(0, height, STRIP)
    ]
    assert _every_strip(whole) == one_by_one
