"""End-to-end: the real bot (`python -m bot`) through the fake Bot API while its database fails.

- PostgreSQL whose bot connections are killed every ~0.3 s (`pg_terminate_backend` from a superuser
  connection of the test) during bursts of deals in two chats, in long polling and in webhook mode:
  every deal is recorded exactly once, every deal is answered with its sheet, and no chat is told
  "nothing was recorded" about anything (the bot retries, or has the update delivered again).
- SQLite on a full disk (a small tmpfs of the bot's own, in a mount namespace, filled by the test
  through /proc/<pid>/root): each deal is told at once, once, that it is not recorded yet; /score
  still answers; when the space returns every deal is recorded once and answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import GROUP, OTHER_GROUP, Chat, FakeTelegram, Sent
from tests.e2e.harness import BotProcess, Member, contains, scoring_replay
from tests.e2e.test_delivery_e2e import (
    HEADER,
    PLAYERS,
    answered,
    check_against_replay,
    deal_line,
    open_table,
    wait_answered,
)
from tests.e2e.test_game_e2e import assert_balances, has_balances
from tests.pg import PostgresServer, free_port

KILL_EVERY = 0.3  # seconds between two kills of the bot's connections
PER_CHAT = 30  # deals in each of the two chats
BURST = 6  # deals of one chat sent at once
WAIT_ALL = 120.0  # every deal answered, on a busy machine with its database being killed
SECRET = "faults_Secret-1"
NOTHING = ("nothing was recorded", "ничего не записано")
NOT_YET = ("not recorded yet", "пока не записано")


@pytest.fixture(scope="module")
def pg_server() -> Iterator[PostgresServer]:
    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()


class Killer:
    """Terminates every connection to one database every `every` seconds, from a superuser
    connection to another (it is never killed itself); `kills` counts the terminated ones."""

    def __init__(self, server: PostgresServer, url: str, every: float = KILL_EVERY) -> None:
        self.admin = server.url()
        self.database = urlsplit(url).path.lstrip("/")
        self.every = every
        self.kills = 0
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task

    async def _run(self) -> None:
        conn = await asyncpg.connect(self.admin)
        try:
            while not self._stop.is_set():
                killed = await conn.fetchval(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
                    " FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                    self.database,
                )
                self.kills += int(killed or 0)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), self.every)
        finally:
            await conn.close()


def said_nothing_recorded(server: FakeTelegram, chat: Chat) -> list[str]:
    return [s.text for s in server.sent[chat.id] if any(n in s.text.casefold() for n in NOTHING)]


async def bursts(tables: list[dict[str, Member]], lines: list[str], seed: int) -> None:
    """Each chat's deals in bursts of BURST sent at once, both chats together."""
    rng = random.Random(seed)
    for start in range(0, len(lines), BURST):
        for members in tables:
            for i in range(start, min(start + BURST, len(lines))):
                members[PLAYERS[(i + 1) % 3]].send(f"/deal {lines[i]}")
        await asyncio.sleep(rng.uniform(0.3, 1.0))


async def every_deal_once(
    server: FakeTelegram,
    bot: BotProcess,
    tables: list[dict[str, Member]],
    lines: list[str],
    tmp_path: Path,
) -> None:
    for members in tables:
        chat = members["Anna"].chat
        await wait_answered(server, chat, len(lines), WAIT_ALL)
        folder = tmp_path / str(-chat.id)
        folder.mkdir()
        await check_against_replay(members, lines, folder)  # each deal once, balances replayed
        assert set(answered(server, chat)) == set(range(1, len(lines) + 1))
        assert said_nothing_recorded(server, chat) == []
    bot.assert_alive()


async def test_polling_on_a_postgresql_whose_connections_are_killed_records_every_deal_once(
    pg_server: PostgresServer, server: FakeTelegram, start_bot: StartBot, tmp_path: Path
) -> None:
    url = await pg_server.new_database()
    bot = await start_bot(locale="en", env={"DATABASE_URL": url})
    tables = [await open_table(bot, chat) for chat in (GROUP, OTHER_GROUP)]
    lines = [deal_line(i) for i in range(PER_CHAT)]
    killer = Killer(pg_server, url)
    killer.start()
    try:
        await bursts(tables, lines, seed=23)
        await asyncio.sleep(3.0)  # the kills go on while the bursts are being handled
    finally:
        await killer.stop()
    await every_deal_once(server, bot, tables, lines, tmp_path)
    retried = bot.log().count("failed (")
    print(f"polling: {killer.kills} connections killed; {retried} attempts failed and retried")
    assert killer.kills >= 10 and retried > 0, "the database was not disturbed"


