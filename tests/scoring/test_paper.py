"""A paper sheet typed in by hand: settlement.md "Input for a paper sheet"."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from scoring.errors import ERROR_CODES, ProtocolError
from scoring.paper import parse_paper_sheet
from scoring.rules import WhistSplit

SHEETS = Path(__file__).parent.parent / "data" / "sheets"
SPEC_EXAMPLE = """{"convention": "sochi", "players": ["A", "B", "C"], "pool_target": 10,
 "pool": {"A": 10, "B": 10, "C": 6}, "mountain": {"A": 14, "B": 20, "C": 4},
 "whists": {"A": {"B": 30, "C": 16}, "B": {"A": 10, "C": 24}, "C": {"A": 40, "B": 8}},
 "stake": "0.10"}"""


def refused(text: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse_paper_sheet(text)
    assert caught.value.code in ERROR_CODES
    return caught.value


def test_paper_sheet_example_of_settlement_md() -> None:
    """settlement.md "Input for a paper sheet": every field of the example."""
    sheet = parse_paper_sheet(SPEC_EXAMPLE)
    assert sheet.rules.convention == "sochi"
    assert sheet.rules.pool_target == 10
    assert sheet.players == ("A", "B", "C")
    assert sheet.totals.pool == (10, 10, 6)
    assert sheet.totals.mountain == (14, 20, 4)
    assert sheet.totals.whists == ((0, 30, 16), (10, 0, 24), (40, 8, 0))
    assert sheet.stake == Fraction(1, 10)


def test_only_players_are_required() -> None:
    sheet = parse_paper_sheet('{"players": ["Anna", "Boris", "Clara", "Dima"]}')
    assert sheet.rules.convention == "sochi"  # a missing convention is sochi
    assert sheet.rules.pool_target == 20  # a missing pool_target is the preset's
    assert sheet.totals.pool == (20, 20, 20, 20)  # a missing pool: every pool closed
    assert sheet.totals.mountain == (0, 0, 0, 0)
    assert all(w == 0 for row in sheet.totals.whists for w in row)
    assert sheet.stake is None


def test_a_convention_alias_gives_the_canonical_preset() -> None:
    sheet = parse_paper_sheet((SHEETS / "four_players_rostov.json").read_text("utf-8"))
    assert sheet.rules.convention == "moscow"
    assert sheet.rules.consolation_dealer is False  # from "options"
    assert sheet.totals.whists[2][3] == 2  # a string amount


def test_a_missing_pool_is_closed_at_the_sheets_own_target() -> None:
    sheet = parse_paper_sheet(
        '{"convention": "Русский", "players": ["A", "B", "C"], "pool_target": 30}'
    )
    assert sheet.rules.convention == "russian"
    assert sheet.totals.pool == (30, 30, 30)


def test_options_take_strings_numbers_and_booleans() -> None:
    sheet = parse_paper_sheet(
        '{"players": ["A", "B", "C"], "options": {"whist_split": "gentleman", "whist_factor": 2,'
        ' "three_down": false, "pool_target": 12}}'
    )
    assert sheet.rules.whist_split is WhistSplit.GENTLEMAN
    assert sheet.rules.whist_factor == 2
    assert sheet.rules.three_down is False
    assert sheet.totals.pool == (12, 12, 12)


def test_amounts_may_be_decimals_or_exact_fractions() -> None:
    sheet = parse_paper_sheet(
        '{"players": ["A", "B", "C"], "mountain": {"A": "110/3", "B": 36.5, "C": "-2.25"},'
        ' "whists": {"A": {"B": 1e2}}}'
    )
    assert sheet.totals.mountain == (Fraction(110, 3), Fraction(73, 2), Fraction(-9, 4))
    assert sheet.totals.whists[0][1] == 100


def test_names_in_the_columns_match_the_players_case_insensitively() -> None:
    sheet = parse_paper_sheet('{"players": ["Аня", "Boris", "Clara"], "mountain": {"аня": 5}}')
    assert sheet.totals.mountain == (5, 0, 0)


def test_text_that_is_not_json_is_bad_json_at_its_line() -> None:
    error = refused('{"players": ["A", "B", "C"],\n "pool": {"A": 1,}}')
    assert error.code == "bad-json"
    assert error.line == 2
    assert error.params["problem"] == "syntax"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"players": ["A", "B", "C"], "mountain": {"A": NaN}}', "constant"),
        ("[" * 100_000, "too-deep"),
        ('{"players": ["A", "B", "C"], "mountain": {"A": ' + "9" * 5000 + "}}", "too-long"),
    ],
)
def test_json_python_would_take_but_a_sheet_cannot_is_bad_json(text: str, problem: str) -> None:
    error = refused(text)
    assert (error.code, error.params["problem"]) == ("bad-json", problem)


@pytest.mark.parametrize(
    ("players", "problem"),
    [
        ('["A", "B"]', "count"),
        ('["A", "B", "C", "D", "E"]', "count"),
        ('"A B C"', "count"),
        ('["A", "", "C"]', "not-a-name"),
        ('["A", 2, "C"]', "not-a-name"),
        ('["Anna", "Boris", "anna"]', "same-name"),
    ],
)
def test_players_are_three_or_four_different_names(players: str, problem: str) -> None:
    error = refused(f'{{"players": {players}}}')
    assert (error.code, error.params["problem"]) == ("bad-players", problem)


def test_missing_players_are_bad_players() -> None:
    assert refused('{"convention": "sochi"}').code == "bad-players"


@pytest.mark.parametrize(
    ("extra", "field", "expected"),
    [
        ('"mountains": {}', "mountains", "field"),
        ('"mountain": [1, 2, 3]', "mountain", "object"),
        ('"mountain": {"D": 1}', "mountain.D", "player"),
        ('"mountain": {"A": 1, "a": 2}', "mountain.a", "once"),
        ('"mountain": {"A": 1, "A": 2}', "A", "once"),
        ('"mountain": {"A": true}', "mountain.A", "number"),
        ('"mountain": {"A": "lots"}', "mountain.A", "number"),
        ('"mountain": {"A": 1e999999999}', "mountain.A", "number"),
        ('"mountain": {"A": 0.1234567}', "mountain.A", "number"),
        ('"pool": {"A": 10, "B": 10}', "pool.C", "every-player"),
        ('"whists": {"A": {"A": 3}}', "whists.A.A", "another-player"),
        ('"whists": {"A": 3}', "whists.A", "object"),
        ('"stake": "-0.10"', "stake", "decimal"),
        ('"stake": -1', "stake", "decimal"),
        ('"stake": "1/2"', "stake", "decimal"),
        ('"stake": "ten"', "stake", "decimal"),
        ('"stake": true', "stake", "decimal"),
        ('"convention": 5', "convention", "string"),
        ('"options": {"whist_factor": null}', "options.whist_factor", "option-value"),
        ('"pool_target": 10, "options": {"pool_target": 12}', "pool_target", "once"),
    ],
)
def test_a_sheet_field_of_the_wrong_shape_is_bad_sheet(
    extra: str, field: str, expected: str
) -> None:
    error = refused(f'{{"players": ["A", "B", "C"], {extra}}}')
    assert error.code == "bad-sheet"
    assert (error.params["field"], error.params["expected"]) == (field, expected)


@pytest.mark.parametrize(
    ("stake", "exact"), [('"0"', 0), ("0", 0), ('"0.5"', Fraction(1, 2)), ("0.25", Fraction(1, 4))]
)
def test_the_stake_is_a_decimal_number_of_zero_or_more(stake: str, exact: Fraction) -> None:
    """settlement.md "Input strictness": "the stake is a decimal number `≥ 0` (`0.5`, never
    `1/2`)"."""
    sheet = parse_paper_sheet(f'{{"players": ["A", "B", "C"], "stake": {stake}}}')
    assert sheet.stake == exact


