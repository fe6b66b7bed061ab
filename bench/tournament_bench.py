"""A tournament of many tables on PostgreSQL behind two webhook instances, against one of two tables.

`python bench/tournament_bench.py [--tables 50]`: the real bot processes (`python -m bot`, webhook
mode) share one PostgreSQL behind a round-robin proxy, against the fake Bot API of the end-to-end
tests (its pacing enforced: 20 messages a minute in a group, 30 a second in all). A home chat makes
a tournament (Sochi to a pool of 2); every table joins; a round opens and every table plays the same
four deals of named players at once, then ends its game. Printed: the wall time, each deal's
command-to-picture time (p50, p99), and whether the standings at home equal, for every table's
players, what they are when only two tables play (the same game: the same points). Two runs: two
tables, then `--tables`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.fake_telegram import ANNA, Chat, FakeTelegram, User
from tests.e2e.harness import BotProcess, Member, contains, is_photo
from tests.e2e.test_tournament_e2e import code_of, standings_points
from tests.e2e.test_webhook_e2e import HOOK_PATH, SECRET, RoundRobin
from tests.pg import PostgresServer, free_port

HOME = Chat(-1001700000000, "supergroup", "Cup home")
GAME = (  # named players (the opener records for them); a pool of 2 closes on the last deal
    "{a} 6♠ = vist:{b} pass:{c}",
    "{b} 6♠ -1 vist:{c} pass:{a}",
    "{c} 6♠ = vist:{a} pass:{b}",
    "{b} 6♥ = vist:{c} pass:{a}",
)
BASES = ("Fedor", "Galina", "Igor")


def names_of(table: int) -> tuple[str, str, str]:
    """Names of the table's players, their own (a name is a player across tables)."""
    suffix = chr(97 + table // 26) + chr(97 + table % 26)
    a, b, c = (base + suffix for base in BASES)
    return a, b, c


async def timed(member: Member, text: str) -> float:
    start = time.perf_counter()
    await member.say(text, is_photo, timeout=600)
    return time.perf_counter() - start


async def play(member: Member, table: int, spent: list[float]) -> None:
    a, b, c = names_of(table)
    opened = await member.say(f"/newgame {a} {b} {c}", contains("#"), timeout=600)
    assert "❗" not in opened.text, opened.text
    for line in GAME:
        spent.append(await timed(member, "/deal " + line.format(a=a, b=b, c=c)))
    await member.say("/endgame", contains("#"), timeout=600)


async def tournament(tables: int, server: FakeTelegram, bots: Sequence[BotProcess]) -> None:
    home = Member(bots[0], HOME, ANNA)
    await home.say("/lang en", contains("English"))
    code = code_of(await home.say("/tournament new Cup sochi pool 2", contains("Code")))
    openers = [
        Member(
            bots[0],
            Chat(-1001700000001 - n, "supergroup", f"Table {n}"),
            User(3000 + n, f"Opener{n}", f"opener_{n:03d}", "en"),
        )
        for n in range(tables)
    ]
    await asyncio.gather(
        *(m.say(f"/tournament join {code}", contains("plays in"), timeout=600) for m in openers)
    )
    await home.say("/tournament round", contains("round 1 has started"), timeout=600)
    spent: list[float] = []
    start = time.perf_counter()
    await asyncio.gather(*(play(m, n, spent) for n, m in enumerate(openers)))
    played = time.perf_counter() - start
    since = server.cursor(HOME)
    await home.say("/standings", is_photo, timeout=600)
    text = "\n".join(s.text for s in server.sent[HOME.id][since:])
    points = standings_points(text)
    print(
        f"{tables} tables: played in {played:.1f} s; a deal's command to its picture "
        f"p50 {statistics.median(spent) * 1000:.0f} ms, "
        f"p99 {sorted(spent)[int(len(spent) * 0.99) - 1] * 1000:.0f} ms ({len(spent)} deals)"
    )
    per_table = [tuple(points.get(name) for name in names_of(n)) for n in range(tables)]
    results[tables] = per_table


results: dict[int, list[tuple[Fraction | None, ...]]] = {}


async def run(tables: int, folder: Path) -> None:
    pg = PostgresServer.start()
    try:
        async with FakeTelegram() as server:
            url = await pg.new_database()
            ports = [free_port(), free_port()]
            proxy = RoundRobin([f"http://127.0.0.1:{port}{HOOK_PATH}" for port in ports])
            await proxy.start()
            bots = [
                BotProcess(
                    server,
                    folder / f"{tables}-instance{n}",
                    locale="en",
                    webhook=True,
                    env={
                        "DATABASE_URL": url,
                        "WEBHOOK_URL": proxy.url,
                        "WEBHOOK_SECRET": SECRET,
                        "WEB_LISTEN": f"127.0.0.1:{port}",
                    },
                )
                for n, port in enumerate(ports)
            ]
            try:
                for bot in bots:
                    await bot.start()
                await tournament(tables, server, bots)
                print(f"   answers per instance: {dict(proxy.answered)}")
            finally:
                for bot in bots:
                    await bot.kill()
                await proxy.close()
    finally:
        pg.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        for tables in (2, args.tables):
            await run(tables, Path(name))
    small, large = results[2][0], results[args.tables]
    same = all(row == small and None not in row for row in large)
    print(f"every table's standings equal a table's of the two-table run: {same} {small}")


if __name__ == "__main__":
    asyncio.run(main())
