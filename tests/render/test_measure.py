"""A run of numerals is measured from its glyphs (`bot.sheet.measure`), and must measure exactly as
FreeType lays the whole run out: any pixel of difference would move what is drawn."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.sheets import EXAMPLES, NAMES, corrected_mountain, example_sheet, random_game
from bot.sheet.layout import layout_sheet
from bot.sheet.measure import (
    NUMERALS,
    SUMMED_SIZES,
    font,
    freetype_width,
    numeral_glyphs,
    text_width,
)
from bot.sheet.model import FULL, PHONE
from scoring.sheet import Sheet


def style_sizes() -> set[int]:
    """Every size in px a field of the picture's styles names."""
    sizes: set[int] = set()
    for style in (PHONE, FULL):
        for field in fields(style):
            value = getattr(style, field.name)
            if isinstance(value, tuple):
                sizes.update(value)
    return sizes


def example_sheets() -> list[tuple[Sheet, str]]:
    """The example sheets, ru and en, and two long games."""
    sheets = []
    for ex in EXAMPLES:
        sheets.append((example_sheet(ex), ex.lang))
    sheets.append((random_game(3, 2000, 7, pool_target=99999), "ru"))
    sheets.append((random_game(4, 1000, 3, pool_target=99999, names=NAMES), "en"))
    return sheets


def test_no_pair_of_numerals_is_kerned_at_any_summed_size() -> None:
    chars = sorted(NUMERALS)
    for bold in (False, True):
        for size in SUMMED_SIZES:
            f = font(size, bold)
            advance = {char: f.getlength(char) for char in chars}
            for a in chars:
                for b in chars:
                    assert f.getlength(a + b) == advance[a] + advance[b], (a, b, size, bold)


def test_every_numeral_advances_whole_pixels_at_every_summed_size() -> None:
    for bold in (False, True):
        for size in SUMMED_SIZES:
            glyphs = numeral_glyphs(size, bold)
            assert all(glyphs[char] is not None for char in NUMERALS), (size, bold)


def test_every_run_of_the_example_sheets_measures_as_freetype_lays_it_out() -> None:
    runs: set[tuple[str, bool]] = set()
    sizes = style_sizes()
    for sheet, lang in example_sheets():
        corrections = corrected_mountain(sheet) if sheet.game.size == 3 else None
        for fold in (True, False):
            layout = layout_sheet(sheet, lang, corrections=corrections, keep=False, fold=fold)
            for run in layout.runs:
                runs.add((run.text, run.bold))
                sizes.add(run.size)
    summed = [(text, bold) for text, bold in runs if NUMERALS.issuperset(text)]
    assert len(summed) > 1000  # the long games' totals
    for text, bold in runs:
        for size in sizes:
            assert text_width(text, size, bold) == freetype_width(text, size, bold), (text, size)


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet=sorted(NUMERALS), max_size=14),
    size=st.sampled_from(SUMMED_SIZES),
    bold=st.booleans(),
)
def test_a_run_of_numerals_measures_as_freetype_lays_it_out(
    text: str, size: int, bold: bool
) -> None:
    assert text_width(text, size, bold) == freetype_width(text, size, bold)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=[*sorted(NUMERALS), *"AVTaoyГорыВистыПуляé ✔"], max_size=10),
    size=st.integers(min_value=5, max_value=80),
    bold=st.booleans(),
)
def test_any_run_at_any_size_measures_as_freetype_lays_it_out(
    text: str, size: int, bold: bool
) -> None:
    assert text_width(text, size, bold) == freetype_width(text, size, bold)
