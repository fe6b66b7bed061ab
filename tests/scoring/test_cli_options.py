"""cli.md with conventions.md §2.1: `replay` and `settle` refuse every bad option, value and
combination (exit 2, one line naming the option) and accept every good one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import cli
from tests.scoring.test_options import BAD_VALUES, GOOD_VALUES

HEADER = "# convention: sochi\n# players: Anna Boris Clara\n# dealer: A\n"
DEALS = "Anna 6♠ = vist:Boris pass:Clara\nрас 2 3 5\n"
BAD_NAMES = [("Pool_Target", "10"), ("dealer_whist", "true"), ("colour", "red")]
GOOD = [(name, raw) for name, values in GOOD_VALUES.items() for raw in values]
# The `option NAME=VALUE` line's own syntax (notation.md, scoring/notation.py) reads the name
# case-insensitively and allows spaces around `=`: those two belong to the notation, not here.
# The header line `# option: name = value` allows spaces around `=` (notation.md's examples).
HEADER_BAD = [(n, r) for n, r in BAD_VALUES + BAD_NAMES if r != " 10"]
MID_GAME_BAD = [(n, r) for n, r in HEADER_BAD if n != "Pool_Target"]
INCOHERENT = {"made_game": "mountain_first", "made_lowers_mountain": "true"}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def refused_line(status: int, out: str, err: str, where: str) -> str:
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{where}:")
    assert "internal error" not in lines[0]
    return lines[0]


def sheet_json(options: dict[str, str]) -> str:
    return json.dumps({"players": ["A", "B", "C"], "options": options})


@pytest.mark.parametrize(("name", "raw"), HEADER_BAD)
def test_replay_refuses_a_bad_option_in_the_header_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, raw: str
) -> None:
    path = tmp_path / "game.pref"
    path.write_text(f"{HEADER}# option: {name}={raw}\n{DEALS}", "utf-8")
    line = refused_line(*run(capsys, "replay", str(path)), f"{path}:4")
    assert name in line


@pytest.mark.parametrize(("name", "raw"), MID_GAME_BAD)
def test_replay_refuses_a_bad_mid_game_option_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, raw: str
) -> None:
    path = tmp_path / "game.pref"
    path.write_text(f"{HEADER}{DEALS}option {name}={raw}\n{DEALS}", "utf-8")
    line = refused_line(*run(capsys, "replay", str(path)), f"{path}:6")
    assert name in line


@pytest.mark.parametrize(("name", "raw"), BAD_VALUES + BAD_NAMES)
def test_settle_refuses_a_bad_option_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, raw: str
) -> None:
    path = tmp_path / "sheet.json"
    path.write_text(sheet_json({name: raw}), "utf-8")
    line = refused_line(*run(capsys, "settle", str(path)), str(path))
    assert name in line


def test_replay_refuses_the_incoherent_pair_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """§2.1: "the incoherent pair `made_game=mountain_first` with `made_lowers_mountain=true`
    (the error names both)" — in the header, and as a mid-game change."""
    header = tmp_path / "header.pref"
    options = "".join(f"# option: {k}={v}\n" for k, v in INCOHERENT.items())
    header.write_text(HEADER + options + DEALS, "utf-8")
    line = refused_line(*run(capsys, "replay", str(header)), f"{header}:5")
    assert "made_game" in line and "made_lowers_mountain" in line
    mid = tmp_path / "mid.pref"
    mid.write_text("# convention: odessa\n# players: A1 B1 C1\noption made_game=mountain_first\n")
    line = refused_line(*run(capsys, "replay", str(mid)), f"{mid}:3")
    assert "made_game" in line and "made_lowers_mountain" in line


def test_settle_refuses_the_incoherent_pair_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sheet.json"
    path.write_text(sheet_json(INCOHERENT), "utf-8")
    line = refused_line(*run(capsys, "settle", str(path)), str(path))
    assert "made_game" in line and "made_lowers_mountain" in line


@pytest.mark.parametrize(("name", "raw"), GOOD)
def test_replay_and_settle_accept_every_good_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, raw: str
) -> None:
    header = tmp_path / "header.pref"
    header.write_text(f"{HEADER}# option: {name}={raw}\n{DEALS}", "utf-8")
    assert run(capsys, "replay", str(header))[::2] == (0, "")
    mid = tmp_path / "mid.pref"
    mid.write_text(f"{HEADER}{DEALS}option {name}={raw}\n", "utf-8")
    assert run(capsys, "replay", str(mid))[::2] == (0, "")
    sheet = tmp_path / "sheet.json"
    sheet.write_text(sheet_json({name: raw}), "utf-8")
    assert run(capsys, "settle", str(sheet))[::2] == (0, "")


@pytest.mark.parametrize("stake", ["1/2", "-1", "+0.5", "0,5"])
def test_replay_refuses_a_stake_that_is_not_a_decimal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stake: str
) -> None:
    """settlement.md "Input strictness": the stake is a decimal `≥ 0` (`0.5`, never `1/2`), also
    in a protocol file's `# stake:` header."""
    path = tmp_path / "game.pref"
    path.write_text(f"{HEADER}# stake: {stake}\n{DEALS}", "utf-8")
    line = refused_line(*run(capsys, "replay", str(path)), f"{path}:4")
    assert "stake" in line


def test_replay_accepts_a_zero_stake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.pref"
    path.write_text(f"{HEADER}# stake: 0\n{DEALS}", "utf-8")
    status, out, _ = run(capsys, "replay", str(path), "--json")
    assert status == 0
    assert set(json.loads(out)["money"].values()) == {"0.00"}
