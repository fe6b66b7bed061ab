"""The offline command line, spec/cli.md: `python -m scoring settle|replay|conventions`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from locales import catalog
from scoring import cli
from scoring.errors import ERROR_CODES, IllegalDeal, ScoringError
from scoring.rules import OPTION_NAMES, PRESETS

ROOT = Path(__file__).parent.parent.parent
SHEETS = ROOT / "tests" / "data" / "sheets"

# cli.md's `--json` example (E3 of settlement.md); `settle` prints it without `deals` and `finished`.
CLI_MD_EXAMPLE = """{"convention": "sochi", "players": ["Anna", "Boris", "Clara"], "deals": 12, "finished": false,
 "pool": {"Anna": 10, "Boris": 10, "Clara": 6},
 "mountain": {"Anna": 14, "Boris": 20, "Clara": 4},
 "whists": {"Anna": {"Boris": 30, "Clara": 16}, "Boris": {"Anna": 10, "Clara": 24}, "Clara": {"Anna": 40, "Boris": 8}},
 "balances": {"Anna": -4, "Boris": -64, "Clara": 68},
 "balances_exact": {"Anna": "-4", "Boris": "-64", "Clara": "68"},
 "transfers": [{"from": "Boris", "to": "Clara", "whists": 64}, {"from": "Anna", "to": "Clara", "whists": 4}]}"""


def run(*args: str, encoding: str = "utf-8") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args],
        capture_output=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )


def assert_one_error_line(result: subprocess.CompletedProcess[str], where: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr naming the file, never a traceback."""
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"{where}:"), lines[0]
    return lines[0]


# -- settle -------------------------------------------------------------------------------------------


