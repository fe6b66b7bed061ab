"""`/calc` reads a sheet as people read it aloud (scoring/calc.py): separators anywhere they make
sense, «висты на Борю 30», Russian names declined, and the same balances as the plain form."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scoring.calc import CalcError, find_name, parse_calc, parse_player_line, split_words
from scoring.settle import settle

NAMES = ("Оля", "Боря", "Вова")
# settlement.md E1 (mountains 42, 96, 132), read aloud and written plainly.
E1_PLAIN = """/calc сочи
Оля гора 42 висты Боря 170 Вова 60
Боря гора 96 висты Оля 64 Вова 178
Вова гора 132 висты Оля 88 Боря 95"""
E1_ALOUD = """/calc сочи,
Оля: гора 42, висты: Боря 170, Вова 60
Боря: гора 96; висты на Олю 64 и на Вову 178
Вова — гора 132, висты: на Олю 88, на Борю 95"""


def test_a_sheet_read_aloud_is_the_sheet_written_plainly() -> None:
    assert parse_calc(E1_ALOUD) == parse_calc(E1_PLAIN)


def test_a_sheet_read_aloud_settles_as_settlement_e1() -> None:
    """settlement.md E1: balances in whists (Sochi) of the mountains 42, 96, 132."""
    sheet = parse_calc(E1_ALOUD)
    plain = parse_calc(E1_PLAIN)
    assert settle(sheet.rules, sheet.totals).balances == (
        settle(plain.rules, plain.totals).balances
    )


def test_the_first_line_read_aloud() -> None:
    plain = parse_calc("/calc сочи пуля 20 ставка 0,1\nОля\nБоря\nВова")
    assert parse_calc("/calc сочи, пуля: 20, ставка: 0,1\nОля:\nБоря,\nВова") == plain
    assert plain.stake == Fraction(1, 10) and plain.rules.pool_target == 20


@pytest.mark.parametrize(
    "line",
    [
        "висты на Борю 30",
        "висты: Боря 30",
        "висты Борю 30",
        "висты, на Борю, 30",
        "висты на Бори 30",  # a slip of the case still names one player
    ],
)
def test_whists_on_a_player_in_any_case_form_of_his_name(line: str) -> None:
    read = parse_player_line(line, NAMES, name="Оля")
    assert read.whists == (("Боря", Fraction(30)),)


def test_mountain_and_whists_of_one_player_as_said_at_the_table() -> None:
    """The issue's own words: «гора 42, висты: Боря 170, Вова 60»."""
    read = parse_player_line("гора 42, висты: Боря 170, Вова 60", NAMES, name="Оля")
    assert read.mountain == 42
    assert read.whists == (("Боря", Fraction(170)), ("Вова", Fraction(60)))


def test_a_decimal_comma_stays_a_number_and_a_comma_after_it_a_separator() -> None:
    read = parse_player_line("гора 4,5, висты Боря 36,5, Вова 2", NAMES, name="Оля")
    assert read.mountain == Fraction(9, 2)
    assert read.whists == (("Боря", Fraction(73, 2)), ("Вова", Fraction(2)))
    assert split_words("пуля 10,гора 3") == ["пуля", "10", "гора", "3"]


def test_english_reads_on_and_and() -> None:
    read = parse_player_line(
        "mountain: 3, whists: on Boris 30, and on Clara 16",
        ("Anna", "Boris", "Clara"),
        name="Anna",
    )
    assert read.mountain == 3
    assert read.whists == (("Boris", Fraction(30)), ("Clara", Fraction(16)))


@pytest.mark.parametrize(
    ("word", "names", "found"),
    [
        ("Борю", ("Боря", "Вова"), "Боря"),
        ("Вову", ("Боря", "Вова"), "Вова"),
        ("Бориса", ("Борис", "Анна"), "Борис"),
        ("Анне", ("Борис", "Анна"), "Анна"),
        ("Игоря", ("Игорь", "Анна"), "Игорь"),
        ("Андрею", ("Андрей", "Анна"), "Андрей"),
        ("борис", ("Борис", "Анна"), "Борис"),  # exactly, whatever the case of the letters
        ("Сашу", ("Саша", "Сашу"), "Сашу"),  # an exact name wins over a case form
        ("Вале", ("Валя", "Вал"), None),  # a case form of both names: neither
        ("Бориса", ("Boris", "Анна"), None),  # Latin names are not declined
        ("Ани", ("Аня", "Ана"), None),  # a case form of two names names nobody
    ],
)
def test_a_name_is_found_exactly_or_as_one_russian_case_form(
    word: str, names: tuple[str, ...], found: str | None
) -> None:
    assert find_name(word, names) == found


def test_a_case_form_that_names_two_players_is_refused_listing_them() -> None:
    with pytest.raises(CalcError) as caught:
        parse_player_line("висты на Ани 3", ("Оля", "Аня", "Ана"), name="Оля")
    assert caught.value.code == "calc-unknown-name"
    assert caught.value.span == "Ани"
