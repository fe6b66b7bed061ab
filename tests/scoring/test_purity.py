"""House style §2.1: scoring/ uses only the standard library — no aiogram, storage, Pillow, bot or handlers."""

import subprocess
import sys
from pathlib import Path

import scoring

FORBIDDEN = ("aiogram", "aiosqlite", "PIL", "pydantic", "bot", "handlers", "sqlite3")


def test_importing_every_scoring_module_loads_no_forbidden_package() -> None:
    modules = sorted(
        f"scoring.{path.stem}"
        for path in Path(scoring.__file__).parent.glob("*.py")
        if path.stem not in ("__init__", "__main__")
    )
    code = (
        "import sys\n"
        + "".join(f"import {name}\n" for name in modules)
        + f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"