def test_cli_md_json_example_settle_e3() -> None:
    """cli.md `--json`: the example object of E3 (settlement.md), without `deals` and `finished`."""
    expected = json.loads(CLI_MD_EXAMPLE)
    del expected["deals"], expected["finished"]
    result = run("settle", str(SHEETS / "e3_unfinished_pool.json"), "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert json.loads(result.stdout) == expected
    # The same keys in the same order, the same numbers as integers: the same text.
    assert result.stdout == json.dumps(expected, ensure_ascii=False) + "\n"


def test_settle_prints_the_sheet_the_balances_and_the_transfers() -> None:
    result = run("settle", str(SHEETS / "e3_unfinished_pool.json"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "sochi, pool 10"
    assert lines[2].split() == ["pool", "mountain", "on", "Anna", "on", "Boris", "on", "Clara"]
    assert lines[3].split() == ["Anna", "10", "14", "-", "30", "16"]
    assert lines[5].split() == ["Clara", "6", "4", "40", "8", "-"]
    assert ["Boris", "-64"] in [line.split() for line in lines]
    assert ["Clara", "+68"] in [line.split() for line in lines]
    assert lines[-2:] == ["  Boris → Clara: 64 whists", "  Anna → Clara: 4 whists"]


def test_settle_e1_minigames_mail_ru_balances() -> None:
    """settlement.md E1 through the CLI: A +558, B −83, C −475."""
    result = run("settle", str(SHEETS / "e1_minigames_mail_ru.json"), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["balances"] == {"A": 558, "B": -83, "C": -475}
    assert data["transfers"] == [
        {"from": "C", "to": "A", "whists": 475},
        {"from": "B", "to": "A", "whists": 83},
    ]


def test_settle_with_a_stake_gives_money_that_sums_to_zero() -> None:
    result = run("settle", str(SHEETS / "e4_russian_thirds_stake.json"), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["balances"] == {"Аня": -13.33, "Борис": -13.33, "Клара": 26.67}
    assert data["balances_exact"] == {"Аня": "-40/3", "Борис": "-40/3", "Клара": "80/3"}
    assert data["stake"] == "1.00"
    assert data["money"] == {"Аня": "-13.33", "Борис": "-13.33", "Клара": "26.66"}
    assert data["transfers"] == [
        {"from": "Аня", "to": "Клара", "whists": 13.33, "money": "13.33"},
        {"from": "Борис", "to": "Клара", "whists": 13.33, "money": "13.33"},
    ]


def test_settle_table_shows_exact_thirds_and_money() -> None:
    result = run("settle", str(SHEETS / "e4_russian_thirds_stake.json"))
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0] == ["russian,", "pool", "50;", "stake", "1.00", "a", "whist"]
    assert ["balance", "whists", "exact", "money"] in rows
    assert ["Клара", "+26.7", "80/3", "26.66"] in rows
    assert "  Аня → Клара: 13.3 whists = 13.33" in result.stdout.splitlines()


def test_settle_four_players_with_an_alias_and_options() -> None:
    result = run("settle", str(SHEETS / "four_players_rostov.json"), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["convention"] == "moscow"  # rostov → moscow
    assert data["balances"] == {"Anna": -15.5, "Boris": 0.5, "Clara": 9.5, "Dima": 5.5}
    assert sum(Fraction(m) for m in data["money"].values()) == 0


def test_json_stays_valid_on_a_terminal_that_cannot_show_the_names() -> None:
    result = run(
        "settle", str(SHEETS / "e4_russian_thirds_stake.json"), "--json", encoding="ascii"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.isascii()
    assert json.loads(result.stdout)["players"] == ["Аня", "Борис", "Клара"]
    table = run("settle", str(SHEETS / "e4_russian_thirds_stake.json"), encoding="ascii")
    assert table.returncode == 0, table.stderr
    assert "Traceback" not in table.stderr


# -- conventions --------------------------------------------------------------------------------------


def test_conventions_lists_presets_with_aliases_and_every_option() -> None:
    result = run("conventions")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    assert "  moscow (rostov, москва, ростов)" in lines
    for name in PRESETS:
        assert any(line.startswith(f"  {name}") for line in lines)
    header = next(line for line in lines if line.startswith("option"))
    assert header.split() == ["option", *PRESETS]
    meaning = {lang: catalog.table(lang, "options") for lang in ("ru", "en")}
    for option in OPTION_NAMES:
        ru, en = meaning["ru"][option], meaning["en"][option]
        row = lines.index(next(line for line in lines if line.split()[:1] == [option]))
        assert lines[row + 1] == f"    {ru} — {en}"
    odessa = [line.split() for line in lines if line.startswith("close_mountain_bonus")]
    assert odessa == [["close_mountain_bonus", "0", "0", "0", "80/60", "0"]]
    assert ["pool_target", "20", "20", "20", "40", "50"] in [line.split() for line in lines]


# -- errors -------------------------------------------------------------------------------------------


def test_a_missing_file_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    line = assert_one_error_line(run("settle", str(path)), str(path))
    assert line == f"{path}: cannot read: No such file or directory"


def test_bad_json_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"players": ["A", "B", "C"],\n "pool": {"A": 1,}}', "utf-8")
    line = assert_one_error_line(run("settle", str(path), "--json"), f"{path}:2")
    assert "not valid JSON" in line


def test_an_unknown_convention_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "vint.json"
    path.write_text('{"convention": "vint", "players": ["A", "B", "C"]}', "utf-8")
    line = assert_one_error_line(run("settle", str(path)), f"{path}:1")
    assert line.startswith(f"{path}:1: unknown convention 'vint' (conventions: sochi,")


def test_an_unknown_option_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "option.json"
    path.write_text('{"players": ["A", "B", "C"], "options": {"whist_factr": 2}}', "utf-8")
    line = assert_one_error_line(run("settle", str(path)), f"{path}:1")
    assert line.startswith(f"{path}:1: unknown option 'whist_factr' (options: pool_target,")


def test_bytes_that_are_not_utf8_are_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"players": ["A", "B", "C"],\n"mountain": {"Zoë": 1}}'.encode("latin-1"))
    line = assert_one_error_line(run("settle", str(path)), f"{path}:2")
    assert line == f"{path}:2: not UTF-8 text (byte 0xeb)"


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"null",
        b"[" * 100_000,
        b'{"players": ["A", "B", "C"], "mountain": {"A": NaN}}',
        b'{"players": ["A", "B", "C"], "mountain": {"A": 1e999999999}}',
        b'{"players": ["A", "B", "C"], "whists": {"A": {"A": 1}}}',
        b'{"players": ["A", "B"]}',
        b"\xff\xfe{}",
    ],
)
def test_any_bad_sheet_is_one_error_line(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "sheet.json"
    path.write_bytes(content)
    assert_one_error_line(run("settle", str(path)), str(path))


def test_a_directory_is_one_error_line(tmp_path: Path) -> None:
    assert_one_error_line(run("settle", str(tmp_path)), str(tmp_path))


def test_an_unexpected_exception_is_reported_as_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "settle_output", broken)
    status = cli.main(["settle", str(SHEETS / "e3_unfinished_pool.json")])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err == f"{SHEETS / 'e3_unfinished_pool.json'}: internal error: RuntimeError\n"
    assert captured.out == ""


# -- messages and numbers ---------------------------------------------------------------------------


def test_every_english_message_is_for_a_known_error_code() -> None:
    assert set(cli.texts("messages")) <= ERROR_CODES


def test_a_code_without_an_english_message_says_the_code_and_the_span() -> None:
    assert cli.message(ScoringError("brand-new-code", "7♠")) == "brand-new-code: 7♠"


def test_a_message_fills_missing_params_with_a_question_mark() -> None:
    error = IllegalDeal("dealer-in-play", "Anna", {}, "Boris 6♠ = vist:Clara pass:Dima")
    assert cli.message(error) == (
        "the dealer ? sits this deal out: 'Anna' (example: Boris 6♠ = vist:Clara pass:Dima)"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(-4), "-4"),
        (Fraction(80, 3), "26.67"),
        (Fraction(-40, 3), "-13.33"),
        (Fraction(31, 2), "15.5"),
        (Fraction(1, 200), "0.01"),  # halves away from zero
        (Fraction(-1, 200), "-0.01"),
        (Fraction(1, 1000), "0"),
    ],
)
def test_json_numbers_are_rounded_to_two_decimals_and_whole_ones_are_integers(
    value: Fraction, shown: str
) -> None:
    assert cli.dump_json(cli.json_number(value)) == shown


