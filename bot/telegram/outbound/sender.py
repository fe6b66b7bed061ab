"""The sender: delivers the outbox in order per chat, each row claimed with a lease."""

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import takewhile
from typing import Final

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)

from bot.core import Core, attempts, votes
from bot.core.health import SENDER, beat
from bot.domain import Owed, OwedKind, OwedRow
from bot.telegram.outbound import posting
from bot.telegram.outbound.outbox import CAPTION_LIMIT
from bot.telegram.outbound.pacing import Pacing
from bot.texts.views import MESSAGE_LIMIT, plain_text

log = logging.getLogger(__name__)

LEASE: Final = 30.0  # seconds a claim holds; an attempt's request time-out stays below it
assert posting.REQUEST_TIMEOUT < LEASE
TICK: Final = 0.5  # seconds between two looks at the outbox when nobody wakes the sender
# Seconds between two looks for this host's dead senders: an instance killed beside a live one
# (several instances on one machine) must not hold its chats' replies for a whole lease.
DEAD_CHECK: Final = 2.0
LONGEST_PAUSE: Final = 4.0  # the back-off's cap, seconds
STORE_PAUSE: Final = 0.5  # seconds before a row whose attempt met a database fault is tried again
GIVE_UP_AFTER: Final = 12  # attempts that failed with an error of ours (not Telegram's)
KEEP_SENT: Final = 86_400.0  # sent rows are forgotten after a day
TOLD_EVERY: Final = 60.0  # seconds between two tracebacks of one kind of failure
# Sheet pictures waiting in one chat go out as one: the newest.
SHEETS: Final = frozenset({OwedKind.SHEET, OwedKind.REDRAW})
BEHIND: Final = 50  # rows looked at behind the claimed one; a longer run goes on in the next round
JOIN: Final = "\n\n"


def pause(attempts: int) -> float:
    """The back-off after `attempts` failures: 0.5, 1, 2, 4, 4, … seconds."""
    return float(min(0.5 * 2**attempts, LONGEST_PAUSE))


def _dead_here(claimant: str, host: str) -> bool:
    parts = claimant.split("/")
    if len(parts) != 3 or parts[0] != host or not parts[1].isdigit():
        return False
    try:
        os.kill(int(parts[1]), 0)  # signal 0: whether the process is there
    except ProcessLookupError:
        return True
    except PermissionError:  # there, another user's
        pass
    return False


@dataclass(frozen=True, slots=True)
class Sent:
    """The row went out (or was given up: `message_id` None): mark it sent."""

    message_id: int | None
    live: int | None = None  # a new sheet photo: the game's live sheet message from now on


@dataclass(frozen=True, slots=True)
class Again:
    """Give the row back, due at `at`; an `error` counts as a failed attempt (None: pace, DB)."""

    at: float
    error: str | None = None


Outcome = Sent | Again


@dataclass(slots=True)
class Unwritten:
    """An outcome the database did not take: written again on the next round."""

    row: OwedRow
    outcome: Outcome
    failures: int = 1


@dataclass(frozen=True, slots=True)
class Merge:
    """A run of waiting sheets as it goes out: `first` instead, `done` marked sent, `last` left."""

    first: Owed
    done: tuple[int, ...]
    last: tuple[int, Owed] | None = None


def merge(first: OwedRow, behind: Sequence[OwedRow]) -> Merge | None:
    """How a claimed sheet and its game's sheets right behind it go out (None: as it is)."""
    game = first.owed.game_id
    run = [first, *takewhile(lambda r: r.owed.kind in SHEETS and r.owed.game_id == game, behind)]
    if len(run) < 2:
        return None
    joined = _captions(run)
    if len(plain_text(joined)) <= CAPTION_LIMIT:
        return Merge(replace(_picture(run), text=joined), tuple(row.id for row in run[1:]))
    skipped = _captions(run[:-1])
    while len(run) > 2 and len(skipped) > MESSAGE_LIMIT:  # one message, or a retry repeats
        run = run[:-1]
        skipped = _captions(run[:-1])
    if not skipped:  # only the newest has a caption, too long by itself: the sender splits it
        return Merge(_picture(run), tuple(row.id for row in run[1:]))
    owed = first.owed
    text = Owed(owed.chat_id, OwedKind.TEXT, skipped, owed.lang, thread_id=owed.thread_id)
    return Merge(text, tuple(row.id for row in run[1:-1]), (run[-1].id, _picture(run)))


def _captions(rows: Sequence[OwedRow]) -> str:
    return JOIN.join(row.owed.text for row in rows if row.owed.text)


