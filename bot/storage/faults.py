"""What a driver's exception means (`Store.fault`): transient (the same unit of work may succeed a
moment later), unwritable (reads work, writes will not until an operator acts), or not a database
failure at all (None: a bug, told as one).

SQLite says it by its result code (`sqlite_errorname`, kept on the exception since Python 3.11; a
message for an exception raised without one): busy and locked are transient — another process holds
the file for a moment; full, read-only, an I/O error and a file that cannot be opened are
unwritable. PostgreSQL says it by SQLSTATE: a lost connection (class 08, asyncpg's "connection is
closed", or its state left mid-operation by the termination), an operator's intervention (57: the backend terminated, the server starting or stopping),
a serialization failure or a deadlock (40), too many connections (53300) and a lock not available
(55P03) are transient; a full disk (53100) and a read-only transaction (25006: a standby, a
read-only default) are unwritable.
"""

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
