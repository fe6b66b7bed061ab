"""What a live game keeps in memory between commands: a deal costs the same at #500 as at #5."""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, Generic, TypeVar

from bot.core.folding import apply, clone, fold
from bot.core.state import GameState
from bot.domain import EventRow, GameRow, Repo
from scoring.deal import Record
from scoring.notation import Table
from scoring.replay import Replay
from scoring.sheet import Game, Sheet

# What the kept games may weigh together, in records held (a record of the log costs about 2 KB
# in a kept state and its replay, docs/benchmarks.md): the least recently used go first. Sized by
# memory, not by a count of games: a hundred 2,000-deal games weigh what 4,000 short ones do.
KEPT_RECORDS: Final = 100_000
CHECKPOINT: Final = 64  # a replay is kept every this many records
MARKS: Final = 2  # the last few of those checkpoints (each is a copy of the game's replay)
RECENT: Final = 2  # and at the last few points the kept replay was advanced from
TABLES: Final = 256  # tables whose lines read are kept (`parsed`)
V = TypeVar("V")


@lru_cache(maxsize=TABLES)
def parsed(tab: Table) -> dict[str, Record]:
    """The records read so far at this table, by their stored line."""
    return {}


Log = tuple[GameState | None, list[EventRow]]
"""Events read for a game: those after the kept state's seq (kept), or else the whole log."""


@dataclass(slots=True)
class _Line:
    """One game's kept replay: the records it took, and checkpoints on the way (count → replay)."""

    game: Game
    tip: Replay
    records: list[Record] = field(default_factory=list)
    marks: dict[int, Replay] = field(default_factory=dict)
    recent: list[int] = field(default_factory=list)


def common_prefix(a: Sequence[Record], b: Sequence[Record]) -> int:
    """How many records the two lists share from the start (halving: the slices compare in C)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    return bisect_left(range(n), True, key=lambda k: a[:k] != b[:k]) - 1  # the first that differ


class Kept(Generic[V]):
    """Values by game, least recently used first out once their weights pass `budget`."""

    def __init__(self, budget: int, weigh: Callable[[V], int]) -> None:
        self.budget = budget
        self.weigh = weigh
        self._values: OrderedDict[int, tuple[V, int]] = OrderedDict()
        self.weight = 0

    def get(self, key: int) -> V | None:
        """The value kept for `key`, now the most recent."""
        found = self._values.get(key)
        if found is None:
            return None
        self._values.move_to_end(key)
        return found[0]

    def put(self, key: int, value: V) -> None:
        """Keep `value` (weighed now: put it again once it has grown) as the most recent."""
        self.pop(key)
        weight = self.weigh(value)
        self._values[key] = (value, weight)
        self.weight += weight
        while self.weight > self.budget and len(self._values) > 1:
            _, (_, gone) = self._values.popitem(last=False)
            self.weight -= gone

    def pop(self, key: int) -> None:
        _, weight = self._values.pop(key, (None, 0))
        self.weight -= weight


class Games:
    """The kept states and replays of the live games."""

    def __init__(self) -> None:
        self._states: Kept[GameState] = Kept(KEPT_RECORDS // 2, lambda s: len(s.items) + 1)
        self._lines: Kept[_Line] = Kept(
            KEPT_RECORDS // 2, lambda line: line.tip.count * (1 + len(line.marks)) + 1
        )
        self.folds = 0  # full folds done (a test reads how often the tail was not enough)
        self.replayed = 0  # records replayed (likewise)

    # -- the folded state --------------------------------------------------------------------
    async def read(self, repo: Repo, row: GameRow) -> Log:
        """The short read: the events after the kept state's seq, or the whole log."""
        game_id = row.game_id
        kept = self._states.get(game_id)
        return kept, await repo.events(game_id, after=0 if kept is None else kept.last_seq)

    def take(self, row: GameRow, log: Log) -> GameState:
        """The kept state advanced by what `read` read, as a copy of its own for the caller."""
        game_id = row.game_id
        kept, rows = log  # (held since the read: still itself if it was dropped from the cache)
        if kept is None:
            kept = fold(game_id, rows)
            self.folds += 1
        else:
            tail = [ev for ev in rows if ev.seq > kept.last_seq]  # none another reader applied
            if tail and tail[0].seq != kept.last_seq + 1:
                raise RuntimeError(f"game {game_id}: event {tail[0].seq} after {kept.last_seq}")
            try:
                for ev in tail:
                    apply(kept, ev)
            except Exception:
                self._states.pop(game_id)
                raise
        kept.chat_id = row.chat_id
        kept.number = row.chat_number
        kept.thread_id = row.thread_id
        self._states.put(game_id, kept)
        return clone(kept)

    # -- the replay --------------------------------------------------------------------------
    def sheet(self, game_id: int, game: Game, records: Sequence[Record]) -> Sheet:
        """`scoring.replay.replay(game, records)`, resumed from what this game keeps."""
        line = self._lines.get(game_id)
        if line is None or line.game != game:
            line = _Line(game, Replay(game))
        shared = common_prefix(line.records, records)
        if shared == len(line.records) == len(records):
            return line.tip.sheet()
        if shared < line.tip.count:
            start = max((k for k in line.marks if k <= shared), default=0)
            line.marks = {k: r for k, r in line.marks.items() if k <= shared}
            line.recent = [k for k in line.recent if k in line.marks]
            line.tip = line.marks[start].fork() if start else Replay(game)
        elif line.tip.count and line.tip.count not in line.marks:
            # the tip is kept before it moves on: a failed try or an undo comes back to it
            line.marks[line.tip.count] = line.tip.fork()
            line.recent.append(line.tip.count)
            while len(line.recent) > RECENT:
                old = line.recent.pop(0)
                if old % CHECKPOINT:
                    line.marks.pop(old, None)
        try:
            self._advance(line, records)
        finally:
            line.records = list(records[: line.tip.count])
            self._lines.put(game_id, line)  # weighed again, as it stands now
        return line.tip.sheet()

    def _advance(self, line: _Line, records: Sequence[Record]) -> None:
        tip = line.tip
        while tip.count < len(records):
            stop = min(len(records), (tip.count // CHECKPOINT + 1) * CHECKPOINT)
            self.replayed += stop - tip.count
            tip.advance(records[tip.count : stop])
            if stop % CHECKPOINT == 0 and stop not in line.marks:
                line.marks[stop] = tip.fork()
                # older checkpoints go: a game keeps O(1) copies of its replay, and an undo or a
                # correction further back than the kept ones replays from the start
                checkpoints = sorted(k for k in line.marks if k % CHECKPOINT == 0)
                for old in checkpoints[:-MARKS]:
                    if old not in line.recent:
                        del line.marks[old]
