"""The bot's long-running loops: their heartbeats, for `GET /healthz`, and the lease in the
database that tells which one of several bot instances runs the vote clock."""

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from math import inf
from typing import Final, NamedTuple

from bot.core.base import Clock, utc_now
from bot.domain import Store

log = logging.getLogger(__name__)

POLLER: Final = "poller"
WEBHOOK: Final = "webhook"
SENDER: Final = "sender"
VOTE_CLOCK: Final = "vote_clock"

# Seconds a loop may stay without a beat. The poller's turn is one long poll (POLLING_TIMEOUT, at
# most 50 s, plus its 10 s of request margin) and the batch it fetched; the sender looks at the
# outbox every 0.5 s but waits for a round of sends (a request times out after 20 s); the vote
# clock ticks every second. Telegram sends a webhook nothing while the chats are quiet, so its age
# is reported and never stale: the listener answering `/healthz` is its own sign of life.
STALE_AFTER: Final = {POLLER: 90.0, WEBHOOK: None, SENDER: 60.0, VOTE_CLOCK: 60.0}


class Age(NamedTuple):
    """A watched loop's last beat: seconds ago (since it was watched, if it has not beaten yet)."""

    name: str
    seconds: float
    stale: bool


class Heartbeats:
    """The last beat of each watched loop (or when it was watched), on a monotonic clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last: dict[str, float] = {}  # name → its last beat, or since it was watched

    def beat(self, name: str) -> None:
        if name in self._last:  # a beat before the watch counts for nothing
            self._last[name] = self._clock()

    def watch(self, name: str) -> None:
        """Report `name` from now on; stale once `STALE_AFTER[name]` seconds pass without a beat."""
        self._last[name] = self._clock()

    def forget(self, name: str) -> None:
        """No longer report `name` (its loop was stopped on purpose)."""
        self._last.pop(name, None)

    def ages(self) -> list[Age]:
        """Every watched loop, in the order they were watched."""
        now = self._clock()
        ages = [(name, now - at) for name, at in self._last.items()]
        return [Age(name, age, age > (STALE_AFTER.get(name) or inf)) for name, age in ages]


HEARTS: Final = Heartbeats()
beat: Final = HEARTS.beat


CLOCK_LEASE: Final = "vote-clock"  # the vote clock's lease in the database


def instance_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class Lease:
    """The vote clock's lease as seen by one instance; `hold()` takes or renews it."""

    store: Store
    seconds: float  # how long a hold lasts (LEASE_SECONDS)
    holder: str = field(default_factory=instance_name)
    clock: Clock = utc_now
    held: bool = False

    async def hold(self) -> bool:
        """Take the lease if it is free or expired, renew it if it is ours; whether we hold it."""
        now = self.clock()
        until = now + timedelta(seconds=self.seconds)
        async with self.store.transaction() as repo:
            held = await repo.take_lease(CLOCK_LEASE, self.holder, now, until)
        if held != self.held:
            log.info("lease %s %s by %s", CLOCK_LEASE, "taken" if held else "lost", self.holder)
        self.held = held
        return held

    async def release(self) -> None:
        """Give the lease up (a clean shutdown), so another instance need not wait for expiry."""
        if self.held:
            async with self.store.transaction() as repo:
                await repo.release_lease(CLOCK_LEASE, self.holder)
            self.held = False
