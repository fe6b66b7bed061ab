"""/stats and /top over a chat of 1,000 finished games (issue 24; aim: each within 200 ms).

1,000 games are played through the real service (`Core` on a SQLite file: /newgame with
the seats given, 3–12 deals of Sochi to a pool of 2, /endgame, or everyone's vote when it did not
finish) by a club of six players, three or four at a table. Then /stats and /top go through the
real Dispatcher with a mocked Bot (the outbox delivered after each update), timed from the update
entering `feed_update` until it is handled:

- first: the chat's first /stats ever — the 1,000 summaries are made from the logs and kept;
- cold: a new process, as it were (the database reopened, a new dispatcher warmed by /help):
  the summaries read back from the database (5 runs, wall and CPU time);
- warm: the same process again (7 runs).

Then `chat_stats` alone (each run a new service: summaries read from the database), the /top
picture alone, and a deal's cost on an empty database and beside the 1,000 games (the archive
adds nothing to the path of a deal).

    .venv/bin/python bench/stats_bench.py [--games 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bot.core import looks

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bot.app import build_dispatcher  # noqa: E402
from bot.core import Caller, Core, parse_newgame  # noqa: E402
from bot.core.stats import StatsFilter, chat_stats  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.storage import SqliteStore  # noqa: E402
from bot.telegram.inbound.archive import standings_png  # noqa: E402
from bot.texts.i18n import translator  # noqa: E402
from scoring.seating import SEAT_LETTERS as SEATS  # noqa: E402
from scoring.seating import active_seats  # noqa: E402
from tests.bot.factories import ChatDriver, Committing, FakeClock, TgUser  # noqa: E402
from tests.bot.mocked_bot import MockedBot, deliver_through  # noqa: E402

CHAT = -100_424_242
CLUB = tuple(
    Caller(CHAT, 3001 + i, name, f"{name.lower()}_club")
    for i, name in enumerate(("Anna", "Boris", "Clara", "Dima", "Eva", "Fedor"))
)
KEEPER = TgUser(3001, "Anna", "anna_club")
OTHER = -100_424_243  # the chat whose deals are timed with an empty archive


async def play_game(service: Core, rng: random.Random, clock: FakeClock) -> None:
    """One game to its end: contracts by seat letter, each made 6♠ closing its declarer's pool of
    2, now and then a 7♥ one down; ended by /endgame (or by everyone's vote when it did not
    finish)."""
    table = rng.sample(CLUB, rng.choice((3, 3, 4)))
    keeper = table[0]
    names = " ".join(f"@{p.username}" for p in table[1:])
    await Committing(service).new_game(
        keeper, parse_newgame(f"sochi pool 2 me {names}", keeper.as_player())
    )
    for turn in range(12):
        sheet = (await looks.snapshot(service, CHAT)).sheet
        assert sheet is not None
        if sheet.finished:
            break
        a, b, c = (SEATS[s] for s in active_seats(len(table), sheet.next_dealer))
        declarer, first, second = ((a, b, c), (b, c, a), (c, a, b))[turn % 3]
        contract = "7♥ -1" if rng.random() < 0.3 else "6♠ ="
        await Committing(service).record(
            keeper, f"{declarer} {contract} vist:{first} pass:{second}"
        )
    result = await Committing(service).end_game(keeper)
    vote = getattr(result, "vote", None)
    if vote is not None:  # not finished: every player agrees to end it
        for player in table:
            if player is not keeper:
                await Committing(service).vote(player, result.state.game_id, vote.seq, True)
    clock.advance(3600 * 24 * 3)


async def timed(action: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await action()
    return (time.perf_counter() - start) * 1000


async def cpu_timed(action: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Wall and CPU milliseconds (the CPU this process used: the share the machine gave it)."""
    wall, cpu = time.perf_counter(), time.process_time()
    await action()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


async def cold_ask(settings: Settings, path: Path, command: str) -> tuple[float, float]:
    """A new process, as it were: the database reopened, a new dispatcher warmed by /help, then
    `command` with no summary decoded yet; wall and CPU ms."""
    store = await SqliteStore.open(path)
    try:
        chat = driver(settings, store)
        await chat.send(KEEPER, "/help")
        return await cpu_timed(lambda: chat.send(KEEPER, command))
    finally:
        await store.close()


