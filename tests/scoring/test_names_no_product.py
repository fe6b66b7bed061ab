"""Issue 10: the rules engine names no product package, not even by text or importlib.

The import-purity test (test_purity.py) only sees what importing loads; these read the source, so a
`importlib.import_module("bot.sheet")` behind a flag, or a module path in a string, is caught too.
`replay --sheet` finds the picture through the `prefbot.sheet` entry point or is handed a renderer.
"""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from pathlib import Path

import pytest

import scoring
from scoring import cli
from scoring.sheet import Sheet

SOURCES = sorted(Path(scoring.__file__).parent.glob("*.py"))
PRODUCT = ("bot", "handlers")
# `bot.sheet`, `bot.telegram.inbound.handlers.deal`, "bot", 'handlers.x': a product package named in code or text.
NAMED = re.compile(r"(?<![\w.])(?:bot|handlers)\.\w|[\"'](?:bot|handlers)\b")
DYNAMIC = ("import_module", "__import__", "find_spec", "spec_from_file_location")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_scoring_module_imports_or_names_a_product_package(path: Path) -> None:
    text = path.read_text("utf-8")
    tree = ast.parse(text)
    imported = [
        alias.name for n in ast.walk(tree) if isinstance(n, ast.Import) for alias in n.names
    ]
    imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert [
        m
        for m in imported
        if m.split(".")[0] in (*PRODUCT, "importlib") and m != "importlib.metadata"
    ] == []
    calls = [
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    ]
    assert [c for c in calls if c in DYNAMIC] == []
    assert NAMED.findall(text) == []


def test_the_pattern_catches_what_it_is_for() -> None:
    for text in (
        'import_module("bot.sheet")',
        "from bot.sheet import x",
        "'handlers'",
        "bot.render",
    ):
        assert NAMED.search(text), text
    for text in ("the bot has its own locales", "the bot's /rules", "prefbot.sheet", "robot.x"):
        assert not NAMED.search(text), text


def test_replay_sheet_finds_the_renderer_through_the_registered_entry_point() -> None:
    from importlib.metadata import entry_points

    (point,) = entry_points(group=cli.SHEET_ENTRY_POINTS)
    assert point.value == "bot.sheet:render_sheet_png"
    assert cli.find_renderer() is point.load()


PROTOCOL = "# convention: sochi\n# players: Anna Boris Clara\n\nAnna 6♠ = vist:Boris pass:Clara\n"


def test_replay_sheet_draws_with_the_renderer_it_is_handed(tmp_path: Path) -> None:
    path, png = tmp_path / "game.pref", tmp_path / "sheet.png"
    path.write_text(PROTOCOL, "utf-8")
    drawn: list[tuple[Sheet, str, Fraction]] = []

    def render(sheet: Sheet, lang: str, *, settlement: object) -> bytes:
        drawn.append((sheet, lang, sheet.totals.pool[0]))
        return b"picture"

    assert cli.main(["replay", str(path), "--sheet", str(png)], renderer=render) == 0
    assert png.read_bytes() == b"picture"
    ((sheet, lang, pool),) = drawn
    assert (sheet.deals, lang, pool) == (1, "en", 2)
