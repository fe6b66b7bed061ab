"""`/calc`: a paper sheet typed as one message — settlement.md "Input for a paper sheet", issue 16."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import calc
from scoring.calc import CalcError, parse_calc, parse_player_line
from scoring.deal import Column
from scoring.errors import ERROR_CODES
from scoring.paper import PaperSheet, as_sheet, format_calc, parse_paper_sheet
from scoring.rules import PRESETS, rules_for
from scoring.settle import settle
from scoring.sheet import Band, Totals

E1_EN = """/calc sochi
A mountain 42 whists B 170 C 60
B mountain 96 whists A 64 C 178
C mountain 132 whists A 88 B 95"""
E1_RU = """/calc сочи
A гора 42 висты B 170 C 60
B гора 96 висты A 64 C 178
C гора 132 висты A 88 B 95"""
E3_EN = """/calc sochi pool 10 stake 0.1
Anna pool 10 mountain 14 whists Boris 30 Clara 16
Boris pool 10 mountain 20 whists Anna 10 Clara 24
Clara pool 6 mountain 4 whists Anna 40 Boris 8"""
E3_RU = """/calc сочи пуля 10 ставка 0,1
Анна пуля 10 гора 14 висты Борис 30 Клара 16
Борис пуля 10 гора 20 висты Анна 10 Клара 24
Клара пуля 6 гора 4 висты Анна 40 Борис 8"""
E4_EN = """/calc russian
A pool 48 mountain 10
B pool 48 mountain 10
C pool 54 mountain 10"""
E4_RU = """/calc русский пуля 50
А пуля 48 гора 10
Б пуля 48 гора 10
В пуля 54 гора 10"""


def refused(text: str) -> CalcError:
    with pytest.raises(CalcError) as caught:
        parse_calc(text)
    assert caught.value.code in ERROR_CODES
    assert caught.value.example
    return caught.value


@pytest.mark.parametrize("text", [E1_EN, E1_RU], ids=["en", "ru"])
def test_settlement_e1_minigames_mail_ru_as_a_calc_message(text: str) -> None:
    """settlement.md E1: balances A +558, B −83, C −475 (pools left out: closed at the target)."""
    sheet = parse_calc(text)
    assert sheet.totals.pool == (20, 20, 20)
    assert settle(sheet.rules, sheet.totals, sheet.stake).balances == (558, -83, -475)


@pytest.mark.parametrize("text", [E3_EN, E3_RU], ids=["en", "ru"])
def test_settlement_e3_unfinished_pool_as_a_calc_message(text: str) -> None:
    """settlement.md E3: balances A −4, B −64, C +68; with 0.1 a whist, money −0.40, −6.40, +6.80."""
    sheet = parse_calc(text)
    settlement = settle(sheet.rules, sheet.totals, sheet.stake)
    assert settlement.balances == (-4, -64, 68)
    assert settlement.money == (Decimal("-0.40"), Decimal("-6.40"), Decimal("6.80"))
    assert len(settlement.transfers) <= 2


@pytest.mark.parametrize("text", [E4_EN, E4_RU], ids=["en", "ru"])
def test_settlement_e4_russian_seed_c_as_a_calc_message(text: str) -> None:
    """settlement.md E4: pools 48, 48, 54 to 50, ×2 — mountains 14, 14, 2; balances −40, −40, +80."""
    sheet = parse_calc(text)
    assert sheet.rules.convention == "russian"
    assert sheet.rules.pool_target == 50
    assert settle(sheet.rules, sheet.totals).balances == (-40, -40, 80)


def test_a_calc_message_reads_as_the_json_of_the_cli() -> None:
    """The same sheet as settlement.md's JSON example, field by field."""
    json_sheet = parse_paper_sheet(
        '{"convention": "sochi", "players": ["Anna", "Boris", "Clara"], "pool_target": 10,'
        ' "pool": {"Anna": 10, "Boris": 10, "Clara": 6},'
        ' "mountain": {"Anna": 14, "Boris": 20, "Clara": 4},'
        ' "whists": {"Anna": {"Boris": 30, "Clara": 16}, "Boris": {"Anna": 10, "Clara": 24},'
        ' "Clara": {"Anna": 40, "Boris": 8}}, "stake": "0.1"}'
    )
    assert parse_calc(E3_EN) == json_sheet


