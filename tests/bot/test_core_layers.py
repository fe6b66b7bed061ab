"""The application core's boundaries (issue 10): no aiogram below the glue, small modules and
classes, and no rule arithmetic of votes outside the engine."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CORE = sorted(
    [
        *(ROOT / "bot" / "core").glob("*.py"),
        *(ROOT / "bot" / "storage").glob("*.py"),
        ROOT / "bot" / "texts" / "views.py",
        ROOT / "bot" / "texts" / "score.py",
        ROOT / "bot" / "texts" / "votes.py",
        ROOT / "bot" / "texts" / "history.py",
    ]
)
ABOVE = ("aiogram", "handlers", "PIL", "bot.tg", "bot.app", "bot.posting", "bot.keyboards")
PICTURE = ("render", "sheet")  # pixel arithmetic halves widths; it counts no votes
PRODUCT = sorted(
    p
    for p in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "handlers").rglob("*.py")]
    if p.relative_to(ROOT).parts[1] not in PICTURE
)


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_core_imports_nothing_of_the_telegram_glue(path: Path) -> None:
    above = {n for n in imported(path) if any(n == a or n.startswith(f"{a}.") for a in ABOVE)}
    assert not above, f"{path.relative_to(ROOT)} imports {sorted(above)}"


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_core_module_over_600_lines_and_no_class_over_300(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 600
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            assert node.end_lineno is not None
            assert node.end_lineno - node.lineno + 1 <= 300, node.name


def test_no_vote_majority_or_rule_change_prefix_is_computed_outside_the_engine() -> None:
    """The strict majority is `scoring.voting.majority`; a rule change is a typed event."""
    majority = re.compile(r"//\s*2\s*\+\s*1")
    prefix = re.compile(r"""(startswith|removeprefix)\(\s*["']option """)
    for path in PRODUCT:
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        assert not majority.search(text), f"{where} computes a majority"
        assert not prefix.search(text), f"{where} recognises a rule change by its text"