async def test_webhook_mode_on_a_postgresql_whose_connections_are_killed_records_every_deal_once(
    pg_server: PostgresServer, server: FakeTelegram, start_bot: StartBot, tmp_path: Path
) -> None:
    url = await pg_server.new_database()
    port = free_port()
    bot = await start_bot(
        locale="en",
        webhook=True,
        env={
            "DATABASE_URL": url,
            "WEBHOOK_URL": f"http://127.0.0.1:{port}/tg/hook",
            "WEBHOOK_SECRET": SECRET,
            "WEB_LISTEN": f"127.0.0.1:{port}",
        },
    )
    tables = [await open_table(bot, chat) for chat in (GROUP, OTHER_GROUP)]
    lines = [deal_line(i) for i in range(PER_CHAT)]
    killer = Killer(pg_server, url)
    killer.start()
    try:
        await bursts(tables, lines, seed=2023)
        await asyncio.sleep(3.0)
    finally:
        await killer.stop()
    await server.wait_idle(quiet=1.0, timeout=WAIT_ALL)
    await every_deal_once(server, bot, tables, lines, tmp_path)
    again = sum(1 for _, status in server.webhook.attempts if status >= 500)
    print(f"webhook: {killer.kills} connections killed; {again} updates answered 5xx, re-sent")
    assert killer.kills >= 10, "the database was not disturbed"


# ---- SQLite on a full disk ------------------------------------------------------------------


def in_own_tmpfs(disk: Path, size: str = "8m") -> tuple[str, ...]:
    """`python` arguments that start the bot in a mount namespace of its own with a tmpfs of
    `size` on `disk` (root makes the namespace; anyone else a user namespace too); the process
    keeps its pid through the execs."""
    flags = "-m" if os.geteuid() == 0 else "-rm"
    script = f'mount -t tmpfs -o size={size} tmpfs "{disk}" && exec "$0" -m bot'
    start = (
        "import os, sys; "
        f"os.execvp('unshare', ['unshare', '{flags}', 'sh', '-c', {script!r}, sys.executable])"
    )
    return ("-c", start)


class Disk:
    """The bot's tmpfs seen from outside its namespace: fill it, empty it."""

    def __init__(self, bot: BotProcess, disk: Path) -> None:
        assert bot.proc is not None
        self.root = Path(f"/proc/{bot.proc.pid}/root{disk}")
        self.filler = self.root / "filler"

    def database(self) -> Path:
        return self.root / "bot.sqlite3"

    def fill(self) -> None:
        """The WAL truncated first (from then on every commit must grow it), then every free
        block taken."""
        with contextlib.closing(sqlite3.connect(self.database(), timeout=10)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        chunk = b"\0" * 65536
        with self.filler.open("wb", buffering=0) as out:
            try:
                while True:
                    out.write(chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
            try:
                while True:
                    out.write(b"\0" * 512)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error

    def free(self) -> None:
        self.filler.unlink()


def not_yet(sent: Sent) -> bool:
    """The notice that a command could not be saved yet (in either language)."""
    return any(n in sent.text.casefold() for n in NOT_YET)


def notices(server: FakeTelegram, chat: Chat) -> list[str]:
    return [s.text for s in server.sent[chat.id] if not_yet(s)]


async def test_sqlite_on_a_full_disk_tells_each_deal_once_and_records_it_when_the_space_returns(
    server: FakeTelegram, start_bot: StartBot, tmp_path: Path
) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    bot = await start_bot(
        locale="en",
        argv=in_own_tmpfs(disk),
        env={"DATABASE_PATH": str(disk / "bot.sqlite3"), "PICTURE_PROCESSES": "0"},
    )
    members = await open_table(bot, GROUP)
    lines = [deal_line(i) for i in range(6)]
    for i in range(3):
        await members[PLAYERS[i % 3]].say(f"/deal {lines[i]}", contains(f"#{i + 1} "))
    room = Disk(bot, disk)
    room.fill()
    for i in range(3, 6):
        await members[PLAYERS[i % 3]].say(f"/deal {lines[i]}", not_yet)
    score = await members["Anna"].say("/score", has_balances)  # a look answers all the same
    typed = await scoring_replay(tmp_path / "three.pref", HEADER + "\n".join(lines[:3]) + "\n")
    assert_balances(score, typed["balances_exact"])  # the three deals saved, not the others
    await asyncio.sleep(4.0)  # the deals come again and again while the disk is full
    assert len(notices(server, GROUP)) == 3, notices(server, GROUP)  # once per deal
    assert set(answered(server, GROUP)) == {1, 2, 3}
    room.free()
    await wait_answered(server, GROUP, 6, 60)
    await check_against_replay(members, lines, tmp_path)
    assert said_nothing_recorded(server, GROUP) == []
    assert len(notices(server, GROUP)) == 3
    bot.assert_alive()
