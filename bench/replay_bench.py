"""Replay and settle a generated 1,000-deal game under every convention; print the figures.

Run: `make bench` (or `.venv/bin/python bench/replay_bench.py`). Figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import platform
import random
import statistics
import time

from scoring.deal import Contract, Defender, Misere, Raspasy, Record, Role, Suit
from scoring.replay import replay
from scoring.rules import PRESETS, rules_for
from scoring.settle import settle
from scoring.sheet import Game

DEALS = 1000
RUNS = 7


def generated_game(convention: str, size: int, seed: int = 1) -> tuple[Game, list[Record]]:
    """A long game that never ends (a huge pool), mixing every kind of deal."""
    rng = random.Random(seed)
    rules = rules_for(convention, size, {"pool_target": "100000"})
    game = Game(rules, ("Anna", "Boris", "Clara", "Dima")[:size])
    records: list[Record] = []
    for n in range(DEALS):
        dealer = n % size
        active = [s for s in range(size) if size == 3 or s != dealer]
        roll = rng.random()
        if roll < 0.15:
            cuts = sorted(rng.randint(0, 10) for _ in range(2))
            tricks = (cuts[0], cuts[1] - cuts[0], 10 - cuts[1])
            records.append(Raspasy(tuple(zip(active, tricks, strict=True))))
            continue
        declarer = rng.choice(active)
        if roll < 0.22:
            records.append(Misere(declarer, rng.choice((0, 0, 1, 2))))
            continue
        first, second = sorted(
            (s for s in active if s != declarer), key=lambda s: (s - declarer) % size
        )
        level = rng.randint(6, 10)
        result = min(rng.choice((0, 0, 0, 1, -1, -2)), 10 - level)
        defence = 10 - level - result
        if rng.random() < 0.5:
            one = rng.randint(0, defence)
            defenders = (
                Defender(first, Role.WHIST, one),
                Defender(second, Role.WHIST, defence - one),
            )
        else:
            defenders = (Defender(first, Role.WHIST), Defender(second, Role.PASS))
        records.append(Contract(declarer, level, Suit.SPADES, result, defenders))
    return game, records


def main() -> None:
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}"
    )
    print(f"{DEALS} deals, replay + settle, best/median of {RUNS} runs, one core")
    for convention in PRESETS:
        for size in (3, 4):
            game, records = generated_game(convention, size)
            times = []
            for _ in range(RUNS):
                start = time.perf_counter()
                sheet = replay(game, records)
                settle(game.rules, sheet.totals)
                times.append(time.perf_counter() - start)
            print(
                f"  {convention:<10} {size}p: best {min(times) * 1000:7.1f} ms"
                f"  median {statistics.median(times) * 1000:7.1f} ms"
            )


if __name__ == "__main__":
    main()
