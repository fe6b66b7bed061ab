"""What a live game keeps in memory between commands: a deal costs the same at #500 as at #5.

`Games.state(repo, row)` keeps each game's folded `GameState` and advances it by the log's tail only
(`Repo.events(game_id, after=seq)`); every caller gets its own copy (`state.clone`), so a command
that fails leaves the kept state as the log has it. `Games.sheet(game_id, game, records)` keeps each
game's `scoring.replay.Replay` with checkpoints: records that extend the kept ones are taken alone; an
undo, an edit, a late deal, a correction or a rule change (records that leave the kept ones at some
point) resume from the nearest checkpoint before that point. Whatever is kept, the result is the
one a full fold and a full replay give (tests/bot/test_incremental_state.py checks it on random games).
Nothing here is shared between games, and nothing here takes a lock: each chat's commands run under
that chat's lock, and a read outside a command only ever moves a game's kept state forward.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar

from bot.core.state import GameState, apply, clone, fold
from bot.domain import EventRow, GameRow, Repo
from scoring.deal import Record
from scoring.replay import Replay
from scoring.sheet import Game, Sheet

GAMES: Final = 256  # live games kept (least recently used first out)
CHECKPOINT: Final = 64  # a replay is kept every this many records
RECENT: Final = 2  # and at the last few points the kept replay was advanced from
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Log:
    """Events read for a game: those after the kept state's seq then (`kept`), or the whole log
    (`kept` None)."""

    kept: GameState | None
    rows: list[EventRow]


@dataclass(slots=True)
class _Line:
    """One game's kept replay: the records it took, and checkpoints on the way (count → replay)."""

    game: Game
    tip: Replay
    records: list[Record] = field(default_factory=list)
    marks: dict[int, Replay] = field(default_factory=dict)
    recent: list[int] = field(default_factory=list)


def common_prefix(a: Sequence[Record], b: Sequence[Record]) -> int:
    """How many records the two lists share from the start."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo], a[:hi] != b[:hi]: halve (the slices compare in C)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


class Games:
    """The kept states and replays of the live games."""

    def __init__(self, size: int = GAMES) -> None:
        self.size = size
        self._states: OrderedDict[int, GameState] = OrderedDict()
        self._lines: OrderedDict[int, _Line] = OrderedDict()
        self.folds = 0  # full folds done (a test reads how often the tail was not enough)
        self.replayed = 0  # records replayed (likewise)

    # -- the folded state --------------------------------------------------------------------
    async def state(self, repo: Repo, row: GameRow) -> GameState:
        """The game's state as its log stands, as a copy of its own for the caller."""
        return self.take(row, await self.read(repo, row))

    async def read(self, repo: Repo, row: GameRow) -> Log:
        """The short read, under the store's lock: the events the kept state has not seen (after
        its seq), or the whole log when nothing is kept. `take` folds them with the store free."""
        kept = self._states.get(row.game_id)
        if kept is None:
            return Log(None, await repo.events(row.game_id))
        return Log(kept, await repo.events(row.game_id, after=kept.last_seq))

    def take(self, row: GameRow, log: Log) -> GameState:
        """The kept state advanced by what `read` read, as a copy of its own for the caller."""
        game_id = row.game_id
        kept = log.kept  # (held since the read: still itself if it was dropped from the cache)
        if kept is None:
            kept = fold(game_id, log.rows)
            self.folds += 1
        else:
            tail = [ev for ev in log.rows if ev.seq > kept.last_seq]  # none another reader applied
            if tail and tail[0].seq != kept.last_seq + 1:
                raise RuntimeError(f"game {game_id}: event {tail[0].seq} after {kept.last_seq}")
            try:
                for ev in tail:
                    apply(kept, ev)
            except Exception:
                self._states.pop(game_id, None)
                raise
        kept.chat_id = row.chat_id
        kept.number = row.chat_number
        kept.thread_id = row.thread_id
        self._keep(self._states, game_id, kept)
        return clone(kept)

    def forget(self, game_id: int) -> None:
        self._states.pop(game_id, None)
        self._lines.pop(game_id, None)

    # -- the replay --------------------------------------------------------------------------
    def sheet(self, game_id: int, game: Game, records: Sequence[Record]) -> Sheet:
        """`scoring.replay.replay(game, records)`, resumed from what this game keeps."""
        line = self._lines.get(game_id)
        if line is None or line.game != game:
            line = _Line(game, Replay(game))
        self._keep(self._lines, game_id, line)
        shared = common_prefix(line.records, records)
        if shared == len(line.records) == len(records):
            return line.tip.sheet()
        if shared < line.tip.count:
            start = max((k for k in line.marks if k <= shared), default=0)
            line.marks = {k: r for k, r in line.marks.items() if k <= shared}
            line.recent = [k for k in line.recent if k in line.marks]
            line.tip = line.marks[start].fork() if start else Replay(game)
            line.records = list(records[:start])
        else:
            self._mark_recent(line)
        try:
            self._advance(line, records)
        finally:
            line.records = list(records[: line.tip.count])
        return line.tip.sheet()

    def _advance(self, line: _Line, records: Sequence[Record]) -> None:
        tip = line.tip
        while tip.count < len(records):
            stop = min(len(records), (tip.count // CHECKPOINT + 1) * CHECKPOINT)
            self.replayed += stop - tip.count
            tip.advance(records[tip.count : stop])
            if stop % CHECKPOINT == 0 and stop not in line.marks:
                line.marks[stop] = tip.fork()

    @staticmethod
    def _mark_recent(line: _Line) -> None:
        """Keep the tip as it is before it moves on: a command that tries a record and fails, or an
        undo, comes back to it."""
        at = line.tip.count
        if at == 0 or at in line.marks:
            return
        line.marks[at] = line.tip.fork()
        line.recent.append(at)
        while len(line.recent) > RECENT:
            old = line.recent.pop(0)
            if old % CHECKPOINT:
                line.marks.pop(old, None)

    def _keep(self, kept: OrderedDict[int, V], key: int, value: V) -> None:
        kept[key] = value
        kept.move_to_end(key)
        while len(kept) > self.size:
            kept.popitem(last=False)
