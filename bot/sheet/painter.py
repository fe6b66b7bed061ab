"""The sheet picture drawn in processes of its own, so that it has a core of its own.

Under the GIL a worker thread gives the picture no second core: each of a drawing's few hundred
Pillow and zlib calls gives the GIL back and must win it again from a busy event loop
(docs/decisions.md). `Painter` keeps `processes` long-lived children (`python -m
bot.sheet.painter`) instead. A game always goes to the same child, where its kept picture and its
bands' layout are (`bot.sheet.canvas`, `bot.sheet.layout.kept_band_runs`).

A request is a `Job`: what the picture reads of the sheet (`bot.sheet.drawn.Drawn`) without its
bands' running totals, and instead only what changed since the last picture of the game that child
drew (`Changes`). So a request stays small at deal #1000, and the child extends the tuples it
already holds, which is the identity `kept_band_runs` relies on to lay out only the new totals.
`Job.base` names the history its changes apply to; a child that no longer has it (restarted, or
it forgot the game) answers `STALE`, and the job goes again with the whole history.

On a pipe each message is a 4-byte big-endian length, then a pickle; a child answers in order.
A child that dies fails the jobs it had (`PainterGone`; the caller draws those in a thread) and the
next job starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import logging
import os
import pickle
import select
import struct
import sys
from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import BinaryIO, Final

import bot.sheet
from bot.sheet import render_sheet_png
from bot.sheet.canvas import Canvas
from bot.sheet.drawn import Drawn, History, extends
from bot.sheet.model import Corrections
from scoring.sheet import Band

log = logging.getLogger(__name__)

ROOT: Final = Path(__file__).resolve().parents[2]  # where `bot` is importable from
HEAD: Final = struct.Struct(">I")
STALE: Final = "stale"
GAMES_SENT: Final = 1024  # games whose last history a parent remembers, per child
GAMES_KEPT: Final = 4 * GAMES_SENT  # a child remembers more, so that the parent forgets first
# Pictures a child keeps at most: a game drawn over a picture of its own redraws what its deal
# changed, one drawn over another game's redraws most of the picture. What they may hold is the
# memory budget (`PICTURE_MEMORY_MB`, shared by the children; a picture holds 250–450 KB, its pixels
# only as compressed strips: `bot.sheet.canvas`), so that a thousand chats cost what the budget
# says, not six times the bot; the bot's own `Canvas` keeps 24.
KEPT: Final = 1024
MEMORY: Final = 128 << 20  # bytes, the default budget of all the children together
TICK: Final = 30.0  # seconds a child waits for a job before it drops the pictures gone idle

Totals = tuple[tuple[int, Fraction], ...]
Changes = dict[Band, tuple[int, Totals]]
"""band → (how many of its totals the child keeps, the totals after them)."""


class PainterGone(Exception):
    """The child died, or could not be started, before it answered."""


@dataclass(frozen=True, slots=True)
class Job:
    game: object  # the game's id: whose kept picture this is drawn over
    base: int | None  # the token of the history `changes` apply to; None: to nothing
    token: int  # this job's history, named for the next job
    changes: Changes
    drawn: Drawn  # with an empty history: `changes` carry it
    lang: str
    corrections: Corrections | None


def changes(old: History, new: History) -> Changes:
    """What turns `old` into `new`: a band the replay extended (`bot.sheet.drawn.extends`) sends
    only its new totals, any other change the whole band, and an unchanged band nothing."""
    out: Changes = {}
    for band, values in new.items():
        before = old.get(band, ())
        if values is before:
            continue
        out[band] = (
            (len(before), values[len(before) :]) if extends(before, values) else (0, values)
        )
    for band in old.keys() - new.keys():
        out[band] = (0, ())
    return out


# The child's side.

_HAVE: OrderedDict[object, tuple[int, dict[Band, Totals]]] = OrderedDict()


class Stale(Exception):
    """A job's base is not the history this child holds for its game."""


def apply(job: Job) -> dict[Band, Totals]:
    """The game's history once `job.changes` are applied to what this child holds; kept for
    the next job."""
    if job.base is None:
        history: dict[Band, Totals] = {}
    else:
        kept = _HAVE.get(job.game)
        if kept is None or kept[0] != job.base:
            _HAVE.pop(job.game, None)
            raise Stale
        history = dict(kept[1])
    for band, (start, added) in job.changes.items():
        old = history.get(band, ())
        if start > len(old):
            _HAVE.pop(job.game, None)
            raise Stale
        values = (old if start == len(old) else old[:start]) + added
        if values:
            history[band] = values
        else:
            history.pop(band, None)
    _HAVE[job.game] = (job.token, history)
    _HAVE.move_to_end(job.game)
    while len(_HAVE) > GAMES_KEPT:
        _HAVE.popitem(last=False)
    return history


