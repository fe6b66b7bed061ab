"""The storage tests run on both backends: SQLite in a temporary file and a real PostgreSQL server
started for the session from the system's binaries (`tests.pg`)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.domain import Repo, Store
from bot.storage.postgres import PostgresRepo, PostgresStore
from bot.storage.sqlite import SqliteRepo, SqliteStore
from tests.pg import PostgresServer

BACKENDS = ("sqlite", "postgres")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Backend:
    """One database of one backend; `open()` gives a new store on it (another process, as it were)."""

    name: str
    target: str  # the SQLite path or the PostgreSQL URL

    async def open(self) -> Store:
        if self.name == "sqlite":
            return await SqliteStore.open(self.target)
        return await PostgresStore.open(self.target)

    @property
    def integrity_error(self) -> tuple[type[Exception], ...]:
        """What a refused write raises (a constraint or the append-only trigger)."""
        if self.name == "sqlite":
            return (sqlite3.IntegrityError,)
        return (asyncpg.IntegrityConstraintViolationError,)

    async def execute(self, repo: Repo, sql: str) -> None:
        """Raw SQL inside the repository's unit of work (what no repository method would do)."""
        if isinstance(repo, SqliteRepo):
            await repo._count(sql)  # a trip of the unit: what it holds back goes first
        else:
            assert isinstance(repo, PostgresRepo)
            await repo._conn.execute(sql)

    async def fetch(self, store: Store, sql: str) -> list[tuple[Any, ...]]:
        async with store.reading() as repo:
            if isinstance(repo, SqliteRepo):
                return await repo._all(sql)
            assert isinstance(repo, PostgresRepo)
            return [tuple(row) for row in await repo._conn.fetch(sql)]


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return Backend("sqlite", str(tmp_path / "t.sqlite3"))
    server: PostgresServer = request.getfixturevalue("pg_server")
    return Backend("postgres", await server.new_database())


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    store = await backend.open()
    yield store
    await store.close()
