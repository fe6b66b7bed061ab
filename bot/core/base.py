"""What every unit of work shares (`Core`), who sent a command (`Caller`), derived game views,
and what a live game keeps in memory between commands: a deal costs the same at #500 as at #5."""

import asyncio
import logging
import weakref
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final, Generic, TypeVar

from bot.core.newgame import name_from_profile
from bot.core.state import GameState, Player, apply, clone, fold
from bot.domain import EventRow, GameRow, GameStatus, Repo, Store
from scoring.deal import Record
from scoring.notation import Table, parse_record
from scoring.replay import Replay
from scoring.rules import Rules
from scoring.seating import active_seats
from scoring.settle import Settlement, settle
from scoring.sheet import Game, Sheet

log = logging.getLogger(__name__)
Clock = Callable[[], datetime]
RECENT_SEQS: Final = 2  # (state, sheet) pairs kept per game: its latest seqs
LIVE: Final = -1  # `UnitOfWork.command(game=LIVE)`: the chat's live game

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
    return {}


@dataclass(slots=True)
class _Line:
    """One game's kept replay: the records it took, and checkpoints on the way (count → replay)."""

    game: Game
    tip: Replay
    records: list[Record] = field(default_factory=list)
    marks: dict[int, Replay] = field(default_factory=dict)
    recent: list[int] = field(default_factory=list)


