"""Issue 12: the picture drawn again only where it changed — kept bands, kept tiles, kept PNG
strips — is the full drawing, pixel for pixel, on random games played deal by
deal with undos, going back, corrections and a switch between games."""

from __future__ import annotations

import importlib
import statistics
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bot.sheet
from bench.sheets import NAMES, random_records
from bot.sheet import Correction, render_full_png, render_sheet_png
from bot.sheet.canvas import STRIP, Canvas, RunKey, changed_rows
from bot.sheet.layout import Layout, RunKind, layout_sheet
from bot.sheet.model import HEIGHT, PHONE, WIDTH
from bot.sheet.raster import LIMIT, background, is_busy, mask, rasterise
from scoring.deal import Adjust, Column, Record
from scoring.errors import IllegalDeal
from scoring.replay import Replay
from scoring.rules import rules_for
from scoring.sheet import Band, Game, Sheet
from tests.render.factories import picture


def playable(game: Game, records: list[Record]) -> list[Record]:
    """The records up to the first one the game refuses (after its end)."""
    try:
        Replay(game).advance(records)
    except IllegalDeal as refused:
        return records[: int(refused.params["record"])]
    return records


def same_as_full(sheet: Sheet, lang: str, corrections: dict[tuple[Band, int], Correction]) -> None:
    kept = render_sheet_png(sheet, lang, corrections=corrections)
    full = render_full_png(sheet, lang, corrections=corrections)
    assert picture(kept) == picture(full)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from((3, 4)),
    st.integers(0, 10_000),
    st.lists(st.sampled_from(("deal", "deal", "deal", "back", "adjust", "fix")), max_size=14),
    st.sampled_from(("ru", "en")),
    st.sampled_from((10, 24, 120)),
)
def test_pictures_drawn_deal_by_deal_are_the_full_pictures(
    players: int, seed: int, steps: list[str], lang: str, pool: int
) -> None:
    bot.sheet.canvas = Canvas()  # nothing kept from other tests
    game = Game(rules_for("sochi", players, {"pool_target": str(pool)}), NAMES[:players], 0)
    stock = random_records(players, 60, seed)
    records = playable(game, stock[: seed % 40])
    corrections: dict[tuple[Band, int], Correction] = {}
    for step in ["deal", *steps]:
        if step == "deal":
            records = [*records, stock[len(records) % len(stock)]]
        elif step == "back":
            records = records[: max(0, len(records) - 3)]
        elif step == "adjust":
            records = [*records, Adjust(seed % players, Column.MOUNTAIN, 4)]
        records = playable(game, records)
        sheet = Replay(game).advance(records)
        if step == "fix" and sheet.history:
            band = sorted(sheet.history, key=repr)[seed % len(sheet.history)]
            at = sheet.history[band][-1][0]
            corrections = {(band, at): Correction(Fraction(seed % 50), 1)}
        same_as_full(sheet, lang, corrections)


def test_two_games_drawn_in_turn_are_each_their_full_pictures() -> None:
    bot.sheet.canvas = Canvas()
    games = [Game(rules_for("sochi", n, {"pool_target": "200"}), NAMES[:n], 0) for n in (3, 4)]
    stocks = [random_records(n, 30, seed=n) for n in (3, 4)]
    for count in range(1, 30, 4):
        for game, stock in zip(games, stocks, strict=True):
            same_as_full(Replay(game).advance(stock[:count]), "ru", {})


