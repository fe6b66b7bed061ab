"""Parse 10,000 generated deal lines, typed the many ways players type them, and print them back;
then time `python -m scoring replay` of a 1,000-deal game as a whole process.

Run: `.venv/bin/python bench/notation_bench.py`. Figures go to docs/benchmarks.md. The parser keeps
what it learnt of each distinct word and each list of players between lines, so the first run
(cold caches) is printed apart from the best and median of the runs after it.
"""

from __future__ import annotations

import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from scoring.deal import Contract, Defender, Extras, Misere, Raspasy, Record, Role, Suit
from scoring.notation import SEATS, Table, format_record, parse_record

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_process_bench import report as process_report

LINES = 10_000
RUNS = 9
PLAYERS = ("Anna", "Boris", "Clara", "Dima")
SUIT_SPELLINGS = {
    Suit.SPADES: ("♠", "s", "п", " пик", " spades"),
    Suit.CLUBS: ("♣", "c", "т", " трефы"),
    Suit.DIAMONDS: ("♦", "d", "б", " бубны"),
    Suit.HEARTS: ("♥", "h", "ч", " черви"),
    Suit.NO_TRUMP: ("NT", "nt", "бк", " бк"),
}
ROLE_SPELLINGS = {
    Role.WHIST: ("vist", "v", "w", "вист"),
    Role.PASS: ("pass", "p", "пас"),
    Role.HALF: ("half", "пол", "полвиста"),
}


def _ref(rng: random.Random, players: tuple[str, ...], seat: int) -> str:
    """A player typed as a name, a seat letter or a lower-case prefix."""
    return rng.choice((players[seat], SEATS[seat], players[seat][:2].lower()))


def generated(seed: int = 1) -> list[tuple[Table, str, Record]]:
    """(table, typed line, the record it means) for 3- and 4-player games, the dealer rotating."""
    rng = random.Random(seed)
    out: list[tuple[Table, str, Record]] = []
    for n in range(LINES):
        size = 3 if n % 2 else 4
        players = PLAYERS[:size]
        dealer = (n // 2) % size
        table = Table(players, dealer=dealer)
        active = [s for s in range(size) if size == 3 or s != dealer]

        roll = rng.random()
        if roll < 0.15:
            cuts = sorted(rng.randint(0, 10) for _ in range(2))
            tricks = (cuts[0], cuts[1] - cuts[0], 10 - cuts[1])
            record: Record = Raspasy(tuple(zip(active, tricks, strict=True)))
            if rng.random() < 0.5:
                line = "рас " + " ".join(map(str, tricks))
            else:
                line = "pass " + " ".join(
                    f"{_ref(rng, players, p)}/{t}" for p, t in zip(active, tricks, strict=True)
                )
            out.append((table, line, record))
            continue
        declarer = rng.choice(active)
        if roll < 0.22:
            tricks_taken = rng.choice((0, 0, 1, 2))
            record = Misere(declarer, tricks_taken)
            words = rng.choice(("misere", "мизер"))
            spelled = rng.choice((str(tricks_taken), f"без {tricks_taken}", f"-{tricks_taken}"))
            out.append((table, f"{_ref(rng, players, declarer)} {words} {spelled}", record))
            continue
        first, second = sorted(
            (s for s in active if s != declarer), key=lambda s: (s - declarer) % size
        )
        level = rng.randint(6, 10)
        suit = rng.choice(list(Suit))
        result = min(rng.choice((0, 0, 0, 1, -1, -2)), 10 - level)
        defence = 10 - level - result
        two = rng.random() < 0.5
        if two:
            one = rng.randint(0, defence)
            defenders = (
                Defender(first, Role.WHIST, one),
                Defender(second, Role.WHIST, defence - one),
            )
        else:
            defenders = (Defender(first, Role.WHIST), Defender(second, Role.PASS))
        opened = rng.choice((None, True, False))
        record = Contract(declarer, level, suit, result, defenders, extras=Extras(open=opened))
        spelled_result = (
            "="
            if result == 0
            else rng.choice((f"{result:+d}", f"без {-result}" if result < 0 else f"+{result}"))
        )
        parts = [
            _ref(rng, players, declarer),
            f"{level}{rng.choice(SUIT_SPELLINGS[suit])}",
            spelled_result,
        ]
        typed = list(defenders)
        rng.shuffle(typed)
        for d in typed:
            tricks = f"/{d.tricks}" if d.tricks is not None else ""
            parts.append(
                f"{rng.choice(ROLE_SPELLINGS[d.role])}:{_ref(rng, players, d.player)}{tricks}"
            )
        if opened is not None:
            parts.append(
                rng.choice(("open", "светлую")) if opened else rng.choice(("closed", "тёмную"))
            )
        line = " ".join(parts)
        out.append((table, rng.choice(("", "/deal ")) + line, record))
    return out


def timed(work: Callable[[], object]) -> tuple[float, float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}"
    )
    cases = generated()
    start = time.perf_counter()
    records = [parse_record(line, table) for table, line, _ in cases]
    cold = time.perf_counter() - start
    wrong = sum(
        record != expected for record, (_, _, expected) in zip(records, cases, strict=True)
    )
    if wrong:
        raise SystemExit(f"{wrong} generated lines did not read as meant")
    canonical = [format_record(r, t.players) for r, (t, _, _) in zip(records, cases, strict=True)]
    pairs = list(zip(canonical, (t for t, _, _ in cases), strict=True))
    print(
        f"{LINES} deal lines (3 and 4 players, mixed spellings), best/median of {RUNS} runs, one core"
    )
    print(f"  parse typed lines, first run (cold caches) {cold / LINES * 1e6:6.1f} µs/line")
    rows = {
        "parse typed lines": lambda: [parse_record(line, table) for table, line, _ in cases],
        "format (en)": lambda: [
            format_record(r, t.players) for r, (t, _, _) in zip(records, cases, strict=True)
        ],
        "format (ru)": lambda: [
            format_record(r, t.players, lang="ru")
            for r, (t, _, _) in zip(records, cases, strict=True)
        ],
        "parse canonical lines": lambda: [parse_record(line, table) for line, table in pairs],
    }
    for name, work in rows.items():
        best, median = timed(work)
        print(
            f"  {name:<22} best {best:6.3f} s ({best / LINES * 1e6:6.1f} µs/line)"
            f"  median {median:6.3f} s ({median / LINES * 1e6:6.1f} µs/line)"
        )
    process_report()


if __name__ == "__main__":
    main()