def test_columns_come_in_any_order_and_amounts_as_decimals_or_fractions() -> None:
    sheet = parse_calc(
        "/calc leningrad pool 20 whist_split=greedy\n"
        "Anna whists Boris 36.5 Clara 73/2 mountain 14,5 pool 18\n"
        "Boris: mountain 3, whists Anna 1/3\n"
        "Clara"
    )
    assert sheet.rules.convention == "leningrad"
    assert sheet.rules.whist_split == "greedy"
    assert sheet.totals.pool == (18, 20, 20)  # a missing pool is closed at the target
    assert sheet.totals.mountain == (Fraction(29, 2), 3, 0)
    assert sheet.totals.whists[0] == (0, Fraction(73, 2), Fraction(73, 2))
    assert sheet.totals.whists[1] == (Fraction(1, 3), 0, 0)  # a missing pair is 0


def test_an_alias_gives_the_canonical_convention_and_four_players_are_read() -> None:
    sheet = parse_calc("/calc@pulka_bot rostov\nA mountain 4\nB\nC\nD whists A 10")
    assert sheet.rules.convention == "moscow"
    assert sheet.players == ("A", "B", "C", "D")
    assert sheet.totals.whists[3][0] == 10


def test_a_sheet_impossible_for_its_convention_is_still_settled() -> None:
    """Paper is what it is: pools past the target and odd whists are settled, not refused."""
    sheet = parse_calc("/calc sochi pool 10\nA pool 31 mountain -3 whists B 7/3\nB pool 0\nC")
    assert settle(sheet.rules, sheet.totals).balances[0] > 0


@pytest.mark.parametrize(
    ("text", "code", "span", "line"),
    [
        ("/calc\nAnna pool -2\nBoris\nClara", "calc-negative", "-2", 2),
        ("/calc\nAnna whists Boris -5\nBoris\nClara", "calc-negative", "-5", 2),
        ("/calc\nAnna whists Anna 5\nBoris\nClara", "calc-whists-self", "Anna", 2),
        ("/calc\nAnna\nBoris whists Dima 5\nClara", "calc-unknown-name", "Dima", 3),
        ("/calc\nA\nB\nC\nD\nE", "calc-player-count", "E", 6),
        ("/calc\nAnna\nBoris", "calc-player-count", "", 0),
        ("/calc\nAnna\nBoris\nanna", "calc-same-name", "anna", 4),
        ("/calc\n12 pool 3\nBoris\nClara", "calc-bad-name", "12", 2),
        ("/calc sochi pool ten\nA\nB\nC", "calc-bad-number", "ten", 1),
        ("/calc sochi stake 1/2\nA\nB\nC", "calc-bad-number", "1/2", 1),
        ("/calc sochi stake 0\nA\nB\nC", "calc-bad-number", "0", 1),
        ("/calc sochi stake\nA\nB\nC", "calc-missing-number", "stake", 1),
        ("/calc bridge\nA\nB\nC", "calc-unknown-word", "bridge", 1),
        ("/calc sochi pool 10 pool 20\nA\nB\nC", "calc-repeated", "pool", 1),
        ("/calc\nA pool 10 pool 3\nB\nC", "calc-repeated", "pool", 2),
        ("/calc\nA whists B 1 B 2\nB\nC", "calc-repeated", "B", 2),
        ("/calc\nA mountain x\nB\nC", "calc-bad-number", "x", 2),
        ("/calc\nA mountain\nB\nC", "calc-missing-number", "mountain", 2),
        ("/calc\nA whists B\nB\nC", "calc-missing-number", "B", 2),
        ("/calc\nA hill 3\nB\nC", "calc-unknown-word", "hill", 2),
        ("/calc sochi whist_split=best\nA\nB\nC", "bad-option-value", "best", 1),
        ("/calc sochi colour=red\nA\nB\nC", "unknown-option", "colour", 1),
    ],
)
def test_a_broken_sheet_is_refused_quoting_the_part_at_fault(
    text: str, code: str, span: str, line: int
) -> None:
    error = refused(text)
    assert (error.code, error.span, error.line) == (code, span, line)
    if line:
        assert error.text == text.split("\n")[line - 1].removeprefix("/calc ").strip()


