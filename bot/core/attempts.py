"""What a database failure means for the work in hand, and the one retry policy."""

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from bot.core.base import Caller, Core
from bot.core.errors import Redeliver, Transient
from bot.core.uow import UnitOfWork

log = logging.getLogger(__name__)

T = TypeVar("T")
ATTEMPTS: Final = 5
FIRST_PAUSE: Final = 0.05  # seconds; doubled after each failed attempt, ±50 %
LONGEST_PAUSE: Final = 1.0


async def retrying(once: Callable[[], Awaitable[T]], what: str) -> T:
    """`once()`, again after each `Transient` failure; `Redeliver` when every attempt failed."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return await once()
        except Transient as error:
            tried = f"{what}: attempt {attempt} of {ATTEMPTS} failed ({error})"
            if attempt == ATTEMPTS:
                log.warning("%s; left to come again", tried)
                raise Redeliver(str(error)) from error
            wait = min(FIRST_PAUSE * 2 ** (attempt - 1), LONGEST_PAUSE) * random.uniform(0.5, 1.5)
            log.warning("%s; again in %.2f s", tried, wait)
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


async def run(
    core: Core, work: Callable[[UnitOfWork], Awaitable[T]], caller: Caller | None = None
) -> T:
    """`work(uow)` in a unit of work committed when it returns, retried on transient failures."""

    async def once() -> T:
        async with UnitOfWork(core, caller) as uow:
            result = await work(uow)
            await uow.commit()
            return result

    name = f"update {caller.update_id}" if caller and caller.update_id else "a unit of work"
    return await retrying(once, name)
