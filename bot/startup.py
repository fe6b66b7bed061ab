"""Opening the database at start-up: one that does not answer yet (a PostgreSQL server still
starting) is tried again with a growing pause for up to DATABASE_WAIT_SECONDS; one that answers
"no" (a wrong password, a damaged file) stops the start at once."""

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Final

import asyncpg

from bot.domain import Store, StoreBroken
from bot.logs import EVERY
from bot.settings import Settings
from bot.storage.postgres import PostgresStore
from bot.storage.sqlite import SqliteStore

log = logging.getLogger(__name__)

FIRST_PAUSE: Final = 1.0  # seconds before the second try; doubled each try
LONGEST_PAUSE: Final = 10.0
TRY_TIMEOUT: Final = 10.0  # seconds one try may take (a host that drops the packets)
# PostgreSQL's errors of a server that does not answer yet (still starting, its host not yet
# resolvable in compose, refusing connections for a moment); anything else is the settings' fault.
_PG_NOT_YET: tuple[type[BaseException], ...] = (
    OSError,
    asyncpg.CannotConnectNowError,
    asyncpg.TooManyConnectionsError,
    asyncpg.ConnectionDoesNotExistError,
    asyncpg.ConnectionFailureError,
)


class StartupError(Exception):
    """A start-up problem the user can fix, its message the one line to show (no password);
    `transient`: the database did not answer, and may a moment later."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


async def open_store(settings: Settings) -> Store:
    """The store the settings name, opened, migrated and checked; `StartupError` if not."""
    where, url, path = settings.database_setting(), settings.database_url, settings.database_path
    try:
        store: Store = await PostgresStore.open(url) if url else await SqliteStore.open(path)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, RuntimeError) as error:
        transient = bool(url) and isinstance(error, _PG_NOT_YET)
        raise StartupError(
            f"{where} cannot be opened: {error or type(error).__name__}.", transient=transient
        ) from None
    except sqlite3.Error as error:
        busy = isinstance(error, sqlite3.OperationalError) and "locked" in str(error)
        raise StartupError(f"{where} cannot be opened: {error}.", transient=busy) from None
    try:
        await store.check()
    except StoreBroken as error:
        await store.close()
        raise StartupError(f"{where}: {error}.") from None
    return store


async def open_when_ready(
    settings: Settings,
    *,
    opener: Callable[[Settings], Awaitable[Store]] = open_store,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Store:
    patience = settings.database_wait_seconds
    deadline = clock() + patience
    pause, tries = FIRST_PAUSE, 0
    while True:
        tries += 1
        try:
            return await asyncio.wait_for(opener(settings), min(TRY_TIMEOUT, max(patience, 1)))
        except StartupError as error:
            if not error.transient:
                raise
            problem = str(error)
        except TimeoutError:
            problem = f"{settings.database_setting()} does not answer (no reply within a try)."
        left = deadline - clock()
        if left <= 0:
            raise StartupError(
                f"{problem} Gave up after {tries} tries in {patience:.0f} s"
                " (DATABASE_WAIT_SECONDS)."
            )
        wait = min(pause, left)
        again = "%s Trying again in %.0f s (try %d, waiting up to %.0f s more)."
        log.warning(again, problem, wait, tries, left, extra=EVERY)
        await sleep(wait)
        pause = min(pause * 2, LONGEST_PAUSE)
