"""The sheet's layout (spec/sheet.md "Rendering"): every total in its band, nothing overlaps, all on
the canvas, both languages, the marks the paper sheet uses. Two layouts of one sheet: the chat's
picture, whose crowded bands fold their oldest totals (`fold=True`, the default), and the full
sheet with every total (`fold=False`: `/sheet full`, the Mini App)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.sheet import model
from bot.sheet.flow import fewest
from bot.sheet.layout import layout_sheet
from bot.sheet.model import CLOSED_FILL, MUTED, PHONE, RED, Correction, Layout, RunKind
from locales.numbers import format_amount
from scoring.deal import Column, Misere, Raspasy, Record, Role, Suit
from scoring.settle import Settlement
from scoring.sheet import Band, Reason, Sheet
from tests.render.factories import (
    ANNA,
    closed_pool_sheet,
    contract,
    random_sheet,
    sheet_of,
    synthetic_sheet,
)
from tests.render.geometry import box_in_polygon, overlapping_pairs

SIZES = (3, 4)
DEALS = (1, 50, 200)
GAMES = [(p, d) for p in SIZES for d in DEALS]


def _sheet(players: int, deals: int) -> Sheet:
    return random_sheet(players, deals, seed=players * 1000 + deals)


@pytest.fixture(
    scope="module", params=[(*g, fold) for g in GAMES for fold in (True, False)], ids=str
)
def game(request: pytest.FixtureRequest) -> tuple[Sheet, Layout]:
    """Either layout of a 3- or 4-player game of 1, 50 or 200 deals."""
    players, deals, fold = request.param
    sheet = _sheet(players, deals)
    return sheet, layout_sheet(sheet, "ru", fold=fold)


@pytest.fixture(scope="module", params=GAMES, ids=str)
def full(request: pytest.FixtureRequest) -> tuple[Sheet, Layout]:
    """The full sheet: every total."""
    sheet = _sheet(*request.param)
    return sheet, layout_sheet(sheet, "ru", fold=False)


@pytest.fixture(scope="module", params=GAMES, ids=str)
def chat(request: pytest.FixtureRequest) -> tuple[Sheet, Layout]:
    """The chat's picture: crowded bands folded."""
    sheet = _sheet(*request.param)
    return sheet, layout_sheet(sheet, "ru")


def test_every_total_shown_is_placed_inside_its_own_players_band(
    game: tuple[Sheet, Layout],
) -> None:
    _, layout = game
    regions = layout.bands()
    shown = [r for r in layout.runs if r.kind is RunKind.TOTAL]
    assert shown
    for run in shown:
        assert run.band is not None
        region = regions[run.band]
        assert region.player == run.band.player
        assert box_in_polygon(run.box, region.points), (run.band, run.record, run.text, run.box)


def test_the_full_sheet_places_every_running_total_inside_its_own_players_band(
    full: tuple[Sheet, Layout],
) -> None:
    sheet, layout = full
    regions = layout.bands()
    totals = {(r.band, r.record): r for r in layout.runs if r.kind is RunKind.TOTAL}
    written = [(band, record) for band, values in sheet.history.items() for record, _ in values]
    assert written, "the game wrote nothing"
    assert len(totals) == len(written)
    for band, record in written:
        run = totals[band, record]
        region = regions[band]
        assert region.player == band.player
        assert box_in_polygon(run.box, region.points), (band, record, run.text, run.box)


def test_each_total_shows_the_value_the_column_took(game: tuple[Sheet, Layout]) -> None:
    sheet, layout = game
    texts = {(r.band, r.record): r.text for r in layout.runs if r.kind is RunKind.TOTAL}
    for band, values in sheet.history.items():
        for i, (record, total) in enumerate(values):
            dot = "" if i == len(values) - 1 else "."
            if (band, record) in texts:
                assert texts[band, record] == format_amount(total) + dot


def test_every_band_shows_its_latest_total_and_folds_only_its_oldest(
    chat: tuple[Sheet, Layout],
) -> None:
    """The chat's picture: a crowded band folds its oldest totals behind "…" (the first shown is
    the running total they came to); the latest is always there, and the strip says what "…"
    means."""
    sheet, layout = chat
    for band, values in sheet.history.items():
        records = [r.record for r in layout.runs if r.band == band and r.kind is RunKind.TOTAL]
        assert records == [record for record, _ in values[len(values) - len(records) :]], band
        folded = any(r.band == band and r.kind is RunKind.ELLIPSIS for r in layout.runs)
        assert folded == (len(records) < len(values)), band
        cut = len(values) - len(records)  # a few at a time, so that a growing column stays put
        assert cut % PHONE.fold == 0 or len(records) == 1, (band, cut)
    legend = " ".join(r.text for r in layout.runs if r.kind is RunKind.LEGEND)
    assert ("… — старые значения свёрнуты" in legend) == any(
        r.kind is RunKind.ELLIPSIS for r in layout.runs
    )