def test_a_deal_redraws_a_few_tiles_of_a_long_game() -> None:
    bot.sheet.canvas = canvas = Canvas()
    game = Game(rules_for("sochi", 3, {"pool_target": "400"}), NAMES[:3], 0)
    stock = random_records(3, 150, seed=5)
    render_sheet_png(Replay(game).advance(stock[:149]))
    before = canvas.tiles_drawn
    render_sheet_png(Replay(game).advance(stock))
    whole = (1200 // 64 + 1) * (1000 // 64 + 1)
    assert 0 < canvas.tiles_drawn - before < whole // 3


def test_a_deal_recompresses_only_the_strips_its_new_text_lies_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Deals 41–60 of a game: the median deal recompresses under a quarter of the picture's
    strips (its bands' new totals and the strip's balances; a band that folds moves more), the
    same strips of the RGB rows the picture keeps and of the palette it is sent in."""
    bot.sheet.canvas = Canvas()
    game = Game(rules_for("sochi", 3, {"pool_target": "400"}), NAMES[:3], 0)
    stock = random_records(3, 60, seed=5)
    line = Replay(game)
    render_sheet_png(line.advance(stock[:40]))
    compressed: list[bytes] = []
    strips = importlib.import_module("bot.sheet.strips")
    real = strips.deflate

    def counted(rows: bytes) -> bytes:
        compressed.append(rows)
        return real(rows)

    monkeypatch.setattr(strips, "deflate", counted)
    counts = []
    for count in range(41, 61):
        compressed.clear()
        sheet = line.advance(stock[count - 1 : count])
        png = render_sheet_png(sheet)
        assert png[25] == 3  # sent in the palette: both streams are kept up to date
        rgb = [rows for rows in compressed if len(rows) % (3 * WIDTH + 1) == 0]
        assert len(rgb) * 2 == len(compressed)  # each strip deflated in RGB and in the palette
        counts.append(len(rgb))
        assert picture(png) == picture(render_full_png(sheet))
    assert 0 < statistics.median(counts) < -(-HEIGHT // STRIP) / 4, counts


def key(text: str, y: int, height: int = 20) -> RunKey:
    return (text, 10, y, 28, False, "#1f2937", height)


def test_a_tile_redrawn_marks_the_rows_of_the_runs_it_gained_or_lost() -> None:
    a, b, c = key("12", 70), key("14", 100), key("16", 120, 30)
    assert changed_rows((0, 1), (a, b), (a, b, c)) == [range(120, 128)]  # the tile ends at 128
    assert changed_rows((0, 1), (a, b), (b,)) == [range(70, 90)]
    # The same runs pasted in another order may change where they overlap: the whole tile.
    assert changed_rows((0, 1), (a, b), (b, a)) == [range(64, 128)]


def test_a_crowded_sheet_in_the_palette_is_kept_strip_by_strip_as_the_full_picture() -> None:
    bot.sheet.canvas = Canvas()
    game = Game(rules_for("sochi", 4, {"pool_target": "900"}), NAMES[:4], 0)
    stock = playable(game, random_records(4, 420, seed=3))
    for count in (len(stock) - 5, len(stock) - 4, len(stock) - 1, len(stock) - 3):
        sheet = Replay(game).advance(stock[:count])
        png = render_sheet_png(sheet, "en")
        assert png[25] == 3  # IHDR colour type: the palette (the RGB stream passed 200 KB)
        assert len(png) < 200 * 1024
        same_as_full(sheet, "en", {})


def test_more_games_than_pictures_kept_draw_over_each_other_exactly() -> None:
    bot.sheet.canvas = Canvas(kept=1)
    game = Game(rules_for("sochi", 3, {"pool_target": "200"}), NAMES[:3], 0)
    stocks = [random_records(3, 30, seed=s) for s in (1, 2)]
    for count in range(1, 30, 5):
        for game_id, stock in enumerate(stocks):
            sheet = Replay(game).advance(stock[:count])
            kept = render_sheet_png(sheet, "en", game=game_id)
            assert picture(kept) == picture(render_full_png(sheet, "en"))


def test_a_game_not_drawn_for_a_while_gives_its_picture_back() -> None:
    now = [0.0]
    bot.sheet.canvas = canvas = Canvas(idle=60, clock=lambda: now[0])
    game = Game(rules_for("sochi", 3, {"pool_target": "200"}), NAMES[:3], 0)
    stocks = [random_records(3, 12, seed=s) for s in (1, 2)]
    render_sheet_png(Replay(game).advance(stocks[0][:10]), "en", game="a")
    now[0] = 30
    render_sheet_png(Replay(game).advance(stocks[1][:10]), "en", game="b")
    assert len(canvas) == 2
    now[0] = 100  # "a" waited 100 s, "b" 70: both past a minute, but "b" is drawn now
    render_sheet_png(Replay(game).advance(stocks[1][:11]), "en", game="b")
    assert len(canvas) == 1
    now[0] = 101  # "a" comes back: drawn whole again, the same picture
    sheet = Replay(game).advance(stocks[0][:11])
    assert picture(render_sheet_png(sheet, "en", game="a")) == picture(
        render_full_png(sheet, "en")
    )
    assert len(canvas) == 2


def test_the_pictures_kept_stay_within_their_memory_budget_and_draw_exactly() -> None:
    game = Game(rules_for("sochi", 3, {"pool_target": "200"}), NAMES[:3], 0)
    sheet = Replay(game).advance(random_records(3, 10, seed=1))
    bot.sheet.canvas = probe = Canvas()
    render_sheet_png(sheet, "en", game="probe")
    one = probe.held  # what one picture holds
    bot.sheet.canvas = canvas = Canvas(budget=int(2.5 * one))
    stocks = [random_records(3, 12, seed=s) for s in range(5)]
    for game_id, stock in enumerate(stocks):
        sheet = Replay(game).advance(stock[:10])
        kept = render_sheet_png(sheet, "en", game=game_id)
        assert picture(kept) == picture(render_full_png(sheet, "en"))
        assert canvas.held <= 2.5 * one * 1.1  # (a picture's strips grow a little when encoded)
    assert len(canvas) == 2


def test_a_quiet_game_gives_its_picture_back_on_the_timer_with_no_picture_drawn() -> None:
    now = [0.0]
    bot.sheet.canvas = canvas = Canvas(idle=60, clock=lambda: now[0])
    game = Game(rules_for("sochi", 3, {"pool_target": "200"}), NAMES[:3], 0)
    render_sheet_png(Replay(game).advance(random_records(3, 12, seed=1)[:10]), "en", game="a")
    now[0] = 59
    assert (canvas.expire(), len(canvas)) == (0, 1)
    now[0] = 61
    assert (canvas.expire(), len(canvas), canvas.held) == (1, 0, 0)


def grown_and_whole(sheet: Sheet, lang: str = "en") -> tuple[Layout, Layout]:
    return layout_sheet(sheet, lang), layout_sheet(sheet, lang, keep=False)


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from((3, 4)),
    st.integers(0, 10_000),
    st.lists(st.sampled_from(("deal", "deal", "deal", "deals", "back")), max_size=12),
    st.sampled_from(("ru", "en")),
)
def test_columns_grown_total_by_total_are_the_columns_laid_out_whole(
    players: int, seed: int, steps: list[str], lang: str
) -> None:
    """One replay advanced deal by deal, as a live game's is (its bands' tuples shared from deal
    to deal, so the layout grows each column from its last total: `bot.sheet.totals.grow`), and a
    fork going back, as an undo's: every layout is the one laid out whole."""
    game = Game(rules_for("sochi", players, {"pool_target": "300"}), NAMES[:players], 0)
    stock = playable(game, random_records(players, 120, seed))
    line = Replay(game)
    line.advance(stock[: seed % 30])
    for step in ["deal", *steps]:
        if step == "back" and line.count > 3:
            back = Replay(game)
            back.advance(stock[: line.count - 3])
            line = back
        todo = 1 if step == "deal" else 4
        line.advance(stock[line.count : line.count + todo])
        grown, whole = grown_and_whole(line.sheet(), lang)
        assert grown == whole


