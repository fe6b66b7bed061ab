"""A crowded band (a long game's: 1,500 totals, a hundred shown) is laid out from the totals its
flow reaches: the rest are neither made into items nor measured, and the layout is the one every
item made and measured gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.sheets import random_game
from bot.sheet import layout as L
from bot.sheet.bands import Totals
from bot.sheet.drawn import drawn
from bot.sheet.layout import layout_sheet
from bot.sheet.model import FULL, PHONE
from bot.sheet.totals import Laid, _fewest, lay


def kept_bands(fold: bool) -> list[Laid]:
    """The bands of a 2,000-deal game's picture as laid out (`layout.kept_band_runs`)."""
    L._BANDS.clear()
    sheet = drawn(random_game(3, 2000, 7, pool_target=99999))
    layout_sheet(sheet, "ru", game="crowded", fold=fold)
    bands = [laid for key, (_, _, laid) in L._BANDS.items() if key[0] == "crowded"]
    L._BANDS.clear()
    return bands


def made(items: Totals) -> int:
    return sum(1 for i in range(len(items)) if items._made[i] is not None)


def test_a_crowded_band_of_the_chats_picture_makes_only_the_totals_its_flow_reaches() -> None:
    crowded = [laid for laid in kept_bands(fold=True) if len(laid.items) > 500]
    assert len(crowded) >= 3
    for laid in crowded:
        assert isinstance(laid.items, Totals) and laid.cut
        assert made(laid.items) < len(laid.items) // 3, (made(laid.items), len(laid.items))


def test_a_band_laid_out_from_its_totals_as_read_is_laid_out_as_from_every_total_made() -> None:
    for fold, style in ((True, PHONE), (False, FULL)):
        L._BANDS.clear()
        sheet = drawn(random_game(3, 2000, 7, pool_target=99999))
        layout_sheet(sheet, "ru", game="crowded", fold=fold)
        for key, (_, area, laid) in list(L._BANDS.items()):
            band = key[1]
            every = list(laid.items)  # every item made
            eager = lay(band, laid.values, every, area, style, laid.heads)  # type: ignore[arg-type]
            assert (eager.runs, eager.size, eager.cut) == (laid.runs, laid.size, laid.cut), band
        L._BANDS.clear()


@given(
    cuts=st.lists(st.integers(0, 400), unique=True).map(sorted),
    threshold=st.integers(-5, 405),
)
def test_the_fewest_folded_is_the_least_cut_that_fits_when_more_folded_fits_too(
    cuts: list[int], threshold: int
) -> None:
    fitting = [cut for cut in cuts if cut >= threshold]
    assert _fewest(cuts, lambda cut: cut >= threshold) == (fitting[0] if fitting else None)