def test_only_the_latest_value_of_a_band_is_emphasised(game: tuple[Sheet, Layout]) -> None:
    sheet, layout = game
    for band, values in sheet.history.items():
        runs = [r for r in layout.runs if r.kind is RunKind.TOTAL and r.band == band]
        assert [r.record for r in runs if r.latest] == [values[-1][0]]
        assert all(r.bold == r.latest for r in runs)


def test_no_two_text_runs_overlap(game: tuple[Sheet, Layout]) -> None:
    _, layout = game
    boxes = [r.box for r in layout.runs]
    pairs = overlapping_pairs(boxes)
    assert not pairs, [(layout.runs[i].text, layout.runs[j].text) for i, j in pairs[:5]]


def test_everything_lies_inside_the_canvas(game: tuple[Sheet, Layout]) -> None:
    _, layout = game
    assert (layout.width, layout.height) == (model.WIDTH, model.HEIGHT)
    for run in layout.runs:
        x0, y0, x1, y1 = run.box
        assert 0 <= x0 < x1 <= layout.width and 0 <= y0 < y1 <= layout.height, run
    for region in layout.bands().values():
        assert all(0 <= x <= layout.width and 0 <= y <= layout.height for x, y in region.points)


def test_the_full_sheet_cuts_no_column_short_even_after_200_deals(
    full: tuple[Sheet, Layout],
) -> None:
    """spec/sheet.md: long columns wrap and shrink to fit, nothing is cut off."""
    _, layout = full
    assert not [r for r in layout.runs if r.kind is RunKind.ELLIPSIS]


def test_every_player_has_a_mountain_a_pool_and_whists_on_each_other_player(
    game: tuple[Sheet, Layout],
) -> None:
    sheet, layout = game
    size = sheet.game.size
    expected = {Band(p, Column.POOL) for p in range(size)} | {
        Band(p, Column.MOUNTAIN) for p in range(size)
    }
    expected |= {Band(p, Column.WHISTS, t) for p in range(size) for t in range(size) if t != p}
    assert set(layout.bands()) == expected


def test_each_players_name_stands_in_his_sector(game: tuple[Sheet, Layout]) -> None:
    sheet, layout = game
    names = [r.text for r in layout.runs if r.kind is RunKind.NAME]
    assert sorted(names) == sorted(sheet.game.players)


@pytest.mark.parametrize(
    ("lang", "words"),
    [("ru", ("Пуля", "Гора", "Висты")), ("en", ("Pool", "Mountain", "Whists"))],
)
@pytest.mark.parametrize("players", SIZES)
def test_band_captions_are_in_the_chats_language(
    lang: str, words: tuple[str, ...], players: int
) -> None:
    layout = layout_sheet(random_sheet(players, 10), lang)
    captions = [r.text for r in layout.runs if r.kind is RunKind.CAPTION]
    for word in words:
        assert any(c.startswith(word) for c in captions), (word, captions)


def test_an_unknown_language_falls_back_to_english() -> None:
    layout = layout_sheet(random_sheet(3, 5), "de")
    assert "Pool" in [r.text for r in layout.runs]


def test_a_closed_pool_is_marked() -> None:
    sheet = closed_pool_sheet()
    assert sheet.closed_pools == {0}
    layout = layout_sheet(sheet, "en")
    pool = Band(0, Column.POOL)
    assert layout.bands()[pool].fill == CLOSED_FILL
    assert any(r.kind is RunKind.MARK and "✔" in r.text and r.band == pool for r in layout.runs)
    other = Band(1, Column.POOL)
    assert layout.bands()[other].fill != CLOSED_FILL


def test_hearts_and_diamonds_are_red() -> None:
    """sheet.md: ♦♥ in red; the last deal of this game is a seven of hearts."""
    layout = layout_sheet(closed_pool_sheet(), "en")
    hearts = [r for r in layout.runs if r.text == "♥"]
    assert hearts and all(r.color == RED for r in hearts)


def strip_text(layout: Layout) -> str:
    return "".join(r.text for r in layout.runs if r.kind in (RunKind.STRIP, RunKind.BALANCE))


def test_the_strip_shows_convention_overrides_deals_next_dealer_and_balances() -> None:
    sheet = closed_pool_sheet()
    layout = layout_sheet(sheet, "en")
    strip = strip_text(layout)
    assert "Sochi" in strip
    assert "pool_target=10" in strip
    assert "deals: 2" in strip
    assert "deals next: " in strip and sheet.game.players[sheet.next_dealer] in strip
    for name in sheet.game.players:
        assert name in strip
    assert "wh." in strip and "(" in strip  # balances in whists and, with a stake, in money