class Kept(Generic[V]):
    """Values by game, least recently used first out once their weights pass `budget`."""

    def __init__(self, budget: int, weigh: Callable[[V], int]) -> None:
        self.budget, self.weigh = budget, weigh
        self._values: OrderedDict[int, tuple[V, int]] = OrderedDict()
        self.weight = 0

    def get(self, key: int) -> V | None:
        """The value kept for `key`, now the most recent."""
        if key in self._values:
            self._values.move_to_end(key)
        return self._values.get(key, (None, 0))[0]

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
    def __init__(self, budget: int = KEPT_RECORDS) -> None:
        self._states: Kept[GameState] = Kept(budget // 2, lambda s: len(s.items) + 1)
        self._lines: Kept[_Line] = Kept(
            budget // 2, lambda line: line.tip.count * (1 + len(line.marks)) + 1
        )
        self.folds = 0  # full folds done (a test reads how often the tail was not enough)
        self.replayed = 0  # records replayed (likewise)

    async def read(self, repo: Repo, row: GameRow) -> tuple[GameState | None, list[EventRow]]:
        """The short read: the events after the kept state's seq, or the whole log."""
        kept = self._states.get(row.game_id)
        return kept, await repo.events(row.game_id, after=0 if kept is None else kept.last_seq)

    def take(self, row: GameRow, log: tuple[GameState | None, list[EventRow]]) -> GameState:
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
        kept.chat_id, kept.number, kept.thread_id = row.chat_id, row.chat_number, row.thread_id
        self._states.put(game_id, kept)
        return clone(kept)

    def sheet(self, game_id: int, game: Game, records: Sequence[Record]) -> Sheet:
        """`scoring.replay.replay(game, records)`, resumed from what this game keeps."""
        line = self._lines.get(game_id)
        if line is None or line.game != game:
            line = _Line(game, Replay(game))
        held, n = line.records, min(len(line.records), len(records))
        shared = n  # the records both hold from the start (halving: the slices compare in C)
        if held[:n] != records[:n]:  # then one less than the shortest prefix that differs
            shared = bisect_left(range(n), True, key=lambda k: held[:k] != records[:k]) - 1
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
        tip = line.tip
        try:
            while tip.count < len(records):
                stop = min(len(records), (tip.count // CHECKPOINT + 1) * CHECKPOINT)
                self.replayed += stop - tip.count
                tip.advance(records[tip.count : stop])
                if stop % CHECKPOINT == 0 and stop not in line.marks:
                    line.marks[stop] = tip.fork()
                    # older checkpoints go: a game keeps O(1) copies of its replay, and an undo or
                    # a correction further back than the kept ones replays from the start
                    checkpoints = sorted(k for k in line.marks if k % CHECKPOINT == 0)
                    for old in set(checkpoints[:-MARKS]).difference(line.recent):
                        del line.marks[old]
        finally:
            line.records = list(records[: tip.count])
            self._lines.put(game_id, line)  # weighed again, as it stands now
        return tip.sheet()


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a command, from where, in which Telegram update."""

    chat_id: int
    user_id: int | None
    first_name: str | None = None
    username: str | None = None
    update_id: int | None = None
    chat_type: str = "supergroup"
    chat_title: str | None = None
    message_id: int | None = None  # the update's message: a repeated update_id is told apart
    thread_id: int | None = None  # the forum topic it came from: a table of its own

    @property
    def topic(self) -> int:
        """The table's topic within the chat (0: the chat itself, or a forum's General topic)."""
        return self.thread_id or 0

    @property
    def private(self) -> bool:
        return self.chat_type == "private"

    def as_player(self, taken: set[str] | None = None) -> Player:
        name = name_from_profile(self.first_name, self.username, taken or set())
        return Player(name, self.user_id, self.username)

    @property
    def shown(self) -> str:
        return self.first_name or (f"@{self.username}" if self.username else str(self.user_id))


@lru_cache(maxsize=8192)
def parse_stored(line: str, table: Table) -> Record:
    """A record from its stored canonical line (the lines are few and repeat on every replay)."""
    return parse_record(line, table)


def deal_example(names: Sequence[str], dealer: int) -> str:
    """One correct deal line for this table when `dealer` deals (with 4 players he sits out)."""
    a, b, c = (names[s] for s in active_seats(len(names), dealer))
    return f"/deal {c} 7♠ -1 vist:{a} pass:{b}"


def table(state: GameState, dealer: int | None = None, sender: int | None = None) -> Table:
    return Table(state.names, tuple(p.username for p in state.players), dealer, sender)


def records_of(state: GameState) -> list[Record]:
    """The engine's records in force; each stored line is read once per table."""
    tab = table(state)
    known = parsed(tab)
    lines = [item.line for item in state.records]
    records = list(map(known.get, lines))  # in C: a long game's lines are nearly all known
    for i in [i for i, record in enumerate(records) if record is None]:
        records[i] = known[lines[i]] = parse_stored(lines[i], tab)
    return records  # type: ignore[return-value]  # (no None is left)


def rules_now(state: GameState) -> Rules:
    """The rules in force now (conventions.md §1.4): time windows, the end rule, penalties."""
    rules = state.rules_now()
    assert rules is not None
    return rules


_SETTLED: dict[int, tuple[Fraction | None, Settlement]] = {}  # by id(sheet), while it lives


def settlement(state: GameState, sheet: Sheet) -> Settlement:
    """Settled under the rules at the sheet's end; kept while the sheet itself lives."""
    key = id(sheet)
    kept = _SETTLED.get(key)
    if kept is not None and kept[0] == state.stake:
        return kept[1]
    if kept is None:  # (the finalizer runs before the sheet's id can be taken again)
        weakref.finalize(sheet, _SETTLED.pop, key, None)
    settled = settle(sheet.rules, sheet.totals, state.stake)
    _SETTLED[key] = (state.stake, settled)
    return settled


def index_of(state: GameState, seq: int) -> int | None:
    return next((i for i, item in enumerate(state.records) if item.seq == seq), None)


class Core:
    """Shared by every unit of work: store, clock, chats' locks, sheet cache, watched votes."""

    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store, self.clock = store, clock
        # corrected values worked out, by game (`bot.core.archive.Known`)
        self.corrected: OrderedDict[tuple[int, int, int], Any] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}
        # a game's recent sheets, by seq, weigh their records (their states share the kept one's)
        self._recent: Kept[dict[int, tuple[GameState, Sheet]]] = Kept(
            KEPT_RECORDS // 2, lambda seqs: sum(len(s.records) for _, s in seqs.values()) + 1
        )
        self.watch: dict[int, tuple[int, datetime]] = {}
        # told when owed rows were committed (the sender)
        self.notify: Callable[[], Awaitable[None]] | None = None
        self.games = Games()  # each live game's state and replay, kept

    def lock(self, chat_id: int) -> asyncio.Lock:
        return self._locks.setdefault(chat_id, asyncio.Lock())

    async def fold(self, repo: Repo, row: GameRow, *, apart: bool = False) -> GameState:
        """The game's state as its log stands, as a copy of its own for the caller; `apart`: the
        log read holds writes not committed yet, so it is folded afresh and kept nowhere."""
        if not apart:
            return self.track(self.games.take(row, await self.games.read(repo, row)))
        state = fold(row.game_id, await repo.events(row.game_id))
        state.chat_id, state.number, state.thread_id = row.chat_id, row.chat_number, row.thread_id
        return self.track(state)

    def track(self, state: GameState) -> GameState:
        """Remember when this game's earliest open vote times out (never later than known)."""
        due = [v.deadline for v in state.open_votes() if v.referred is None]
        if due and state.status is not GameStatus.ENDED:
            known = self.watch.get(state.game_id)
            earliest = min(due) if known is None else min(known[1], *due)
            self.watch[state.game_id] = (state.chat_id, earliest)
        return state

    def sheet(self, state: GameState) -> Sheet:
        """The replay of the records in force; for a log read outside a command."""
        sheet = self.cached(state)
        if sheet is not None:
            return sheet
        sheet = self.games.sheet(state.game_id, state.game(), records_of(state))
        self.remember(state, sheet)
        return sheet

    def remember(self, state: GameState, sheet: Sheet) -> None:
        kept = {**(self._recent.get(state.game_id) or {}), state.last_seq: (clone(state), sheet)}
        self._recent.put(state.game_id, dict(sorted(kept.items())[-RECENT_SEQS:]))

    def cached(self, state: GameState) -> Sheet | None:
        """The kept sheet of the state's log as it is now, if there is one."""
        found = self.recent(state.game_id, state.last_seq)
        return None if found is None else found[1]

    def recent(self, game_id: int, seq: int) -> tuple[GameState, Sheet] | None:
        return (self._recent.get(game_id) or {}).get(seq)
