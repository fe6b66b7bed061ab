"""`python -m bot backup FILE`: a consistent copy of a SQLite database while the bot records deals
into it (a plain `cp` held none of the deals still in the write-ahead log), self-contained and
checked; on PostgreSQL the pg_dump command instead, without the password."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.backup import EXIT_REFUSED, backup_sqlite
from bot.core import Caller, Core, looks, parse_newgame
from bot.settings import known_keys
from bot.storage import SqliteStore
from tests.bot.factories import Committing, FakeClock

REPO = Path(__file__).resolve().parents[2]
CHAT = -100_2800
ANNA = Caller(CHAT, 1001, "Anna", "anna_p")
PLAYERS = (ANNA, Caller(CHAT, 1002, "Boris", "boris_p"), Caller(CHAT, 1003, "Clara", "clara_p"))
# Contracts that fail: the mountains grow and no pool closes, so the game never ends.
DEALS = (
    "Anna 6♠ -1 vist:Boris pass:Clara",
    "Boris 6♣ -1 vist:Clara pass:Anna",
    "Clara 6♦ -1 vist:Anna pass:Boris",
)


def environment(**settings: str) -> dict[str, str]:
    own = known_keys()
    env = {k: v for k, v in os.environ.items() if k.upper() not in own}
    return {**env, "PYTHONPATH": str(REPO), **settings}


async def run_backup(target: Path, cwd: Path, **settings: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "bot", "backup", str(target)),
        cwd=cwd,
        env=environment(**settings),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_backup_taken_while_deals_are_recorded_replays_every_deal_committed_before_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "prefbot.sqlite3"
    store = await SqliteStore.open(path)
    service = Core(store, FakeClock())
    await Committing(service).new_game(ANNA, parse_newgame("sochi pool 10", ANNA.as_player()))
    for player in PLAYERS:
        await Committing(service).join(player)
    committed = 0
    stop = asyncio.Event()

    async def record() -> None:
        nonlocal committed
        while not stop.is_set():
            await Committing(service).record(ANNA, DEALS[committed % len(DEALS)])
            committed += 1
            await asyncio.sleep(0.002)

    recording = asyncio.create_task(record())
    try:
        while committed < 30:
            await asyncio.sleep(0.01)
        before = committed  # every one of these is committed: the copy must hold them
        with sqlite3.connect(path) as db:  # and they are still in the log, not the file
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        copy = tmp_path / "backup.sqlite3"
        code, out, err = await run_backup(copy, tmp_path, DATABASE_PATH=str(path))
        after = committed
    finally:
        stop.set()
        await recording
    assert code == 0, err
    assert after > before  # the bot kept recording while the copy was made
    assert out.startswith(f"backup: DATABASE_PATH={path} copied to {copy}: 1 games, ")
    assert out.rstrip().endswith("quick_check ok") and err == ""
    assert not Path(f"{copy}-wal").exists()  # one self-contained file
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"

    original, copied = Core(store), Core(await SqliteStore.open(copy))
    try:
        snapshot = await looks.snapshot(copied, CHAT)
        deals = len(snapshot.state.records)
        assert before <= deals <= after
        game_id = snapshot.state.game_id
        async with store.reading() as repo, copied.store.reading() as theirs:
            ours = await repo.events(game_id)
            kept = await theirs.events(game_id)
        assert kept == ours[: len(kept)]  # the copy is the log as it stood at one moment
        then = await looks.sheet_at(original, game_id, kept[-1].seq)
        assert then is not None and snapshot.sheet == then.sheet  # and replays to its sheet
    finally:
        await copied.store.close()
        await store.close()


async def test_restoring_a_backup_gives_the_bot_the_same_games(tmp_path: Path) -> None:
    path = tmp_path / "prefbot.sqlite3"
    store = await SqliteStore.open(path)
    service = Core(store, FakeClock())
    await Committing(service).new_game(ANNA, parse_newgame("sochi pool 10", ANNA.as_player()))
    for player in PLAYERS:
        await Committing(service).join(player)
    for line in DEALS:
        await Committing(service).record(ANNA, line)
    sheet = (await looks.snapshot(service, CHAT)).sheet
    backup_sqlite(path, tmp_path / "copy.sqlite3")
    await store.close()
    for leftover in tmp_path.glob("prefbot.sqlite3*"):
        leftover.unlink()  # the disk is lost
    (tmp_path / "copy.sqlite3").rename(path)  # restore: the copy becomes DATABASE_PATH
    restored = await SqliteStore.open(path)
    try:
        again = Core(restored, FakeClock())
        assert (await looks.snapshot(again, CHAT)).sheet == sheet
        await Committing(again).record(ANNA, DEALS[0])  # and the game goes on
    finally:
        await restored.close()


def test_a_backup_refuses_a_missing_database_or_folder_and_leaves_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "backup", str(tmp_path / "copy.sqlite3")],
        cwd=tmp_path,
        env=environment(DATABASE_PATH=str(tmp_path / "none.sqlite3")),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == EXIT_REFUSED and "Traceback" not in done.stderr
    assert done.stderr.startswith("backup: nothing copied: there is no database file")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "db.sqlite3").write_bytes(b"")
    with pytest.raises(Exception, match="does not exist"):
        backup_sqlite(tmp_path / "db.sqlite3", tmp_path / "no" / "copy.sqlite3")


async def test_on_postgresql_the_backup_prints_the_pg_dump_command_without_the_password(
    tmp_path: Path,
) -> None:
    code, out, err = await run_backup(
        Path("prefbot.dump"),
        tmp_path,
        PGHOST="db",
        PGUSER="prefbot",
        PGPASSWORD="p@ss/w#rd",
    )
    assert code == EXIT_REFUSED and "nothing copied" in err
    assert "pg_dump --format=custom --file=prefbot.dump" in out
    assert "PGHOST=db PGPORT=5432 PGDATABASE=prefbot" in out and "pg_restore" in out
    assert "p@ss" not in out + err
    code, out, _ = await run_backup(
        Path("x.dump"), tmp_path, DATABASE_URL="postgresql://u:s3cret@db:5432/prefbot"
    )
    assert code == EXIT_REFUSED and '--dbname="$DATABASE_URL"' in out and "s3cret" not in out
