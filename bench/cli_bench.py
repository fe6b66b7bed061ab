"""Time `python -m scoring replay --json GAME` of a 1,000-deal game as a whole process, against a
plain single-file script doing the same (bench/cli_reference.py), and show what each imports.

The protocol files are written by the engine itself (bench/replay_bench.py's games, printed with
`scoring.notation.format_protocol`): Sochi with 3 and with 4 players. The two commands run in turn
(CLI, script, CLI, script …) so that a machine whose speed drifts slows both alike; for each the
best and the median wall and CPU (user + system) seconds are printed, and the median of the
pairwise ratios CLI / script. Then `python -X importtime` of each: the sum of the top-level
imports' cumulative times (the best of `--imports` runs) and the rules engine's modules the CLI loads.

Run: `.venv/bin/python bench/cli_bench.py [--runs N] [--imports N] [--tree DIR]` from the repository's root;
`--tree` runs the CLI and the script from another checkout (e.g. `git archive` of an older commit
unpacked into DIR) to compare before and after. Figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_process_bench import protocol_text

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(__file__).resolve().parent / "cli_reference.py"


def cli_command(game: Path) -> list[str]:
    return [sys.executable, "-m", "scoring", "replay", "--json", str(game)]


def reference_command(game: Path) -> list[str]:
    return [sys.executable, str(REFERENCE), str(game)]


def run_once(command: list[str], tree: Path) -> tuple[float, float, str]:
    """(wall s, cpu s, stdout) of one whole process run from `tree`; a failure stops the bench."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode()}")
    return wall, cpu, done.stdout.decode()


def imports(command: list[str], tree: Path, runs: int) -> tuple[float, list[str]]:
    """The top-level imports' cumulative seconds under `-X importtime` (the best of `runs`) and
    the `scoring.*` modules loaded."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    best, modules = float("inf"), []
    for _ in range(runs):
        traced = [command[0], "-X", "importtime", *command[1:]]
        done = subprocess.run(traced, cwd=tree, env=env, capture_output=True, check=True)
        total, names = 0, []
        for line in done.stderr.decode().splitlines():
            if not line.startswith("import time:") or "cumulative" in line:
                continue
            _, cumulative, name = line.removeprefix("import time:").split("|")
            if not name.startswith("  "):  # top level: one space after the bar
                total += int(cumulative)
            if name.strip().startswith("scoring"):
                names.append(name.strip())
        if total / 1e6 < best:
            best, modules = total / 1e6, sorted(names)
    return best, modules


def line(label: str, walls: list[float], cpus: list[float]) -> str:
    return (
        f"    {label:<22} wall best {min(walls) * 1000:5.0f} ms median"
        f" {statistics.median(walls) * 1000:5.0f} ms · cpu best {min(cpus) * 1000:5.0f} ms"
        f" median {statistics.median(cpus) * 1000:5.0f} ms"
    )


def compare(game: Path, runs: int, tree: Path) -> None:
    cli: list[tuple[float, float]] = []
    plain: list[tuple[float, float]] = []
    for _ in range(runs + 1):  # the first pair warms the file cache and is not counted
        wall, cpu, cli_out = run_once(cli_command(game), tree)
        cli.append((wall, cpu))
        wall, cpu, _ = run_once(reference_command(game), tree)
        plain.append((wall, cpu))
    cli, plain = cli[1:], plain[1:]
    print(line("python -m scoring", [w for w, _ in cli], [c for _, c in cli]))
    print(line("plain script", [w for w, _ in plain], [c for _, c in plain]))
    wall_ratio = statistics.median(a[0] / b[0] for a, b in zip(cli, plain, strict=True))
    cpu_ratio = statistics.median(a[1] / b[1] for a, b in zip(cli, plain, strict=True))
    print(f"    CLI / script, median of pairs: wall {wall_ratio:.2f}, cpu {cpu_ratio:.2f}")
    print(f"    ({runs} pairs; the CLI printed {len(cli_out)} bytes of JSON)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="pairs of runs counted")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to run from")
    parser.add_argument("--imports", type=int, default=9, help="-X importtime runs of each")
    args = parser.parse_args()
    tree: Path = args.tree.resolve()
    compiled = importlib.util.cache_from_source(str(tree / "scoring" / "replay.py"))
    bytecode = "compiled" if Path(compiled).exists() else "none (each run compiles the sources)"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, tree {tree}")
    writes = "off" if sys.flags.dont_write_bytecode else "on"
    print(f"  the tree's bytecode: {bytecode}; writing bytecode: {writes}")
    with tempfile.TemporaryDirectory() as folder:
        for size in (3, 4):
            game = Path(folder) / f"sochi{size}.pref"
            game.write_text(protocol_text("sochi", size), encoding="utf-8")
            if args.runs > 0:  # `--runs 0`: the imports only
                print(f"  sochi, {size} players, 1000 deals:")
                compare(game, args.runs, tree)
        game = Path(folder) / "sochi3.pref"
        for label, command in (
            ("python -m scoring", cli_command(game)),
            ("plain script", reference_command(game)),
        ):
            seconds, modules = imports(command, tree, args.imports)
            print(f"  -X importtime, {label}: top-level imports {seconds * 1000:.0f} ms")
            print(f"    {len(modules)} scoring modules: {' '.join(modules)}")


if __name__ == "__main__":
    main()