def driver(settings: Settings, store: SqliteStore) -> ChatDriver:
    dispatcher, bot = build_dispatcher(settings, store, FakeClock()), MockedBot()
    deliver_through(dispatcher, bot)
    return ChatDriver(dispatcher, bot, chat_id=CHAT)


async def deal_cost(service: Core, chat_id: int, count: int = 150) -> float:
    """Median ms of `count` deals recorded in a long game of `chat_id`."""
    players = [Caller(chat_id, p.user_id, p.first_name, p.username) for p in CLUB[:3]]
    keeper = players[0]
    spec = parse_newgame("sochi pool 5000 me @boris_club @clara_club", keeper.as_player())
    await Committing(service).new_game(keeper, spec)
    lines = ("A 6♠ = vist:B pass:C", "B 6♠ = vist:C pass:A", "C 6♠ = vist:A pass:B")
    times = []
    for n in range(count):
        times.append(await timed(lambda n=n: Committing(service).record(keeper, lines[n % 3])))
    return statistics.median(times)


def spread(values: list[float]) -> str:
    return f"best {min(values):.0f} / median {statistics.median(values):.0f} ms"


async def main(games: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stats.sqlite3"
        settings = Settings(bot_token="42:TEST", database_path=path, default_locale="en")
        store = await SqliteStore.open(path)
        clock = FakeClock()
        service = Core(store, clock)
        rng = random.Random(24)
        start = time.perf_counter()
        for n in range(games):
            await play_game(service, rng, clock)
            if (n + 1) % 200 == 0:
                print(f"  {n + 1} games played ({time.perf_counter() - start:.0f} s)", flush=True)
        empty_store = await SqliteStore.open(Path(folder) / "empty.sqlite3")
        empty_service = Core(empty_store, FakeClock())
        beside, alone = [], []
        for round_ in range(3):  # interleaved: the machine's load falls on both alike
            beside.append(await deal_cost(service, OTHER - round_, 100))
            alone.append(await deal_cost(empty_service, OTHER - round_, 100))
        await empty_store.close()
        chat = driver(settings, store)
        await chat.send(KEEPER, "/help")
        first = await cpu_timed(lambda: chat.send(KEEPER, "/stats"))
        await store.close()

        cold = {
            c: [await cold_ask(settings, path, c) for _ in range(5)] for c in ("/stats", "/top")
        }
        store = await SqliteStore.open(path)
        chat = driver(settings, store)
        await chat.send(KEEPER, "/stats")
        warm = {
            c: [await timed(lambda c=c: chat.send(KEEPER, c)) for _ in range(7)]
            for c in ("/stats", "/top")
        }
        computed = [
            await timed(
                lambda: chat_stats(
                    Core(store, FakeClock()).store, CHAT, StatsFilter(), clock(), "en"
                )
            )
            for _ in range(5)
        ]
        service = Core(store, FakeClock())
        stats = await chat_stats(service.store, CHAT, StatsFilter(), clock(), "en")
        drawn = [await timed(lambda: standings_png(translator("en"), stats)) for _ in range(7)]
        await store.close()

    print(f"{games} finished games of one chat, {len(stats.players)} players")
    print(
        f"  /stats first ever (makes and keeps the summaries): {first[0]:.0f} ms (CPU {first[1]:.0f})"
    )
    for command in ("/stats", "/top"):
        walls, cpus = [w for w, _ in cold[command]], [c for _, c in cold[command]]
        print(
            f"  {command}: cold {spread(walls)} (CPU {spread(cpus)}); warm {spread(warm[command])}"
        )
    print(f"  chat_stats alone, summaries read from the database: {spread(computed)}")
    print(f"  /top picture alone: {spread(drawn)}")
    print(
        f"  a deal (median of 100, 3 rounds): {statistics.median(alone):.2f} ms on an empty"
        f" database, {statistics.median(beside):.2f} ms beside the {games} games"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    asyncio.run(main(parser.parse_args().games))