def draw(job: Job) -> tuple[bool, bytes | str]:
    """The answer to one job: (True, PNG) or (False, STALE or what went wrong)."""
    try:
        drawn = replace(job.drawn, history=apply(job))
        png = render_sheet_png(drawn, job.lang, corrections=job.corrections, game=job.game)
    except Stale:
        return False, STALE
    except Exception as error:  # the parent draws it in a thread instead, and logs it there
        log.exception("the painter could not draw a sheet")
        return False, repr(error)
    return True, png


def _read(stream: BinaryIO) -> bytes | None:
    head = _exactly(stream, HEAD.size)
    if head is None:
        return None
    (size,) = HEAD.unpack(head)
    return _exactly(stream, size)


def _exactly(stream: BinaryIO, size: int) -> bytes | None:
    """`size` bytes, or None at the end (an unbuffered read may give fewer at a time)."""
    parts, left = [], size
    while left:
        part = stream.read(left)
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def serve(requests: BinaryIO, answers: BinaryIO, tick: float | None = None) -> None:
    """The child's loop: jobs in, answers out, in order, until the parent closes the pipe. With
    `tick`, a child left `tick` seconds without a job drops the pictures gone idle (so that a quiet
    game's picture goes on time, not when the next one is drawn); `requests` is then read unbuffered,
    so that waiting on its descriptor tells truly whether a job is there."""
    while True:
        while tick is not None and not _ready(requests, tick):
            bot.sheet.canvas.expire()
        body = _read(requests)
        if body is None:
            return
        answer = pickle.dumps(draw(pickle.loads(body)), pickle.HIGHEST_PROTOCOL)
        answers.write(HEAD.pack(len(answer)) + answer)
        answers.flush()


def _ready(stream: BinaryIO, timeout: float) -> bool:
    """Whether `stream` has something to read (or has ended) within `timeout` seconds."""
    readable, _, _ = select.select([stream], [], [], timeout)
    return bool(readable)


PIPE: Final = 1 << 20  # bytes: a pipe that holds a few pictures (Linux gives 64 KB)


def _widen(fd: int) -> None:
    """A picture (some 150 KB) through a 64 KB pipe was three reads and three wake-ups of the
    bot's event loop, and this process waited on each; a 1 MB pipe takes it in one (Linux only;
    elsewhere the pipe stays as it is)."""
    with contextlib.suppress(ImportError, AttributeError, OSError):
        import fcntl  # here: there is no fcntl on Windows, where the painter works all the same

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE)


def main() -> None:
    # The answers keep the real stdout; anything printed goes to stderr, not into the pipe.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    _widen(answers.fileno())
    logging.basicConfig(level=logging.WARNING, format="painter %(levelname)s %(message)s")
    if len(sys.argv) > 2:  # how many pictures to keep at most, in how many bytes (`Painter`)
        bot.sheet.canvas = Canvas(kept=int(sys.argv[1]), budget=int(sys.argv[2]))
    requests = sys.stdin.buffer.raw if isinstance(sys.stdin.buffer, io.BufferedReader) else None
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        if requests is None:
            serve(sys.stdin.buffer, answers)
        else:
            serve(requests, answers, TICK)


# The parent's side.


Answer = tuple[bool, bytes | str]


@dataclass(slots=True)
class _Run:
    """One started child process and the answers it owes, in the order of its jobs."""

    process: asyncio.subprocess.Process
    waiting: deque[asyncio.Future[Answer]] = field(default_factory=deque)
    reading: asyncio.Task[None] | None = None


@dataclass(slots=True)
class _Child:
    """A place for a child: the process now running in it, and the history each of its games
    was last sent with (what the running process holds)."""

    run: _Run | None = None
    sent: OrderedDict[object, tuple[int, History]] = field(default_factory=OrderedDict)
    starting: asyncio.Lock = field(default_factory=asyncio.Lock)


