"""Which database the bot runs on: PostgreSQL when `DATABASE_URL` is set, else the SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Protocol

import asyncpg

from bot.storage.base import Store, StoreBroken
from bot.storage.postgres import PostgresStore, masked_url
from bot.storage.sqlite import SqliteStore


class StoreUnavailable(Exception):
    """The database cannot be opened; the message is the one line to show (no password in it)."""


class Where(Protocol):
    """Which database (the bot's settings have both fields; storage reads no settings itself)."""

    @property
    def database_url(self) -> str | None: ...

    @property
    def database_path(self) -> Path: ...


async def open_store(settings: Where) -> Store:
    """The store the settings name, opened, migrated and checked (`Store.check`);
    `StoreUnavailable` if it cannot be."""
    store = await _open(settings)
    try:
        await store.check()
    except StoreBroken as error:
        await store.close()
        where = (
            f"DATABASE_URL={masked_url(settings.database_url)}"
            if settings.database_url
            else f"DATABASE_PATH={settings.database_path}"
        )
        raise StoreUnavailable(f"{where}: {error}.") from None
    return store


async def _open(settings: Where) -> Store:
    if settings.database_url:
        try:
            return await PostgresStore.open(settings.database_url)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, RuntimeError) as error:
            raise StoreUnavailable(
                f"DATABASE_URL={masked_url(settings.database_url)} cannot be opened: {error}."
            ) from None
    try:
        return await SqliteStore.open(settings.database_path)
    except (OSError, sqlite3.Error, RuntimeError) as error:
        raise StoreUnavailable(
            f"DATABASE_PATH={settings.database_path} cannot be opened: {error}."
        ) from None
