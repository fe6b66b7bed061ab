"""bot/web sits below the handlers (house style §2.1): importing it loads no `handlers` module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_web_package_imports_no_handler() -> None:
    code = (
        "import sys, bot.web.server, bot.web.auth; "
        "print(sorted(m for m in sys.modules if m == 'handlers' or m.startswith('handlers.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