def _picture(run: Sequence[OwedRow]) -> Owed:
    """The newest row's sheet: a new photo if any row of the run asked for one."""
    sheet = any(row.owed.kind is OwedKind.SHEET for row in run)
    return replace(run[-1].owed, kind=OwedKind.SHEET if sheet else OwedKind.REDRAW)


class Sender:
    """Delivers the outbox: `drain()` once, `run()` for ever, woken by `wake()` after a commit."""

    def __init__(
        self,
        bot: Bot,
        core: Core,
        *,
        clock: Callable[[], float] = time.time,
        name: str | None = None,
        pacing: Pacing | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.core = core
        self.store = core.store
        self.clock = clock
        # `host/pid/random`: this host's dead senders' claims are released at once (`_dead_here`)
        self.name = name or f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(4)}"
        self.pacing = pacing or Pacing.unlimited()
        self.poster = posting.Poster(bot, core, self.pacing, lambda: self.clock(), sleep)
        self._woken = asyncio.Event()
        self._unwritten: dict[int, Unwritten] = {}
        self._lost_claims = False  # a claim statement failed: it may have claimed rows unseen
        self.due = float("inf")  # when the first row given back for its chat's pace is due

    async def wake(self) -> None:
        self._woken.set()

    async def release_dead(self) -> int:
        """Give back the claims of this host's senders that died (a crash, a SIGKILL)."""
        host = self.name.split("/")[0]
        released = 0
        async with self.store.transaction() as repo:
            for claimant in await repo.owed_claimants():
                if _dead_here(claimant, host):
                    released += await repo.release_claims(claimant)
        if released:
            log.info("outbox: %d row(s) a dead sender had claimed are owed again", released)
        return released

    async def run(self) -> None:
        """The background task: deliver, then wait to be woken (or a tick, for back-offs)."""
        pruned_at = checked_at = 0.0
        told: dict[type, float] = {}  # a failure's traceback is logged once a minute per kind
        while True:
            try:
                if self.clock() - checked_at > DEAD_CHECK:
                    checked_at = self.clock()
                    await self.release_dead()
                await self.drain()
                if self.clock() - pruned_at > 3600:
                    pruned_at = self.clock()
                    async with self.store.transaction() as repo:
                        await repo.prune_sent(pruned_at - KEEP_SENT)
            except Exception as error:
                kind, now = type(error), time.monotonic()
                if now - told.get(kind, -TOLD_EVERY) >= TOLD_EVERY:
                    told[kind] = now
                    log.exception("outbox: delivering failed; trying again")
                else:
                    log.warning(
                        "outbox: delivering failed (%s: %s); trying again", kind.__name__, error
                    )
            wait = min(TICK, max(0.0, self.due - self.clock()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), wait)
            self._woken.clear()

    async def drain(self) -> int:
        """Deliver each chat's first due row until nothing is due; how many rows were settled."""
        delivered = 0
        while True:
            beat(SENDER)
            await self._write_again()
            if self._lost_claims:  # give back what the statement whose answer was lost claimed
                async with self.store.statement() as repo:
                    released = await repo.release_claims(self.name, keep=list(self._unwritten))
                self._lost_claims = False
                if released:
                    log.info("outbox: %d claim(s) whose answer was lost are owed again", released)
            now = self.clock()
            if self.due <= now:
                self.due = float("inf")
            try:
                async with self.store.statement() as repo:  # one statement: its own transaction
                    rows = await repo.claim_owed(self.name, now, now + LEASE)
            except Exception:
                self._lost_claims = True  # its answer may be lost after it claimed rows
                raise
            if not rows:
                return delivered
            delivered += sum(await asyncio.gather(*(self.deliver(row) for row in rows)))

    async def deliver(self, row: OwedRow) -> int:
        """One attempt at one claimed row; how many rows it settled (with the sheets folded in)."""
        chat_id, now = row.owed.chat_id, self.clock()
        wait = self.pacing.ready_in(chat_id, now, posting.calls_needed(row.owed))
        merged = 0
        outcome: Outcome
        if wait > 0:  # the chat's bucket: the row waits in the outbox, other chats go on
            self.due = min(self.due, now + wait)
            outcome = Again(now + wait)
        else:
            try:
                row, merged = await self._coalesced(row)
                outcome = Sent(*await self.poster.send(row))
            except posting.ClaimLost:
                log.warning("outbox row %s: the claim ran out before it was sent", row.id)
                return 0
            except TelegramRetryAfter as error:
                self.pacing.pause(chat_id, self.clock(), float(error.retry_after))
                outcome = self._again(row, float(error.retry_after), f"429: {error.message}")
            except (TelegramServerError, TelegramNetworkError) as error:  # or a dropped connection
                kind = "5xx" if isinstance(error, TelegramServerError) else "network"
                outcome = self._again(row, pause(row.attempts), f"{kind}: {error.message}")
            except TelegramAPIError as error:  # refused for good: a retry gets the same answer
                log.warning("outbox row %s to chat %s refused: %s", row.id, chat_id, error)
                outcome = Sent(None)
            except posting.StoreFault as error:
                log.info("outbox row %s: the database failed (%s); again soon", row.id, error)
                outcome = Again(self.clock() + STORE_PAUSE)
            except Exception as error:  # an answer that cannot be read, a bug of ours
                if row.attempts + 1 >= GIVE_UP_AFTER:
                    told = "outbox row %s: giving up after %d attempts"
                    log.exception(told, row.id, GIVE_UP_AFTER)
                    outcome = Sent(None)
                else:
                    error_text = f"{type(error).__name__}: {error}"
                    outcome = self._again(row, pause(row.attempts), error_text)
        try:
            await self._record(row, outcome, with_live=True)
        except Exception as error:  # the claim kept: written again next round
            told = "outbox row %s: its outcome could not be written (%s: %s); again next round"
            log.warning(told, row.id, type(error).__name__, error)
            self._unwritten[row.id] = Unwritten(row, outcome)
            return 0
        await self._after(row, outcome)
        return 1 + merged if isinstance(outcome, Sent) else merged

    def _again(self, row: OwedRow, after: float, error: str) -> Again:
        log.info("outbox row %s: %s; again in %.1f s", row.id, error, after)
        return Again(self.clock() + after, error)

    async def _coalesced(self, row: OwedRow) -> tuple[OwedRow, int]:
        """The claimed row as it goes out, and how many sheets waiting behind it it replaces."""
        owed = row.owed
        if owed.kind not in SHEETS:
            return row, 0
        with posting.store_faults():
            async with self.store.reading() as repo:
                behind = await repo.owed_after(owed.chat_id, row.id, BEHIND)
            plan = merge(row, behind)
            if plan is None:
                return row, 0
            async with self.store.transaction() as repo:
                if not await repo.owed_replace(row.id, plan.first, self.name):
                    raise posting.ClaimLost
                done = await repo.owed_done(plan.done, self.clock())
                if plan.last is not None:
                    await repo.owed_replace(*plan.last)
        told = "outbox row %s: %d sheet(s) waiting in chat %s go out with it"
        log.info(told, row.id, done, owed.chat_id)
        return replace(row, owed=plan.first), done

    async def _write_again(self) -> None:
        """The outcomes refused before; the second time without the live sheet (a nicety)."""
        for row_id, unwritten in list(self._unwritten.items()):
            try:
                await self._record(unwritten.row, unwritten.outcome, unwritten.failures < 2)
            except Exception:
                unwritten.failures += 1
                continue
            del self._unwritten[row_id]
            log.info("outbox row %s: its outcome is written", row_id)
            await self._after(unwritten.row, unwritten.outcome)

    async def _record(self, row: OwedRow, outcome: Outcome, with_live: bool) -> None:
        if isinstance(outcome, Again):
            async with self.store.statement() as repo:
                if outcome.error is None:
                    await repo.owed_release(row.id, self.name, outcome.at)
                else:
                    await repo.owed_retry(row.id, self.name, outcome.at, outcome.error)
            return
        live = outcome.live if with_live else None
        # A new sheet photo becomes the game's live sheet in the mark's own transaction; a mark
        # alone is one statement.
        async with self.store.statement() if live is None else self.store.transaction() as repo:
            if not await repo.owed_sent(row.id, self.name, outcome.message_id, self.clock()):
                log.warning("outbox row %s: the claim ran out before it was marked sent", row.id)
                return
            if live is not None and row.owed.game_id is not None:
                await repo.set_sheet_message(row.owed.game_id, live)

    async def _after(self, row: OwedRow, outcome: Outcome) -> None:
        """A vote posted anew is remembered (failing that, its next redraw posts it again)."""
        owed = row.owed
        if owed.kind is not OwedKind.VOTE or not isinstance(outcome, Sent):
            return
        message_id = outcome.message_id
        if message_id is None or message_id == owed.target:
            return
        assert owed.game_id is not None and owed.seq is not None
        posted = partial(votes.vote_posted, chat_id=owed.chat_id, game_id=owed.game_id)
        try:
            await attempts.run(
                self.core, partial(posted, vote_seq=owed.seq, message_id=message_id)
            )
        except Exception as error:
            log.warning("vote %s: its new message could not be remembered (%s)", owed.seq, error)