def test_a_sheet_that_is_not_an_object_is_bad_sheet() -> None:
    error = refused("[1, 2, 3]")
    assert (error.code, error.params["field"]) == ("bad-sheet", "sheet")


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ('"convention": "vint"', "unknown-convention"),
        ('"options": {"whist_factr": 2}', "unknown-option"),
        ('"options": {"whist_factor": 3}', "bad-option-value"),
        ('"pool_target": 0', "bad-option-value"),
        ('"pool_target": 1.5', "bad-option-value"),
        ('"options": {"three_down": "yes"}', "bad-option-value"),
        ('"options": {"three_down": 1}', "bad-option-value"),
        ('"options": {"Three_Down": true}', "unknown-option"),
        ('"options": {"dealer_whist": true}', "unknown-option"),
        ('"options": {"raspasy_zero": "pool_then_mountain"}', "bad-option-value"),
        (
            '"options": {"made_game": "mountain_first", "made_lowers_mountain": true}',
            "incoherent-options",
        ),
    ],
)
def test_conventions_and_options_keep_their_own_codes(extra: str, code: str) -> None:
    error = refused(f'{{"players": ["A", "B", "C"], {extra}}}')
    assert error.code == code
    assert error.line == 1  # the one line of this sheet


def test_an_error_quotes_a_long_span_cut_short() -> None:
    error = refused('{"players": ["A", "B", "C"], "mountain": {"A": "' + "x" * 200 + '"}}')
    assert len(error.span) <= 40


def test_every_sample_sheet_parses() -> None:
    for path in sorted(SHEETS.glob("*.json")):
        sheet = parse_paper_sheet(path.read_text("utf-8"))
        assert len(sheet.players) == len(json.loads(path.read_text("utf-8"))["players"])


MULTI_LINE = """{
  "players": ["Anna", "Boris", "Clara"],
  "options": {"whist_split": "greedy",
              "whist_factor": 2},
  "mountain": {
    "Anna": 3,
    "Clara": 4
  },
  "whists": {"Anna": {"Boris": 3},
             "boris": {"Clara": 5}}
}"""


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ('"whist_factor": 2', '"whist_factor": 3', 4),
        ('"whist_split"', '"whist_splitt"', 3),
        ('"Clara": 4', '"Dora": 4', 7),
        ('"Clara": 5', '"Clara": "five"', 10),  # "boris" is Boris: names match case-insensitively
        ('"Anna": {"Boris": 3}', '"Anna": {"Anna": 3}', 9),
        ('["Anna", "Boris", "Clara"]', '["Anna", "Boris", "anna"]', 2),
        ('"players"', '"convention": "vint", "players"', 2),
    ],
)
def test_an_error_in_a_field_is_placed_at_the_line_of_that_field(
    old: str, new: str, line: int
) -> None:
    assert parse_paper_sheet(MULTI_LINE).totals.whists[1][2] == 5
    assert refused(MULTI_LINE.replace(old, new, 1)).line == line


def test_a_missing_player_is_placed_at_the_line_of_his_column() -> None:
    error = refused('{\n"players": ["A", "B", "C"],\n"pool": {"A": 10, "B": 10}\n}')
    assert error.params["field"] == "pool.C"
    assert error.line == 3  # the pool that lacks C
    assert refused("[1]").line == 0
