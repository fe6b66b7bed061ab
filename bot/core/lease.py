"""A lease in the database: which one of several bot instances runs a background duty."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Final

from bot.core import votes
from bot.core.base import Clock, Core, utc_now
from bot.domain import Store

log = logging.getLogger(__name__)

VOTE_CLOCK: Final = "vote-clock"
LEASE_SECONDS: Final = 10.0


def instance_name() -> str:
    """This process among the instances: host, pid and a random tail."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class Lease:
    """The vote clock's lease as seen by one instance; `hold()` takes or renews it."""

    store: Store
    holder: str = field(default_factory=instance_name)
    seconds: float = LEASE_SECONDS
    clock: Clock = utc_now
    held: bool = False

    async def hold(self) -> bool:
        """Take the lease if it is free or expired, renew it if it is ours; whether we hold it."""
        now = self.clock()
        until = now + timedelta(seconds=self.seconds)
        async with self.store.transaction() as repo:
            held = await repo.take_lease(VOTE_CLOCK, self.holder, now, until)
        if held != self.held:
            log.info("lease %s %s by %s", VOTE_CLOCK, "taken" if held else "lost", self.holder)
        self.held = held
        return held

    async def release(self) -> None:
        """Give the lease up (a clean shutdown), so another instance need not wait for expiry."""
        if not self.held:
            return
        async with self.store.transaction() as repo:
            await repo.release_lease(VOTE_CLOCK, self.holder)
        self.held = False


RESCAN_TICKS: Final = 3  # the holder reads the log for other instances' open votes this often


async def holds_clock(lease: Lease, core: Core, ticks: int) -> bool:
    """One tick of the vote clock among instances: whether this one holds it now."""
    was = lease.held
    if not await lease.hold():
        return False
    if not core.store.serial and (not was or ticks % RESCAN_TICKS == 0):
        await votes.watch_open_votes(core)
    return True
