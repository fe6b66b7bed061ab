"""A game's snapshot: its folded state and its replay as they stood at one event of its log,
serialized, so that a game not kept in memory (after a restart, or pushed out of the caches)
resumes from it and the log's tail, never from its first event.

A snapshot is a cache, never the truth: the log is. It is written after a commit, in a
transaction of its own that touches nothing but the `snapshots` table (a failure is logged and
changes nothing), and read only when its `ENGINE` version is this program's; anything else — an
older engine, a row that does not decode — is ignored, and the game is folded from its log and
snapshotted again. The version names the engine's own constant (bump it when the fold or the
replay changes what they compute) and the shape of every class a snapshot holds, so that a field
added or renamed makes the old rows stale without anyone remembering to bump it.

The bytes are a pickle: what is pickled is this program's own dataclasses (the state, the replay,
the records), read back only from this program's own database, which the log already trusts; a
hand-made codec for a cache would be a second description of every class to keep in step.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import pickle
import zlib
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from fractions import Fraction
from typing import Any, Final

import scoring.replay
from bot.core.state import GameState, RecordItem, Vote
from bot.domain import EventRow
from scoring.deal import Record
from scoring.entries import Entry
from scoring.replay import Replay
from scoring.rules import RULES_VERSION, Rules
from scoring.sheet import Game, ScoredRecord

log = logging.getLogger(__name__)

ENGINE: Final = 2  # bump when the fold or the replay computes something new from the same log


def _shape(cls: type) -> str:
    slots: tuple[str, ...] = vars(cls).get("__slots__", ())
    names = [f.name for f in fields(cls)] if is_dataclass(cls) else list(slots)
    return f"{cls.__qualname__}({','.join(names)})"


_SHAPES: Final = (
    GameState,
    RecordItem,
    Vote,
    EventRow,
    Replay,
    scoring.replay._State,  # the replay's running state: a snapshot holds it
    ScoredRecord,
    Entry,
    Game,
    Rules,
)
VERSION: Final = (
    f"{ENGINE}.{RULES_VERSION}."
    + hashlib.sha256(";".join(map(_shape, _SHAPES)).encode()).hexdigest()[:16]
)


@dataclass(frozen=True, slots=True)
class Saved:
    """A game as its log stood at `state.last_seq`: the fold, and the replay of the records in
    force then (None before the game started) with those records."""

    state: GameState
    replay: Replay | None
    records: list[Record]

    @property
    def seq(self) -> int:
        return self.state.last_seq


_FIELDS: dict[type, tuple[tuple[str, ...], bool] | None] = {}


def _fields_of(cls: type) -> tuple[tuple[str, ...], bool] | None:
    """A slotted dataclass's fields, and whether its `__init__` takes them all and does nothing
    else (None for any other class)."""
    if cls not in _FIELDS:
        found = None
        if is_dataclass(cls) and "__slots__" in vars(cls):
            every = fields(cls)
            plain = all(f.init for f in every) and not hasattr(cls, "__post_init__")
            found = tuple(f.name for f in every), plain
        _FIELDS[cls] = found
    return _FIELDS[cls]


def _rebuilt(cls: type, names: tuple[str, ...], values: tuple[object, ...]) -> object:
    obj: object = object.__new__(cls)
    for name, value in zip(names, values, strict=True):
        object.__setattr__(obj, name, value)
    return obj


class _Pickler(pickle.Pickler):
    """Pickles what a snapshot holds so that it reads back fast: a slotted dataclass as its
    values (the standard library's `__setstate__` for them looks its fields up for every
    object: thousands in a long game), an enum member by its name, a fraction by its terms."""

    def reducer_override(self, obj: object) -> Any:
        cls = type(obj)
        if cls is Fraction:
            assert isinstance(obj, Fraction)
            return Fraction, (obj.numerator, obj.denominator)
        if isinstance(obj, Enum):
            return getattr, (cls, obj.name)
        found = _fields_of(cls)
        if found is None:
            return NotImplemented
        names, plain = found
        values = tuple(getattr(obj, name) for name in names)
        return (cls, values) if plain else (_rebuilt, (cls, names, values))


class _Deflated:
    """A file that compresses what is written to it as it comes: the pickler hands it frames of
    64 KB, so that a long game's snapshot never stands whole in memory uncompressed (twice, with
    the buffer's copy): that peak, in the serializing thread, stayed in the process's heap."""

    def __init__(self) -> None:
        self._deflate = zlib.compressobj(1)
        self.parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.parts.append(self._deflate.compress(data))
        return len(data)

    def close(self) -> bytes:
        self.parts.append(self._deflate.flush())
        return b"".join(self.parts)


def dump(saved: Saved) -> bytes:
    """The snapshot's bytes (compressed: a long game's rows repeat the same few names)."""
    out = _Deflated()
    _Pickler(out, pickle.HIGHEST_PROTOCOL).dump((saved.state, saved.replay, saved.records))
    return out.close()


def load(game_id: int, seq: int, version: str, data: bytes) -> Saved | None:
    """The snapshot of a stored row, or None when it is of another engine or does not decode
    as one of this game at `seq` (then the log is read whole)."""
    if version != VERSION:
        return None
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of new objects, none garbage: no collection to run through
    try:
        state, replay, records = pickle.loads(zlib.decompress(data))
    except Exception as error:  # a row this program cannot read back is only a lost cache
        log.warning("game %s: its snapshot at %s is ignored (%s)", game_id, seq, error)
        return None
    finally:
        if collecting:
            gc.enable()
    if not isinstance(state, GameState) or state.game_id != game_id or state.last_seq != seq:
        log.warning("game %s: its snapshot at %s is not of this game; ignored", game_id, seq)
        return None
    if replay is not None and (not isinstance(replay, Replay) or replay.count != len(records)):
        return None
    return Saved(state, replay, list(records))


def due(seq: int, saved: int, every: int | None) -> bool:
    """Whether a game at event `seq`, snapshotted at `saved`, is to be snapshotted again: every
    `every` events, or (None) every 1/32 of its length, at least 16 and at most 256 events apart
    (a snapshot costs as much as the game is long; the tail left to fold, about as much again)."""
    if every is None:
        every = min(256, max(16, seq // 32))
    return seq - saved >= every