def test_an_error_in_a_players_line_shows_a_correct_line_with_his_own_names() -> None:
    error = refused("/calc\nAnna whists Boris x\nBoris\nClara")
    assert error.example == "Anna pool 10 mountain 14 whists Boris 30 Clara 16"
    assert parse_calc("/calc\n" + error.example + "\nBoris\nClara").totals.whists[0][1] == 30


def test_one_players_numbers_may_leave_out_his_name() -> None:
    """The step-by-step form asks for each player's numbers after his name."""
    line = parse_player_line("pool 8 whists Boris 3", ("Anna", "Boris", "Clara"), name="Anna")
    assert (line.name, line.pool, line.whists) == ("Anna", 8, (("Boris", 3),))


def test_every_calc_code_is_listed_with_the_engines_codes() -> None:
    raised = set(re.findall(r'"(calc-[a-z-]+)"', Path(calc.__file__).read_text("utf-8")))
    assert raised and raised <= ERROR_CODES


# -- properties -------------------------------------------------------------------------------
NAMES = ("Anna", "Boris", "Clara", "Дима")
amounts = st.integers(-1800, 1800).map(lambda n: Fraction(n, 6))
stakes = st.none() | st.sampled_from(["0.01", "0.1", "0.25", "1", "0.001", "3"]).map(Fraction)


@st.composite
def paper_sheets(draw: st.DrawFn) -> PaperSheet:
    size = draw(st.sampled_from([3, 4]))
    overrides = {"pool_target": str(draw(st.sampled_from([10, 20, 30, 50])))}
    if draw(st.booleans()):
        overrides["whist_split"] = draw(st.sampled_from(["greedy", "gentleman"]))
    rules = rules_for(draw(st.sampled_from(sorted(PRESETS))), size, overrides)
    pool = tuple(Fraction(draw(st.integers(0, rules.pool_target + 15))) for _ in range(size))
    mountain = tuple(draw(amounts) for _ in range(size))
    whists = tuple(
        tuple(Fraction(0) if a == b else abs(draw(amounts)) for b in range(size))
        for a in range(size)
    )
    return PaperSheet(rules, NAMES[:size], Totals(pool, mountain, whists), draw(stakes))


@given(paper_sheets())
def test_the_printed_form_of_a_sheet_parses_back_to_it(sheet: PaperSheet) -> None:
    assert parse_calc(format_calc(sheet)) == sheet


@given(paper_sheets())
def test_the_message_built_from_a_sheet_settles_as_the_sheet(sheet: PaperSheet) -> None:
    typed = parse_calc(format_calc(sheet))
    assert settle(typed.rules, typed.totals, typed.stake) == settle(
        sheet.rules, sheet.totals, sheet.stake
    )


def test_an_error_in_a_russian_message_shows_a_russian_example() -> None:
    error = refused("/calc сочи\nАнна пуля -3\nБорис\nКлара")
    assert error.example == "Анна пуля 10 гора 14 висты Борис 30 Клара 16"
    assert refused("/calc сочи пуля десять\nА\nБ\nВ").example == "/calc сочи пуля 10 ставка 0,1"


def test_a_paper_sheet_as_a_sheet_has_each_total_written_at_the_start() -> None:
    """The picture draws a paper sheet as a game with no deals: every total at record index −1."""
    paper = parse_calc(E3_EN)
    sheet = as_sheet(paper)
    assert sheet.records == () and sheet.totals == paper.totals
    assert sheet.game.players == paper.players and sheet.game.stake == paper.stake
    assert sheet.history[Band(2, Column.POOL)] == ((-1, 6),)
    assert sheet.history[Band(0, Column.WHISTS, 1)] == ((-1, 30),)
    assert Band(0, Column.WHISTS, 0) not in sheet.history
    assert sheet.closed_pools == frozenset({0, 1})  # Clara's 6 of 10 is open
