"""The chat's picture read where it arrives: in a chat on a 390-pt phone (docs/decisions.md).

Telegram for iOS fits a photo into `PHONE_BOX` (300×380 pt) on a phone, so the picture is seen at
`scale = min(300 / width, 380 / height)` of its size. Each text's height is its font size (the em
square, what CSS calls `font-size`), read from the layout model and multiplied by that scale:
every number a player reads (pools, mountains, whists, the balances and money, the pool size and
the stake in the circle) is at least 12 px there, every word (captions, names, the strip's words,
the legend, marks) at least 9 px — for 3 and 4 players, a short game and a 200-deal one, Russian
and English, with corrections, help and long names. The full sheet (`fold=False`) is read zoomed
and is not held to this.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from bench.sheets import EXAMPLES, NAMES, RU_NAMES, corrected_mountain, random_game
from bot.sheet.layout import layout_sheet
from bot.sheet.model import PHONE_BOX, PHONE_LABEL, PHONE_NUMBER, Layout, RunKind, TextRun, font
from scoring.sheet import Sheet

NUMBERS = (RunKind.TOTAL, RunKind.WRONG, RunKind.BALANCE)


def phone_scale(layout: Layout) -> float:
    """How much smaller the picture is seen in a chat on the phone."""
    return min(PHONE_BOX[0] / layout.width, PHONE_BOX[1] / layout.height)


def is_number(run: TextRun) -> bool:
    """A number a player reads: a total, a balance, the pool size or the stake in the circle."""
    if run.kind in NUMBERS:
        return True
    return run.kind is RunKind.CENTRE and any(ch.isdigit() for ch in run.text)


def heights(layout: Layout) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    """Each text's height on the phone, px: (numbers, words), with the text."""
    scale = phone_scale(layout)
    numbers, words = [], []
    for run in layout.runs:
        if not run.text.strip():
            continue
        (numbers if is_number(run) else words).append((run.size * scale, run.text))
    return numbers, words


def assert_readable(layout: Layout) -> None:
    numbers, words = heights(layout)
    assert numbers and words
    small = [(round(h, 2), text) for h, text in numbers if h < PHONE_NUMBER]
    assert not small, f"numbers under {PHONE_NUMBER} px on the phone: {small[:5]}"
    small = [(round(h, 2), text) for h, text in words if h < PHONE_LABEL]
    assert not small, f"words under {PHONE_LABEL} px on the phone: {small[:5]}"


GAMES = [
    (players, deals, lang) for players in (3, 4) for deals in (18, 200) for lang in ("ru", "en")
]


def game(players: int, deals: int, lang: str, seed: int = 7) -> Sheet:
    names = RU_NAMES if lang == "ru" else NAMES
    pool = 500 if deals > 50 else None
    return random_game(players, deals, seed, pool_target=pool, names=names)


@pytest.mark.parametrize(("players", "deals", "lang"), GAMES, ids=str)
def test_every_number_is_12_px_and_every_word_9_px_on_the_phone(
    players: int, deals: int, lang: str
) -> None:
    assert_readable(layout_sheet(game(players, deals, lang), lang))


@pytest.mark.parametrize(("players", "deals", "lang"), GAMES, ids=str)
def test_the_picture_is_seen_at_the_full_width_of_telegrams_photo_box(
    players: int, deals: int, lang: str
) -> None:
    """Portrait, but no taller than the box lets a picture be at its full 300 pt width."""
    layout = layout_sheet(game(players, deals, lang), lang)
    assert layout.height > layout.width
    assert phone_scale(layout) == PHONE_BOX[0] / layout.width


@pytest.mark.parametrize(("players", "deals", "lang"), GAMES, ids=str)
def test_every_band_shows_its_caption_and_its_latest_total_on_the_phone(
    players: int, deals: int, lang: str
) -> None:
    sheet = game(players, deals, lang)
    layout = layout_sheet(sheet, lang)
    for band in layout.bands():
        runs = [r for r in layout.runs if r.band == band]
        assert any(r.kind is RunKind.CAPTION for r in runs), band
        values = sheet.history.get(band, ())
        if values:
            assert any(r.latest and r.record == values[-1][0] for r in runs), band


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda ex: ex.name)
def test_the_example_pictures_are_readable_on_the_phone(example: object) -> None:
    """The pictures of docs/img (`make sheets`)."""
    from bench.sheets import Example

    assert isinstance(example, Example)
    names = RU_NAMES if example.lang == "ru" else NAMES
    sheet = random_game(
        example.size,
        example.deals,
        example.seed,
        convention=example.convention,
        pool_target=example.pool_target,
        names=names,
    )
    assert_readable(layout_sheet(sheet, example.lang))


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_corrections_help_and_a_closed_pool_stay_readable_on_the_phone(lang: str) -> None:
    names = RU_NAMES if lang == "ru" else NAMES
    corrected = random_game(3, 18, 14, names=names)
    layout = layout_sheet(corrected, lang, corrections=corrected_mountain(corrected, seat=2))
    assert any(r.kind is RunKind.WRONG for r in layout.runs)
    assert any(r.kind is RunKind.LEGEND for r in layout.runs)
    assert_readable(layout)
    helped = random_game(4, 30, 0, pool_target=10, names=names)
    layout = layout_sheet(helped, lang)
    assert helped.closed_pools and any("✔" in r.text for r in layout.runs)
    assert_readable(layout)


@pytest.mark.parametrize("players", [3, 4])
def test_long_names_and_a_large_stake_stay_readable_on_the_phone(players: int) -> None:
    names = ("Константин", "Александра", "Вениамин", "Мария-Антуанетта")
    sheet = random_game(players, 40, 3, stake=Fraction(25, 100), names=names)
    layout = layout_sheet(sheet, "ru")
    assert_readable(layout)
    tabs = [r for r in layout.runs if r.kind is RunKind.NAME]
    assert len(tabs) == players


def test_a_numbers_digits_are_at_least_8_px_tall_on_the_phone() -> None:
    """The font size is the em square; a digit's ink is DejaVu's cap height, some 0.73 em: a
    12 px number's digits stand about 8.8 px tall on the phone (measured on the font)."""
    layout = layout_sheet(game(4, 200, "ru"), "ru")
    scale = phone_scale(layout)
    for run in layout.runs:
        if is_number(run):
            _, top, _, bottom = font(run.size, run.bold).getbbox("0", anchor="ls")
            assert (bottom - top) * scale >= 8.5, run