def test_a_column_past_its_band_hides_its_oldest_totals_a_step_at_a_time() -> None:
    """A 3-player game to 1,000 deals: the crowded columns put their oldest totals behind "…",
    `PHONE.fold` at a time, and every layout on the way, grown total by total, is the whole one."""
    game = Game(rules_for("sochi", 3, {"pool_target": "5000"}), NAMES[:3], 0)
    stock = playable(game, random_records(3, 1000, seed=11))
    line = Replay(game)
    line.advance(stock[:700])
    layout_sheet(line.sheet(), "en")
    cuts: set[int] = set()
    for count in range(701, len(stock) + 1):
        sheet = line.advance(stock[count - 1 : count])
        grown = layout_sheet(sheet, "en")
        if count % 10 == 0 or count == len(stock):
            assert grown == layout_sheet(sheet, "en", keep=False)
        for band, values in sheet.history.items():
            shown = [r for r in grown.runs if r.band == band and r.kind is RunKind.TOTAL]
            if any(r.band == band and r.kind is RunKind.ELLIPSIS for r in grown.runs):
                hidden = len(values) - len(shown)
                assert hidden % PHONE.fold == 0 or hidden == len(values) - 1
                cuts.add(hidden)
    assert cuts, "no column outgrew its band"


def test_games_growing_in_several_threads_at_once_are_each_their_full_pictures() -> None:
    """No lock is shared by every game while a picture is drawn (issue 12): four games with the
    same names — so they share the layout's kept bands — grow deal by deal in four threads, and
    every picture is its full drawing."""
    bot.sheet.canvas = Canvas(kept=3)  # fewer kept than games: pictures are drawn over each other

    def play(seed: int) -> list[bool]:
        game = Game(rules_for("sochi", 3, {"pool_target": "300"}), NAMES[:3], 0)
        stock = playable(game, random_records(3, 40, seed))
        line, same = Replay(game), []
        for count in range(1, len(stock) + 1):
            sheet = line.advance(stock[count - 1 : count])
            kept = render_sheet_png(sheet, "en", game=seed)
            same.append(picture(kept) == picture(render_full_png(sheet, "en")))
        return same

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(play, range(4)))
    assert all(all(same) and same for same in results)


def test_a_kept_picture_holds_its_pixels_only_as_strips_each_inflating_alone() -> None:
    """A kept picture of a 200-deal game is its compressed strips (some 400 KB with its runs'
    places, not 3.9 MB of RGB); each strip, inflated alone, gives the full drawing's rows."""
    canvas = Canvas()
    game = Game(rules_for("sochi", 3, {"pool_target": "900"}), NAMES[:3], 0)
    line = Replay(game)
    stock = playable(game, random_records(3, 201, seed=7))
    for records in (stock[:200], stock[200:]):
        layout = layout_sheet(line.advance(records), "en", game="kept")
        kept = canvas.draw(layout, background(layout), mask, "kept")
        canvas.encode(kept, LIMIT, is_busy(layout))
    assert kept.pixels().tobytes() == rasterise(layout).tobytes()
    assert 100_000 < canvas.held < 600_000
    assert canvas.held < 0.2 * HEIGHT * WIDTH * 3
