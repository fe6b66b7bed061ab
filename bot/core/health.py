"""The heartbeats of the bot's long-running loops, for `GET /healthz`."""

from __future__ import annotations

import time
from collections.abc import Callable
from math import inf
from typing import Final, NamedTuple

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
    """The last beat of each loop, on a monotonic clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last: dict[str, float] = {}
        self._watched: dict[str, float] = {}  # name → since

    def beat(self, name: str) -> None:
        self._last[name] = self._clock()

    def watch(self, name: str) -> None:
        """Report `name` from now on; stale once `STALE_AFTER[name]` seconds pass without a beat."""
        self._watched[name] = self._clock()

    def forget(self, name: str) -> None:
        """No longer report `name` (its loop was stopped on purpose)."""
        self._watched.pop(name, None)
        self._last.pop(name, None)

    def ages(self) -> list[Age]:
        """Every watched loop, in the order they were watched."""
        now = self._clock()
        ages = [
            (name, now - max(self._last.get(name, at), at)) for name, at in self._watched.items()
        ]
        return [Age(name, age, age > (STALE_AFTER.get(name) or inf)) for name, age in ages]


HEARTS: Final = Heartbeats()
# One turn of the loop `name` (`POLLER`, `WEBHOOK`, `SENDER`, `VOTE_CLOCK`).
beat: Final = HEARTS.beat