def test_table_numbers_have_at_most_one_decimal() -> None:
    assert [cli.short_number(Fraction(n, 3)) for n in (-40, 80, 3)] == [
        "-13.3",
        "26.7",
        "1",
    ]
    assert cli.short_number(Fraction(68), sign=True) == "+68"


# -- replay (needs scoring.notation.parse_protocol) --------------------------------------------------

PROTOCOL = """# convention: sochi
# players: Anna Boris Clara
# pool: 10
Anna 6♠ = vist:Boris pass:Clara
"""


def test_replay_prints_the_sheet_as_json(tmp_path: Path) -> None:
    """Anna makes 6♠: pool 2; Boris whists the defence's 4 tricks at 2 → 8 on Anna."""
    path = tmp_path / "game.pref"
    path.write_text(PROTOCOL, "utf-8")
    result = run("replay", str(path), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data)[:4] == ["convention", "players", "deals", "finished"]
    assert (data["deals"], data["finished"]) == (1, False)
    assert data["pool"] == {"Anna": 2, "Boris": 0, "Clara": 0}
    assert data["whists"]["Boris"] == {"Anna": 8, "Clara": 0}
    # Pools carried: mountains 8, 10, 10 (avg 28/3); Anna 40/3 − 8, Boris −20/3 + 8, Clara −20/3.
    assert data["balances_exact"] == {"Anna": "16/3", "Boris": "4/3", "Clara": "-20/3"}


def test_replay_prints_a_table(tmp_path: Path) -> None:
    path = tmp_path / "game.pref"
    path.write_text(PROTOCOL, "utf-8")
    result = run("replay", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "sochi, pool 10; 1 deal, not finished"
    assert "  Clara → Anna: 5.3 whists" in result.stdout.splitlines()


def test_replay_places_a_deal_the_game_cannot_take_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "four.pref"
    path.write_text(
        "# convention: sochi\n# players: Anna Boris Clara Dima\n# pool: 10\n\n"
        "Boris 6♠ = vist:Clara pass:Dima\n"
        "Anna 6♠ = vist:Boris pass:Clara\n",  # Boris deals the second deal
        "utf-8",
    )
    line = assert_one_error_line(run("replay", str(path)), f"{path}:6")
    assert "Boris" in line


def test_replay_places_a_line_that_does_not_parse(tmp_path: Path) -> None:
    path = tmp_path / "bad.pref"
    path.write_text(PROTOCOL + "Anna 11♠ = vist:Boris pass:Clara\n", "utf-8")
    assert_one_error_line(run("replay", str(path)), f"{path}:5")


def test_replay_of_a_missing_file_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "none.pref"
    assert_one_error_line(run("replay", str(path)), str(path))


def test_replay_renders_the_sheet_image(tmp_path: Path) -> None:
    path, png = tmp_path / "game.pref", tmp_path / "sheet.png"
    path.write_text(PROTOCOL, "utf-8")
    result = run("replay", str(path), "--sheet", str(png))
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_replay_without_the_renderer_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path, png = tmp_path / "game.pref", tmp_path / "sheet.png"
    path.write_text(PROTOCOL, "utf-8")
    monkeypatch.setitem(sys.modules, "bot.sheet", None)  # import bot.sheet → ImportError
    status = cli.main(["replay", str(path), "--sheet", str(png)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith(f"{png}: cannot render the sheet image")
    assert captured.err.count("\n") == 1
    assert not png.exists()


def test_a_protocol_header_error_is_one_line_even_with_a_long_example(tmp_path: Path) -> None:
    path = tmp_path / "two.pref"
    path.write_text("# convention: sochi\n# players: Anna Boris\n", "utf-8")
    line = assert_one_error_line(run("replay", str(path)), f"{path}:2")
    assert line == f"{path}:2: players: a list of 3 or 4 names expected: Anna Boris"


def test_a_protocol_with_an_unknown_player_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "zed.pref"
    path.write_text(PROTOCOL + "Anna 6♠ = vist:Boris pass:Zed\n", "utf-8")
    line = assert_one_error_line(run("replay", str(path)), f"{path}:5")
    assert "unknown player 'Zed' (players: Anna, Boris, Clara)" in line


def test_replay_with_a_stake_header_pays_in_money(tmp_path: Path) -> None:
    path = tmp_path / "stake.pref"
    path.write_text(PROTOCOL.replace("# pool: 10\n", "# pool: 10\n# stake: 0.10\n"), "utf-8")
    result = run("replay", str(path), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # 16/3, 4/3, −20/3 whists at 0.10: 53.3, 13.3, −66.7 cents; the cent goes to Anna (earlier seat).
    assert data["money"] == {"Anna": "0.54", "Boris": "0.13", "Clara": "-0.67"}
    assert data["transfers"] == [
        {"from": "Clara", "to": "Anna", "whists": 5.33, "money": "0.54"},
        {"from": "Clara", "to": "Boris", "whists": 1.33, "money": "0.13"},
    ]