class Painter:
    """Draws sheet pictures in `processes` children; `png` is what `render_sheet_png` returns
    for the same sheet, pixel for pixel. `close()` ends the children."""

    def __init__(self, processes: int = 1, kept: int = KEPT, memory: int = MEMORY) -> None:
        if processes < 1 or kept < 1:
            raise ValueError("a painter needs a process at least, keeping a picture at least")
        self._children = [_Child() for _ in range(processes)]
        self.kept = kept
        self.budget = max(1, memory // processes)  # bytes of pictures each child may keep
        self._tokens = itertools.count(1)
        self.started = 0  # children started, restarts included

    async def png(
        self,
        drawn: Drawn,
        lang: str,
        corrections: Corrections | None = None,
        game: object = None,
    ) -> bytes:
        """The picture of `drawn`, drawn over `game`'s kept picture; `PainterGone` when no child
        could draw it."""
        child = self._children[hash(game) % len(self._children)]
        for _ in range(2):  # a stale base goes once more, whole
            ok, answer = await self._ask(child, drawn, lang, corrections, game)
            if ok:
                assert isinstance(answer, bytes)
                return answer
            child.sent.pop(game, None)
            if answer != STALE:
                raise PainterGone(str(answer))
        raise PainterGone("the painter's history of the game stayed stale")

    async def _ask(
        self,
        child: _Child,
        drawn: Drawn,
        lang: str,
        corrections: Corrections | None,
        game: object,
    ) -> Answer:
        run = await self._running(child)
        stdin = run.process.stdin
        assert stdin is not None
        kept = child.sent.get(game)
        base, old = kept if kept is not None else (None, {})
        token = next(self._tokens)
        history = changes(old, drawn.history)
        job = Job(game, base, token, history, replace(drawn, history={}), lang, corrections)
        body = pickle.dumps(job, pickle.HIGHEST_PROTOCOL)
        # No await from here to the write: jobs reach the pipe in the order of their bases.
        child.sent[game] = (token, drawn.history)
        child.sent.move_to_end(game)
        while len(child.sent) > GAMES_SENT:
            child.sent.popitem(last=False)
        answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        run.waiting.append(answer)
        try:
            stdin.write(HEAD.pack(len(body)) + body)
            await stdin.drain()
        except (ConnectionError, RuntimeError) as error:
            self._lost(child, run, error)
        return await answer

    async def _running(self, child: _Child) -> _Run:
        async with child.starting:
            run = child.run
            if run is not None and run.process.returncode is None:
                return run
            if run is not None:  # it died before its reader noticed
                self._lost(child, run, ConnectionError("the painter died"))
            try:
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "bot.sheet.painter",
                    str(self.kept),
                    str(self.budget),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    limit=PIPE,  # the reader's buffer, so that it takes a picture without a pause
                    cwd=ROOT,
                    env=_environment(),
                )
            except OSError as error:
                raise PainterGone(f"the painter could not start: {error}") from error
            child.run = run = _Run(process)
            run.reading = asyncio.create_task(self._answers(child, run))
            self.started += 1
            return run

    async def _answers(self, child: _Child, run: _Run) -> None:
        stdout = run.process.stdout
        assert stdout is not None
        try:
            while True:
                (size,) = HEAD.unpack(await stdout.readexactly(HEAD.size))
                answer = pickle.loads(await stdout.readexactly(size))
                waiter = run.waiting.popleft()
                if not waiter.done():
                    waiter.set_result(answer)
        except Exception as error:  # EOF when it died; anything else: it cannot be trusted
            self._lost(child, run, error)

    def _lost(self, child: _Child, run: _Run, error: BaseException) -> None:
        """`run` is over: what it owed fails, and what it held is forgotten."""
        if run.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                run.process.kill()
        if child.run is run:
            child.run = None
            child.sent.clear()
        while run.waiting:
            waiter = run.waiting.popleft()
            if not waiter.done():
                waiter.set_exception(PainterGone(f"the painter stopped: {error!r}"))

    async def close(self) -> None:
        for child in self._children:
            run = child.run
            if run is None:
                continue
            if run.process.stdin is not None:
                run.process.stdin.close()
            try:
                await asyncio.wait_for(run.process.wait(), 5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    run.process.kill()
                await run.process.wait()
            if run.reading is not None:
                await run.reading
            self._lost(child, run, ConnectionError("the painter was closed"))


def _environment() -> Mapping[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    return env


if __name__ == "__main__":
    main()
