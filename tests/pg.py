"""A real PostgreSQL server for the tests, started from the system's binaries in a temporary folder.

`PostgresServer.start()` runs `initdb` and `pg_ctl start` (as an unprivileged OS user when the tests
run as root: PostgreSQL refuses to run as root), listening on 127.0.0.1 on a free port with trust
authentication; `stop()` shuts it down and removes the folder. `.ci/run` installs PostgreSQL when the
binaries are missing. Each test gets its own database (`new_database()`), so nothing leaks between
tests and no table needs emptying (the events table refuses DELETE and TRUNCATE anyway).
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Final

import asyncpg

TOOLS: Final = ("initdb", "pg_ctl")
TEST_USER: Final = "prefbot-pg"  # the OS user that runs the server when the tests run as root
SUPERUSER: Final = "postgres"  # the database role initdb creates


def postgres_bin() -> Path:
    """The folder of `initdb` and `pg_ctl`: on PATH, or the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if all((Path(folder) / tool).exists() for tool in TOOLS):
            return Path(folder)
    raise RuntimeError(
        "PostgreSQL's initdb and pg_ctl are not installed: apt-get install postgresql "
        "(.ci/run does this) or put them on PATH"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _os_user() -> str | None:
    """None when not root; else an unprivileged user, created if missing (`nobody` if that fails)."""
    if os.geteuid() != 0:
        return None
    if subprocess.run(["id", "-u", TEST_USER], capture_output=True).returncode == 0:
        return TEST_USER
    made = subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", TEST_USER],
        capture_output=True,
    )
    return TEST_USER if made.returncode == 0 else "nobody"


class PostgresServer:
    def __init__(self, folder: Path, port: int, user: str | None, durable: bool = False) -> None:
        self.folder = folder
        self.port = port
        self.user = user
        self.durable = durable
        self._names = itertools.count(1)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        return subprocess.run(
            [*prefix, *argv], capture_output=True, text=True, check=False, cwd=self.folder
        )

    @classmethod
    def start(cls, durable: bool = False) -> PostgresServer:
        """A running server; `durable` keeps PostgreSQL's own fsync settings (benchmarks)."""
        binaries = postgres_bin()
        folder = Path(tempfile.mkdtemp(prefix="prefbot-pg-"))
        user = _os_user()
        if user:
            shutil.chown(folder, user)
        server = cls(folder, free_port(), user, durable)
        made = server._run(
            str(binaries / "initdb"),
            "-D",
            str(server.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        if made.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            raise RuntimeError(f"initdb failed: {made.stderr.strip()}")
        for _attempt in range(3):
            started = server._run(
                str(binaries / "pg_ctl"),
                "-D",
                str(server.data),
                "-l",
                str(folder / "server.log"),
                "-o",
                server.options(),
                "-w",
                "-t",
                "60",
                "start",
            )
            if started.returncode == 0:
                return server
            # Another process took the port meanwhile: try another one.
            server.port = free_port()
        log = (folder / "server.log").read_text(errors="replace")[-2000:]
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()}\n{log}")

    def options(self) -> str:
        """The server's settings: this port, no Unix socket in /run, durability off for tests."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder}"
            " -c max_connections=200 -c shared_buffers=16MB"
        )
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        return options

    def pause(self) -> None:
        """Stop the server and keep its data: `resume` starts it again on the same port."""
        self._run(str(postgres_bin() / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        started = self._run(
            str(postgres_bin() / "pg_ctl"),
            *("-D", str(self.data), "-l", str(self.folder / "server.log")),
            *("-o", self.options(), "-w", "-t", "60", "start"),
        )
        if started.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()}")

    def stop(self) -> None:
        self._run(str(postgres_bin() / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    async def new_database(self) -> str:
        """A new empty database; returns its URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)
