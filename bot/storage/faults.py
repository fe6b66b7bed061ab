"""What a driver's exception means (`Store.fault`): transient, unwritable, or no database failure
(None: a bug). SQLite says it by result code (a message when raised without one), PostgreSQL by
SQLSTATE (or asyncpg's words for a connection terminated under it)."""

from __future__ import annotations

import sqlite3
from typing import Final

import asyncpg

from bot.domain.ports import Fault

_SQLITE_TRANSIENT: Final = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_PROTOCOL")
_SQLITE_UNWRITABLE: Final = ("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_CANTOPEN")
_SQLITE_TRANSIENT_WORDS: Final = ("database is locked", "database table is locked", "busy")
_SQLITE_UNWRITABLE_WORDS: Final = ("disk is full", "readonly", "read-only", "disk i/o error")

_PG_TRANSIENT: Final = ("08", "57", "40", "53300", "55P03")
_PG_UNWRITABLE: Final = ("53100", "25006")
_PG_CONNECTION_GONE: Final = ("closed", "another operation")


def sqlite_fault(error: BaseException) -> Fault | None:
    if not isinstance(error, sqlite3.Error):
        return None
    name = getattr(error, "sqlite_errorname", None)
    if isinstance(name, str) and name.startswith("SQLITE_"):
        if name.startswith(_SQLITE_TRANSIENT):
            return Fault.TRANSIENT
        if name.startswith(_SQLITE_UNWRITABLE):
            return Fault.UNWRITABLE
        return None
    text = str(error).casefold()
    if any(words in text for words in _SQLITE_TRANSIENT_WORDS):
        return Fault.TRANSIENT
    if any(words in text for words in _SQLITE_UNWRITABLE_WORDS):
        return Fault.UNWRITABLE
    return None


def postgres_fault(error: BaseException) -> Fault | None:
    if isinstance(error, asyncpg.PostgresError):
        state = str(getattr(error, "sqlstate", "") or "")
        if state.startswith(_PG_UNWRITABLE):
            return Fault.UNWRITABLE
        if state.startswith(_PG_TRANSIENT):
            return Fault.TRANSIENT
        return None
    if isinstance(error, asyncpg.InterfaceError | asyncpg.exceptions.InternalClientError):
        # A connection terminated under asyncpg: closed, or left mid-operation (its next
        # statement finds "another operation in progress").
        text = str(error)
        return Fault.TRANSIENT if any(w in text for w in _PG_CONNECTION_GONE) else None
    if isinstance(error, OSError | TimeoutError):  # refused, reset: the server is not reachable
        return Fault.TRANSIENT
    return None