def test_the_strip_shows_the_settlement_it_is_given() -> None:
    sheet = closed_pool_sheet()
    given = Settlement(
        balances=(Fraction(110, 3), Fraction(-25, 2), Fraction(-145, 6)),
        mountains=(Fraction(0),) * 3,
        money=None,
        transfers=(),
    )
    strip = strip_text(layout_sheet(sheet, "ru", settlement=given))
    assert "+36⅔ в." in strip
    assert "−12,5 в." in strip  # a Russian sheet writes its decimals as the chat does
    english = strip_text(layout_sheet(sheet, "en", settlement=given))
    assert "+36⅔ wh." in english
    assert "−12.5 wh." in english


def test_a_russian_sheet_writes_the_stake_and_money_with_a_decimal_comma() -> None:
    """One number formatter: a Russian sheet writes `0,1` and `+5,54`, English `0.1`."""
    sheet = closed_pool_sheet()
    given = Settlement(
        balances=(Fraction(277, 50), Fraction(-277, 50), Fraction(0)),
        mountains=(Fraction(0),) * 3,
        money=(Decimal("0.55"), Decimal("-0.55"), Decimal("0")),
        transfers=(),
    )
    ru = strip_text(layout_sheet(sheet, "ru", settlement=given))
    en = strip_text(layout_sheet(sheet, "en", settlement=given))
    assert "ставка 0,1" in ru and "stake 0.1" in en
    assert "+5,54 в. (+0,55)" in ru and "+5.54 wh. (+0.55)" in en
    assert "−5,54 в. (−0,55)" in ru and "0 wh. (0.00)" in en


def test_a_corrected_value_shows_the_wrong_value_a_dot_and_the_right_value() -> None:
    """sheet.md: a corrected value is the wrong value, a dot, the right value, with its number."""
    sheet = random_sheet(3, 12, seed=4)
    band, values = next((b, v) for b, v in sheet.history.items() if len(v) >= 3)
    record, right = values[1]
    layout = layout_sheet(
        sheet, "ru", corrections={(band, record): Correction(right + 6, number=3)}
    )
    runs = [r for r in layout.runs if r.band == band]
    at = next(i for i, r in enumerate(runs) if r.kind is RunKind.TOTAL and r.record == record)
    wrong, total, mark = runs[at - 1], runs[at], runs[at + 1]
    assert wrong.kind is RunKind.WRONG and wrong.text == format_amount(right + 6) + "."
    assert total.text == format_amount(right)
    assert mark.kind is RunKind.MARK and mark.text == "³."
    assert wrong.box[2] <= total.box[0] and total.box[2] <= mark.box[0]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(12), "12"),
        (Fraction(110, 3), "36⅔"),
        (Fraction(25, 2), "12½"),
        (Fraction(-1, 4), "−¼"),
        (Fraction(-7, 2), "−3½"),
        (Fraction(85, 12), "7¹⁄₁₂"),
    ],
)
def test_totals_write_fractions_as_paper_does(value: Fraction, text: str) -> None:
    assert format_amount(value) == text


def test_the_strip_writes_halves_as_decimals() -> None:
    assert format_amount(Fraction(25, 2), decimals=True, sign=True) == "+12.5"
    assert format_amount(Fraction(110, 3), decimals=True) == "36⅔"


def test_the_layout_is_deterministic() -> None:
    sheet = random_sheet(4, 30, seed=9)
    assert layout_sheet(sheet, "en") == layout_sheet(sheet, "en")


@pytest.mark.parametrize(
    ("record", "text"),
    [
        (Misere(0, 0), "Anna misère ="),
        (Misere(0, 2), "Anna misère (2 tricks)"),
        (Raspasy(((0, 5), (1, 4), (2, 1))), "raspasy: Anna 5, Boris 4, Clara 1"),
    ],
)
def test_the_strip_names_the_last_deal(record: Record, text: str) -> None:
    strip = "".join(
        r.text for r in layout_sheet(sheet_of(record), "en").runs if r.kind is RunKind.STRIP
    )
    assert "Deal 1: " + text in strip


