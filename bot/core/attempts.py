"""Running a unit of work to its commit, again after a transient database failure.

`run(core, work, caller)` gives `work` a fresh `UnitOfWork`, commits it when `work` returns, and on
a failure rolls it back and asks the store what the failure was (`Store.fault`). A transient one (a
dropped connection, a serialization failure, a deadlock, "database is locked") is tried again with
a fresh unit after a short, growing pause — safe, because nothing reached Telegram before the
commit and the update's mark refuses a unit that did commit although its answer was lost — and when
every attempt failed it becomes `Redeliver` (the update is to come again). A database that takes no
writes becomes `Unsaved` at once. Anything else is raised as it is: a refusal, or a bug.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from bot.core.base import Caller, Core
from bot.core.errors import Redeliver, Unsaved
from bot.core.uow import UnitOfWork
from bot.domain import Fault

log = logging.getLogger(__name__)

T = TypeVar("T")
ATTEMPTS: Final = 5
FIRST_PAUSE: Final = 0.05  # seconds; doubled after each failed attempt, ±50 %
LONGEST_PAUSE: Final = 1.0

Work = Callable[[UnitOfWork], Awaitable[T]]


def what(caller: Caller | None) -> str:
    if caller is not None and caller.update_id is not None:
        return f"update {caller.update_id}"
    return "a unit of work"


async def run(
    core: Core,
    work: Work[T],
    caller: Caller | None = None,
    *,
    attempts: int = ATTEMPTS,
    pause: float = FIRST_PAUSE,
) -> T:
    """`work(uow)` committed, tried up to `attempts` times on transient database failures."""
    for attempt in range(1, attempts + 1):
        uow = UnitOfWork(core, caller)
        try:
            result = await work(uow)
            await uow.commit()
            return result
        except Exception as error:
            await uow.rollback()
            fault = core.store.fault(error)
            if fault is Fault.UNWRITABLE:
                log.warning("%s: the database takes no writes (%s)", what(caller), error)
                raise Unsaved(uow.discarded.owed, uow.discarded.records) from error
            if fault is not Fault.TRANSIENT:
                raise
            if attempt == attempts:
                log.warning(
                    "%s: attempt %d of %d failed (%s: %s); left to come again",
                    what(caller),
                    attempt,
                    attempts,
                    type(error).__name__,
                    error,
                )
                raise Redeliver(str(error)) from error
            wait = min(pause * 2 ** (attempt - 1), LONGEST_PAUSE) * random.uniform(0.5, 1.5)
            log.warning(
                "%s: attempt %d of %d failed (%s: %s); again in %.2f s",
                what(caller),
                attempt,
                attempts,
                type(error).__name__,
                error,
                wait,
            )
            await asyncio.sleep(wait)
        except BaseException:
            await uow.rollback()
            raise
    raise AssertionError("unreachable")  # pragma: no cover
