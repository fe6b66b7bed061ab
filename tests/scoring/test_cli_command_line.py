"""cli.md: how `python -m scoring` reads its command line, what each command loads, and the notation
errors of a protocol file as the CLI reports them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.cli import Arguments, _arguments, _plain_arguments
from tests.scoring.test_cli import ROOT, SHEETS, assert_one_error_line, run

GAME = """\
# convention: sochi
# players: Anna Boris Clara
# pool: 2
Anna 6♠ = pass:Boris pass:Clara
Boris 6♠ = pass:Clara pass:Anna
Clara 6♠ = pass:Anna pass:Boris
"""


@pytest.mark.parametrize(
    "words",
    [
        ["replay", "g.pref"],
        ["replay", "--json", "g.pref"],
        ["replay", "g.pref", "--json", "--json"],
        ["replay", "g.pref", "--sheet", "out.png"],
        ["replay", "--sheet=out.png", "g.pref", "--json"],
        ["replay", "--sheet", "out.png", "g.pref"],
        ["settle", "s.json", "--json"],
        ["settle", "--json", "s.json"],
        ["conventions"],
    ],
)
def test_the_common_command_lines_read_as_argparse_reads_them(words: list[str]) -> None:
    assert _plain_arguments(words) == _arguments(words)


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["replay"],
        ["replay", "a.pref", "b.pref"],
        ["replay", "-h"],
        ["replay", "--js", "g.pref"],  # argparse's abbreviation
        ["replay", "g.pref", "--sheet"],
        ["replay", "g.pref", "--sheet", "a.png", "--sheet", "b.png"],
        ["replay", "--", "g.pref"],
        ["settle", "--sheet", "out.png", "s.json"],
        ["conventions", "extra"],
        ["--help"],
    ],
)
def test_every_other_command_line_is_left_to_argparse(words: list[str]) -> None:
    assert _plain_arguments(words) is None


def test_argparse_still_answers_help_and_a_wrong_command_line() -> None:
    """cli.md's usage: `--help` prints it; a command without its file is exit status 2."""
    helped = run("replay", "--help")
    assert helped.returncode == 0 and "GAME.pref" in helped.stdout and "--sheet" in helped.stdout
    wrong = run("replay")
    assert wrong.returncode == 2 and "usage: python -m scoring replay" in wrong.stderr
    assert "Traceback" not in wrong.stderr
    assert _arguments(["replay", "--js", "g.pref"]) == Arguments("replay", "g.pref", True)


LOADED = """\
import sys
from scoring.cli import main
status = main(sys.argv[1:])
print(sorted(m for m in sys.modules if m.split(".")[0] in ("scoring", "locales", "importlib",
    "argparse", "tomllib")), file=sys.stderr)
sys.exit(status)
"""


def loaded(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args],
        capture_output=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    modules: list[str] = json.loads(done.stderr.splitlines()[-1].replace("'", '"'))
    return modules


def test_replay_json_loads_only_the_reader_the_replay_and_the_settlement(tmp_path: Path) -> None:
    """A `replay --json` process loads no paper sheet, no `/calc`, no printer of lines, no
    catalogue of texts and no entry points: a command imports only what it uses."""
    path = tmp_path / "game.pref"
    path.write_text(GAME, "utf-8")
    modules = loaded("replay", "--json", str(path))
    assert "scoring.replay" in modules and "scoring.settle" in modules
    for unused in (
        "scoring.paper",
        "scoring.calc",
        "scoring.notation_print",
        "locales.catalog",
        "tomllib",
        "importlib.metadata",
        "argparse",
    ):
        assert unused not in modules, unused


def test_settle_loads_the_paper_sheet_but_not_the_protocol_reader() -> None:
    modules = loaded("settle", str(SHEETS / "e3_unfinished_pool.json"), "--json")
    assert "scoring.paper" in modules and "scoring.settle" in modules
    assert "scoring.notation" not in modules and "scoring.replay" not in modules


def test_an_option_line_after_the_end_is_one_error_line_at_its_line(tmp_path: Path) -> None:
    """notation.md "Errors": "a deal or an `option` line after the game has ended" — cli.md: exit
    status 2 and one line naming the file and the line (the end rule is met on line 6)."""
    path = tmp_path / "ended.pref"
    path.write_text(GAME + "option whist_split=gentleman\n", "utf-8")
    line = assert_one_error_line(run("replay", "--json", str(path)), f"{path}:7")
    assert line == f"{path}:7: the game has already ended"


def test_an_unterminated_note_is_one_error_line_with_an_example(tmp_path: Path) -> None:
    """notation.md "Errors": "an unterminated `note:"…`"; the CLI quotes it and gives an example."""
    path = tmp_path / "note.pref"
    path.write_text(
        GAME.replace("# pool: 2", "# pool: 10") + 'Anna misere 0 note:"late\n', "utf-8"
    )
    line = assert_one_error_line(run("replay", str(path)), f"{path}:7")
    assert line == (
        f"{path}:7: the note has no closing quote: 'note:\"late'"
        ' (example: Clara misere 0 note:"first deal")'
    )
