"""The /top picture: a PNG 720 px wide, a row per player (at most 20, then "… +N"), the same
picture every time and from several threads at once; docs/img/top-ru.png and top-en.png are
drawn by `python -m tests.render.test_standings`."""

from __future__ import annotations

import io
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

from PIL import Image

from bot.sheet.standings import MOST_ROWS, ROW, WIDTH, StandingRow, render_standings_png

NAMES = ("Анна", "Борис", "Клара", "Дмитрий", "Ева", "Фёдор")
LATIN = ("Anna", "Boris", "Clara", "Dmitry", "Eva", "Fedor")
TOTALS = (Fraction(1241, 10), Fraction(563, 10), Fraction(12), Fraction(-347, 10), -Fraction(43))


def rows(count: int, names: tuple[str, ...] = NAMES) -> list[StandingRow]:
    found = []
    for index in range(count):
        total = TOTALS[index % len(TOTALS)] - index
        games = 3 + index % 7
        found.append(
            StandingRow(
                index + 1, names[index % len(names)], total, games, total / games, 1530 - 9 * index
            )
        )
    return found


def size(png: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image.size


def test_the_picture_is_720_wide_and_a_row_taller_per_player() -> None:
    three, four = (size(render_standings_png(rows(n), "ru", "Т", "п")) for n in (3, 4))
    assert three[0] == four[0] == WIDTH
    assert four[1] - three[1] == ROW


def test_past_twenty_players_the_rest_are_counted_not_drawn() -> None:
    many = size(render_standings_png(rows(MOST_ROWS + 7), "en", "Standings", "all time"))
    most = size(render_standings_png(rows(MOST_ROWS), "en", "Standings", "all time"))
    assert many[1] - most[1] == 48


def test_the_same_standings_draw_the_same_pixels_from_any_thread() -> None:
    table = rows(6)
    first = render_standings_png(table, "ru", "Турнирная таблица", "за всё время")
    with ThreadPoolExecutor(4) as pool:
        drawn = list(
            pool.map(
                lambda _: render_standings_png(table, "ru", "Турнирная таблица", "за всё время"),
                range(8),
            )
        )
    pixels = Image.open(io.BytesIO(first)).tobytes()
    assert all(Image.open(io.BytesIO(png)).tobytes() == pixels for png in drawn)


def test_no_players_draw_a_word_not_an_empty_frame() -> None:
    assert size(render_standings_png([], "en", "Standings", "this month"))[1] > ROW


if __name__ == "__main__":  # the pictures of docs/img
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
    (folder / "top-ru.png").write_bytes(
        render_standings_png(rows(5), "ru", "Турнирная таблица", "за этот год · 14 пулек")
    )
    (folder / "top-en.png").write_bytes(
        render_standings_png(rows(5, LATIN), "en", "Standings", "this year · 14 games")
    )
