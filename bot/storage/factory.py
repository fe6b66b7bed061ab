"""Which database the bot runs on: PostgreSQL when `DATABASE_URL` is set, else the SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Protocol

import asyncpg

from bot.domain import Store, StoreBroken
from bot.storage.postgres import PostgresStore
from bot.storage.sqlite import SqliteStore

# PostgreSQL's errors of a server that does not answer yet (still starting, its host not yet
# resolvable in compose, refusing connections for a moment); anything else is the settings' fault.
_PG_NOT_YET: tuple[type[BaseException], ...] = (
    OSError,
    asyncpg.CannotConnectNowError,
    asyncpg.TooManyConnectionsError,
    asyncpg.ConnectionDoesNotExistError,
    asyncpg.ConnectionFailureError,
)


class StoreUnavailable(Exception):
    """The database cannot be opened (the message: one line, no password); `transient`: it did
    not answer, and may a moment later (`bot.startup`)."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class Where(Protocol):
    """Which database (the bot's settings have both fields; storage reads no settings itself)."""

    @property
    def database_url(self) -> str | None: ...

    @property
    def database_path(self) -> Path: ...

    def database_setting(self) -> str:
        """The setting that names the database, as the user set it, masked (for messages)."""


async def open_store(settings: Where) -> Store:
    """The store the settings name, opened, migrated and checked; `StoreUnavailable` if not."""
    store = await _open(settings)
    try:
        await store.check()
    except StoreBroken as error:
        await store.close()
        raise StoreUnavailable(f"{settings.database_setting()}: {error}.") from None
    return store


async def _open(settings: Where) -> Store:
    where = settings.database_setting()
    if settings.database_url:
        try:
            return await PostgresStore.open(settings.database_url)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, RuntimeError) as error:
            raise StoreUnavailable(
                f"{where} cannot be opened: {error or type(error).__name__}.",
                transient=isinstance(error, _PG_NOT_YET),
            ) from None
    try:
        return await SqliteStore.open(settings.database_path)
    except (OSError, sqlite3.Error, RuntimeError) as error:
        busy = isinstance(error, sqlite3.OperationalError) and "locked" in str(error)
        raise StoreUnavailable(f"{where} cannot be opened: {error}.", transient=busy) from None
