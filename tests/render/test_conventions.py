"""Every convention and table size draws a sheet that keeps the layout's promises (sheet.md)."""

from __future__ import annotations

import pytest

from bench.sheets import random_game
from bot.sheet.layout import layout_sheet
from bot.sheet.model import RunKind
from scoring.deal import LastRound
from scoring.replay import replay
from scoring.rules import PRESETS, rules_for
from scoring.sheet import Game
from tests.render.factories import finished_sheet
from tests.render.geometry import box_in_polygon, overlapping_pairs

LONG_NAMES = ("Александра Константиновна", "Бо", "Максимилиан Длинноимённый", "Ёж")


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("convention", sorted(PRESETS))
def test_every_convention_keeps_totals_in_their_bands_and_apart(
    convention: str, players: int
) -> None:
    sheet = random_game(players, 40, seed=3, convention=convention, names=LONG_NAMES)
    layout = layout_sheet(sheet, "ru")
    bands = layout.bands()
    for run in layout.runs:
        if run.band is not None:
            assert box_in_polygon(run.box, bands[run.band].points), run
        x0, y0, x1, y1 = run.box
        assert x0 >= 0 and x1 <= layout.width and y0 >= 0 and y1 <= layout.height, run
    assert not overlapping_pairs([r.box for r in layout.runs])


def test_a_long_name_is_shortened_in_its_tab_and_written_in_full_in_the_strip() -> None:
    sheet = random_game(3, 5, seed=1, names=LONG_NAMES)
    layout = layout_sheet(sheet, "ru")
    tabs = [r.text for r in layout.runs if r.kind is RunKind.NAME]
    assert "Бо" in tabs
    assert any(t.endswith("…") and "Александра Константиновна".startswith(t[:-1]) for t in tabs)
    strip = " ".join(r.text for r in layout.runs if r.kind is RunKind.STRIP)
    assert "Александра Константиновна" in strip


@pytest.mark.parametrize(("lang", "word"), [("ru", "Итог:"), ("en", "Result:")])
def test_a_finished_game_shows_the_result_instead_of_whose_deal_is_next(
    lang: str, word: str
) -> None:
    sheet = finished_sheet()
    assert sheet.finished
    strip = [r.text for r in layout_sheet(sheet, lang).runs if r.kind is RunKind.STRIP]
    assert word in strip
    assert not any(t in ("сдаёт: ", "deals next: ") for t in strip)


def test_the_strip_says_when_the_last_round_is_announced() -> None:
    """Odessa's end rule (conventions.md §1.3): the last round is announced, then played."""
    sheet = replay(Game(rules_for("odessa", 3), ("Anna", "Boris", "Clara")), [LastRound()])
    assert sheet.last_round_announced
    strip = [r.text for r in layout_sheet(sheet, "en").runs if r.kind is RunKind.STRIP]
    assert "last round" in strip
