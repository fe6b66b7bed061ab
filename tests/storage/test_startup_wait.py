"""The start and the database: `Store.ping` on both backends, the wait for a database that does not
answer yet (back-off, one line a try, DATABASE_WAIT_SECONDS, then a clear refusal), and a real
PostgreSQL reached with a password full of URL characters through the PG* settings."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import asyncpg
import pytest

from bot.domain import Store
from bot.settings import Settings, known_keys
from bot.startup import StartupError, open_store, open_when_ready
from bot.storage.postgres import PostgresStore
from tests.pg import PostgresServer
from tests.storage.conftest import Backend

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "p@ss/w#rd%41:z+= 'x'"


async def test_ping_answers_on_both_backends_and_fails_once_closed(backend: Backend) -> None:
    store = await backend.open()
    await store.ping()
    await store.close()
    with pytest.raises(Exception):  # noqa: B017 - whatever the driver raises for a closed store
        await store.ping()


class FakeTime:
    """The wait's clock and sleep: sleeping moves the clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class Opener:
    """Fails `failures` times as a database that does not answer, then opens `store`."""

    def __init__(self, failures: int, store: Store | None = None, transient: bool = True) -> None:
        self.failures = failures
        self.store = store
        self.transient = transient
        self.calls = 0

    async def __call__(self, settings: Settings) -> Store:
        self.calls += 1
        if self.calls <= self.failures or self.store is None:
            raise StartupError(
                f"{settings.database_setting()} cannot be opened: refused.",
                transient=self.transient,
            )
        return self.store


def pg_settings(wait: float = 60) -> Settings:
    return Settings(
        bot_token="42:TEST",
        pghost="db",
        pguser="prefbot",
        pgpassword=PASSWORD,
        database_wait_seconds=wait,
    )


async def test_a_database_that_answers_late_is_waited_for_with_back_off_one_line_a_try(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    store = await open_store(Settings(bot_token="42:TEST", database_path=tmp_path / "t.db"))
    time = FakeTime()
    opener = Opener(5, store)
    with caplog.at_level(logging.WARNING, logger="bot.startup"):
        got = await open_when_ready(
            pg_settings(), opener=opener, sleep=time.sleep, clock=time.clock
        )
    await got.close()
    assert got is store and opener.calls == 6
    assert time.slept == [1.0, 2.0, 4.0, 8.0, 10.0]  # doubling, capped
    tries = [r.getMessage() for r in caplog.records]
    assert len(tries) == 5
    assert tries[0] == (
        "PGHOST=db PGPORT=5432 PGDATABASE=prefbot cannot be opened: refused."
        " Trying again in 1 s (try 1, waiting up to 60 s more)."
    )
    assert all(PASSWORD not in line and "p@ss" not in line for line in tries)


async def test_a_database_that_never_answers_is_given_up_after_database_wait_seconds() -> None:
    time = FakeTime()
    opener = Opener(10**6)
    with pytest.raises(StartupError) as caught:
        await open_when_ready(pg_settings(20), opener=opener, sleep=time.sleep, clock=time.clock)
    assert time.now == 20 and sum(time.slept) == 20  # the last pause is cut to the limit
    assert str(caught.value).endswith("Gave up after 6 tries in 20 s (DATABASE_WAIT_SECONDS).")


async def test_a_database_that_refuses_stops_the_start_at_once() -> None:
    time = FakeTime()
    opener = Opener(10**6, transient=False)
    with pytest.raises(StartupError):
        await open_when_ready(pg_settings(), opener=opener, sleep=time.sleep, clock=time.clock)
    assert opener.calls == 1 and time.slept == []


async def test_a_try_that_hangs_is_cut_short_and_counts_as_not_answering() -> None:
    time = FakeTime()

    async def hangs(settings: Settings) -> Store:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    with pytest.raises(StartupError, match="does not answer"):
        await open_when_ready(pg_settings(0), opener=hangs, sleep=time.sleep, clock=time.clock)


async def test_the_start_waits_for_a_real_postgresql_that_comes_up_meanwhile(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = PostgresServer.start()
    try:
        settings = Settings(bot_token="42:TEST", database_url=server.url())
        server.pause()
        timer = threading.Timer(2.5, server.resume)
        timer.start()
        try:
            with caplog.at_level(logging.WARNING, logger="bot.startup"):
                store = await open_when_ready(settings)
        finally:
            timer.join()
        try:
            await store.ping()
        finally:
            await store.close()
        tries = [r.getMessage() for r in caplog.records if "Trying again" in r.getMessage()]
        assert tries and all(line.startswith("DATABASE_URL=postgresql://***@") for line in tries)
    finally:
        server.stop()


async def test_pg_variables_reach_a_real_server_with_any_password(
    pg_server: PostgresServer,
) -> None:
    """A role with a password of URL characters, checked by the server (scram-sha-256): the
    right one through PGPASSWORD connects, a wrong one is refused at once (not waited for)."""
    url = await pg_server.new_database()
    database = url.rpartition("/")[2]
    role = f"pw_{database}"
    conn = await asyncpg.connect(pg_server.url())
    try:
        quoted = PASSWORD.replace("'", "''")
        await conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{quoted}'")
        await conn.execute(f'GRANT ALL ON DATABASE "{database}" TO {role}')
        await conn.execute(f'ALTER DATABASE "{database}" OWNER TO {role}')
        hba = pg_server.data / "pg_hba.conf"
        rule = f"host all {role} 127.0.0.1/32 scram-sha-256\n"
        hba.write_text(rule + hba.read_text())
        await conn.execute("SELECT pg_reload_conf()")
    finally:
        await conn.close()

    def settings(password: str) -> Settings:
        return Settings(
            bot_token="42:TEST",
            pghost="127.0.0.1",
            pgport=pg_server.port,
            pguser=role,
            pgpassword=password,
            pgdatabase=database,
        )

    store = await open_when_ready(settings(PASSWORD))
    try:
        assert isinstance(store, PostgresStore)
        await store.ping()
    finally:
        await store.close()
    with pytest.raises(StartupError) as caught:
        await open_when_ready(settings(PASSWORD + "x"))
    assert not caught.value.transient
    assert "password authentication failed" in str(caught.value)
    assert str(caught.value).startswith(f"PGHOST=127.0.0.1 PGPORT={pg_server.port} ")
    assert "p@ss" not in str(caught.value)


def test_python_m_bot_on_a_database_path_it_cannot_open_exits_2_with_one_line(
    tmp_path: Path,
) -> None:
    """Refused at once (it is no database that will answer later), and no thread of the driver
    left to print a traceback after the event loop closed."""
    own = known_keys()
    env = {k: v for k, v in os.environ.items() if k.upper() not in own}
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={
            **env,
            "PYTHONPATH": str(REPO),
            "BOT_TOKEN": "123456:ABC-def",
            "DATABASE_PATH": str(tmp_path),  # a folder
            "TELEGRAM_API_URL": "http://127.0.0.1:1",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert (
        done.stderr
        == f"DATABASE_PATH={tmp_path} cannot be opened: unable to open database file.\n"
    )
