"""Opening the database at start-up: one that does not answer yet (a PostgreSQL server still
starting) is tried again with a growing pause for up to DATABASE_WAIT_SECONDS; one that answers
"no" (a wrong password, a damaged file) stops the start at once."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Final

from bot.logs import EVERY
from bot.settings import Settings
from bot.storage.base import Store
from bot.storage.factory import StoreUnavailable, open_store

log = logging.getLogger(__name__)

FIRST_PAUSE: Final = 1.0  # seconds before the second try; doubled each try
LONGEST_PAUSE: Final = 10.0
TRY_TIMEOUT: Final = 10.0  # seconds one try may take (a host that drops the packets)


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
        except StoreUnavailable as error:
            if not error.transient:
                raise
            problem = str(error)
        except TimeoutError:
            problem = f"{settings.database_setting()} does not answer (no reply within a try)."
        left = deadline - clock()
        if left <= 0:
            raise StoreUnavailable(
                f"{problem} Gave up after {tries} tries in {patience:.0f} s"
                " (DATABASE_WAIT_SECONDS)."
            )
        wait = min(pause, left)
        log.warning(
            "%s Trying again in %.0f s (try %d, waiting up to %.0f s more).",
            problem,
            wait,
            tries,
            left,
            extra=EVERY,
        )
        await sleep(wait)
        pause = min(pause * 2, LONGEST_PAUSE)
