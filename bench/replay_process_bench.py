"""Time `python -m scoring replay` as a whole process on a generated 1,000-deal protocol file.

The file is written by the engine itself (bench/replay_bench.py's game, printed with
`scoring.notation.format_protocol`), so it is a game the replay accepts; the process is run several
times and the best and median wall times printed (start-up, parsing, replay and settlement all in).

Run: `.venv/bin/python bench/replay_process_bench.py`. Figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_bench import generated_game

from scoring.notation import format_protocol

RUNS = 7
ROOT = Path(__file__).resolve().parent.parent


def protocol_text(convention: str = "sochi", size: int = 3) -> str:
    """A 1,000-deal protocol file of a game that never ends."""
    game, records = generated_game(convention, size)
    return format_protocol(game, records)


def time_process(path: Path, runs: int = RUNS) -> tuple[float, float]:
    """(best, median) seconds of `python -m scoring replay PATH`, exit status checked."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "scoring", "replay", str(path)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=False,
        )
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"replay failed: {done.stderr.decode()}")
    return min(times), statistics.median(times)


def report() -> None:
    """Print one line per table size: best and median wall time of the whole process."""
    with tempfile.TemporaryDirectory() as folder:
        for size in (3, 4):
            path = Path(folder) / f"game{size}.pref"
            path.write_text(protocol_text("sochi", size), encoding="utf-8")
            lines = sum(1 for _ in path.open(encoding="utf-8"))
            best, median = time_process(path)
            print(
                f"  python -m scoring replay, 1000 deals, {size} players ({lines} lines):"
                f" best {best * 1000:6.0f} ms  median {median * 1000:6.0f} ms ({RUNS} runs)"
            )


if __name__ == "__main__":
    report()