@pytest.mark.parametrize("fold", [True, False])
def test_a_column_too_long_for_its_band_keeps_its_newest_values_behind_an_ellipsis(
    fold: bool,
) -> None:
    """Even the full sheet folds a column that 9 px cannot hold (3,000 totals)."""
    band = Band(1, Column.MOUNTAIN)
    values = tuple((i, Fraction(1000 + 7 * i)) for i in range(3000))
    layout = layout_sheet(synthetic_sheet({band: values}), "en", fold=fold)
    runs = [r for r in layout.runs if r.band == band]
    kinds = [r.kind for r in runs]
    assert RunKind.ELLIPSIS in kinds and RunKind.CAPTION in kinds
    assert kinds.index(RunKind.ELLIPSIS) > kinds.index(RunKind.CAPTION)
    totals = [r for r in runs if r.kind is RunKind.TOTAL]
    assert totals[-1].latest and totals[-1].text == format_amount(values[-1][1])
    assert [r.record for r in totals] == [i for i, _ in values[-len(totals) :]]
    assert not overlapping_pairs([r.box for r in layout.runs])
    assert all(box_in_polygon(r.box, layout.bands()[band].points) for r in runs)


# -- every correction shown, a legend, a caption in every band ------------------------------


def test_every_band_has_its_caption(game: tuple[Sheet, Layout]) -> None:
    """Its size at the phone's width: tests/render/test_phone.py."""
    _, layout = game
    captions = [r for r in layout.runs if r.kind is RunKind.CAPTION]
    assert {r.band for r in captions} == set(layout.bands())


@pytest.mark.parametrize("column", [Column.POOL, Column.MOUNTAIN])
def test_a_value_corrected_away_stays_in_its_band_grey_with_its_number(column: Column) -> None:
    """A correction after which the record writes nothing in a band (a mountain 44 that is no
    more, a pool value moved elsewhere) keeps the wrong value, grey, with the correction's number."""
    sheet = random_sheet(3, 12, seed=4)
    band, values = next(
        (b, v) for b, v in sheet.history.items() if b.column is column and len(v) >= 2
    )
    written = {record for record, _ in values}
    away = next(i for i in range(len(sheet.records)) if i not in written and i > values[0][0])
    layout = layout_sheet(sheet, "ru", corrections={(band, away): Correction(Fraction(44), 2)})
    runs = [r for r in layout.runs if r.band == band]
    at = next(i for i, r in enumerate(runs) if r.kind is RunKind.WRONG)
    wrong, mark = runs[at], runs[at + 1]
    assert (wrong.text, wrong.color) == ("44", MUTED)
    assert mark.kind is RunKind.MARK and mark.text.startswith("²")
    before = [r.record for r in runs[:at] if r.kind is RunKind.TOTAL]
    after = [r.record for r in runs[at:] if r.kind is RunKind.TOTAL]
    assert all(r is not None and r < away for r in before)
    assert all(r is not None and r > away for r in after)
    polygon = layout.bands()[band].points
    assert box_in_polygon(wrong.box, polygon) and box_in_polygon(mark.box, polygon)
    totals = [r.record for r in runs if r.kind is RunKind.TOTAL]
    assert totals == [record for record, _ in values]  # no total lost beside it


def test_a_legend_explains_the_marks_only_when_a_correction_is_drawn() -> None:
    sheet = random_sheet(3, 12, seed=4)
    plain = layout_sheet(sheet, "en")
    assert [r for r in plain.runs if r.kind is RunKind.LEGEND] == []
    band, values = next((b, v) for b, v in sheet.history.items() if len(v) >= 2)
    fixed = {(band, values[0][0]): Correction(values[0][1] + 2, 1)}
    for lang, words in (("en", "grey: the value first written"), ("ru", "серым — записанное")):
        legend = [
            r
            for r in layout_sheet(sheet, lang, corrections=fixed).runs
            if r.kind is RunKind.LEGEND
        ]
        assert " ".join(r.text for r in legend).startswith(words)
        assert all(r.color == MUTED for r in legend)


def test_a_legend_says_what_help_is_when_the_sheet_has_help() -> None:
    """Sochi: Anna's second game passes her pool of 10, and the rest helps another pool."""
    sheet = sheet_of(
        contract(ANNA, 10, Suit.SPADES, 0, Role.PASS, Role.PASS),
        contract(ANNA, 8, Suit.CLUBS, 0, Role.PASS, Role.PASS),
    )
    assert any(e.reason is Reason.HELP for r in sheet.records for e in r.entries)
    legend = [r.text for r in layout_sheet(sheet, "ru").runs if r.kind is RunKind.LEGEND]
    assert " ".join(legend).startswith("помощь: очки сверх пули")
    no_help = [r for r in layout_sheet(closed_pool_sheet(), "ru").runs if r.kind is RunKind.LEGEND]
    assert no_help == []


@given(
    cuts=st.lists(st.integers(0, 400), unique=True).map(sorted),
    threshold=st.integers(-5, 405),
)
def test_the_fewest_folded_is_the_least_cut_that_fits_when_more_folded_fits_too(
    cuts: list[int], threshold: int
) -> None:
    fitting = [cut for cut in cuts if cut >= threshold]
    assert fewest(cuts, lambda cut: cut >= threshold) == (fitting[0] if fitting else None)
