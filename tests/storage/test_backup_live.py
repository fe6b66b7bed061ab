"""`python -m bot backup FILE` on a 5,000-deal database while the bot keeps recording deals into it
(issue 36): the copy passes `integrity_check`, holds every deal acknowledged before the backup began,
is the log as it stood at one moment, and replays; the deals go on being recorded meanwhile."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from bot.core import Core, looks, parse_newgame
from bot.storage import SqliteStore
from tests.bot.factories import Committing, FakeClock
from tests.storage.test_backup import ANNA, CHAT, DEALS, PLAYERS, run_backup

RECORDED = 48  # deals recorded by the bot; the log is then those rows copied on to TOTAL deals
TOTAL = 5_000
FIRST_DEAL = 6  # the game's events before its deals: created, three joined, started


async def five_thousand_deals(path: Path) -> int:
    """A game as the bot writes it, at TOTAL deals (its own rows repeated: recording 5,000 deals
    one by one takes longer than the test); its id."""
    store = await SqliteStore.open(path)
    try:
        service = Core(store, FakeClock())
        await Committing(service).new_game(ANNA, parse_newgame("sochi pool 10", ANNA.as_player()))
        for player in PLAYERS:
            await Committing(service).join(player)
        for n in range(RECORDED):
            await Committing(service).record(ANNA, DEALS[n % len(DEALS)])
        game_id = (await looks.snapshot(service, CHAT)).state.game_id
    finally:
        await store.close()
    with sqlite3.connect(path) as db:
        db.execute(
            "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ?)"
            " INSERT INTO events SELECT game_id, seq + n * ?, kind, payload, author, at,"
            " schema_version FROM events, k WHERE game_id = ? AND seq >= ?",
            (TOTAL // RECORDED - 1, RECORDED, game_id, FIRST_DEAL),
        )
        deals = db.execute("SELECT COUNT(*) FROM events WHERE kind = 'deal'").fetchone()[0]
    assert deals == TOTAL // RECORDED * RECORDED
    return game_id


async def test_a_backup_of_a_5000_deal_database_while_deals_come_in_holds_every_acknowledged_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "prefbot.sqlite3"
    game_id = await five_thousand_deals(path)
    base = TOTAL // RECORDED * RECORDED
    store = await SqliteStore.open(path)
    service = Core(store, FakeClock())
    commits: list[tuple[float, float]] = []  # each acknowledged deal: its command's start and end
    stop = asyncio.Event()

    async def record() -> None:
        while not stop.is_set():
            start = time.monotonic()
            await Committing(service).record(ANNA, DEALS[len(commits) % len(DEALS)])
            commits.append((start, time.monotonic()))
            await asyncio.sleep(0.002)

    recording = asyncio.create_task(record())
    try:
        while len(commits) < 20:
            await asyncio.sleep(0.01)
        before = len(commits)  # acknowledged: the copy must hold every one of them
        copy = tmp_path / "backup.sqlite3"
        began = time.monotonic()
        code, out, err = await run_backup(copy, tmp_path, DATABASE_PATH=str(path))
        took = time.monotonic() - began
        after = len(commits)
        await asyncio.sleep(0.1)  # and the bot goes on recording after it
    finally:
        stop.set()
        await recording
    assert code == 0 and err == "", err
    assert after > before  # deals were recorded while the copy was made
    during = [end - start for start, end in commits if end > began and start < began + took]
    quiet = [end - start for start, end in commits[1:before]]  # the first folds the log
    print(
        f"\nbackup of {base + before} deals: {took:.2f} s (the command, Python's start included);"
        f" {len(during)} deals recorded meanwhile, the longest in {max(during) * 1000:.0f} ms"
        f" (before it {max(quiet) * 1000:.0f} ms)"
    )

    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert not Path(f"{copy}-wal").exists()
    copied = Core(await SqliteStore.open(copy))
    try:
        async with store.reading() as repo, copied.store.reading() as theirs:
            ours = await repo.events(game_id)
            kept = await theirs.events(game_id)
        assert kept == ours[: len(kept)]  # the log as it stood at one moment
        deals = sum(event.kind == "deal" for event in kept)
        assert base + before <= deals <= base + after
        assert f"1 games, {len(kept)} events" in out
        snapshot = await looks.snapshot(copied, CHAT)  # the copy folds and replays
        assert len(snapshot.state.records) == deals
        then = await looks.sheet_at(service, game_id, kept[-1].seq)
        assert then is not None and snapshot.sheet == then.sheet
    finally:
        await copied.store.close()
        await store.close()
