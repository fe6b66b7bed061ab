"""What every unit of work shares (`Core`), who sent a command (`Caller`), derived game views."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

from bot.core.cache import KEPT_RECORDS, Games, Kept, parsed
from bot.core.folding import clone, fold
from bot.core.newgame import name_from_profile
from bot.core.state import GameState, Player, RecordItem
from bot.domain import EventRow, GameRow, GameStatus, Repo, Store
from scoring.deal import Record
from scoring.notation import Table, parse_record
from scoring.rules import Rules
from scoring.seating import active_seats
from scoring.settle import Settlement, settle
from scoring.sheet import Sheet

log = logging.getLogger(__name__)
Clock = Callable[[], datetime]
RECENT_SEQS: Final = 2  # (state, sheet) pairs kept per game: its latest seqs
LIVE: Final = -1  # `UnitOfWork.command(game=LIVE)`: the chat's live game


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


def records_of(state: GameState, items: Sequence[RecordItem] | None = None) -> list[Record]:
    """The engine's records of `items`; each stored line is read once per table."""
    tab = table(state)
    known = parsed(tab)
    lines = [item.line for item in (state.records if items is None else items)]
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
    """The index among the records in force of the record with this seq."""
    return next((i for i, item in enumerate(state.records) if item.seq == seq), None)


class Core:
    """Shared by every unit of work: store, clock, chats' locks, sheet cache, watched votes."""

    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock
        # corrected values worked out, by game (`bot.core.audit.Known`)
        self.corrected: OrderedDict[tuple[int, int, int], Any] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}
        # a game's recent sheets weigh their records (their states share the kept one's)
        self._recent: Kept[list[tuple[GameState, Sheet]]] = Kept(
            KEPT_RECORDS // 2, lambda pairs: sum(len(sheet.records) for _, sheet in pairs) + 1
        )
        self.watch: dict[int, tuple[int, datetime]] = {}
        # told when owed rows were committed (the sender)
        self.notify: Callable[[], Awaitable[None]] | None = None
        self.games = Games()  # each live game's state and replay, kept

    def lock(self, chat_id: int) -> asyncio.Lock:
        return self._locks.setdefault(chat_id, asyncio.Lock())

    async def fold(self, repo: Repo, row: GameRow) -> GameState:
        """The game's state as its log stands, as a copy of its own for the caller."""
        return self.track(self.games.take(row, await self.games.read(repo, row)))

    def folded(self, row: GameRow, events: list[EventRow]) -> GameState:
        state = fold(row.game_id, events)
        state.chat_id = row.chat_id
        state.number = row.chat_number
        state.thread_id = row.thread_id
        return self.track(state)

    def track(self, state: GameState) -> GameState:
        """Remember when this game's earliest open vote times out (never later than known)."""
        due = [v.deadline for v in state.open_votes() if v.referred is None]
        if due and state.status is not GameStatus.ENDED:
            known = self.watch.get(state.game_id)
            earliest = min(due) if known is None else min(known[1], *due)
            self.watch[state.game_id] = (state.chat_id, earliest)
        return state

    # -- the sheet ---------------------------------------------------------------------------
    def cached(self, state: GameState) -> Sheet | None:
        """The sheet kept for the game as `state`'s log stands (`remember`), if any."""
        found = self.recent(state.game_id, state.last_seq)
        return None if found is None else found[1]

    def sheet(self, state: GameState) -> Sheet:
        """The replay of the records in force; for a log read outside a command."""
        sheet = self.cached(state)
        if sheet is None:
            sheet = self.games.sheet(state.game_id, state.game(), records_of(state))
            self.remember(state, sheet)
        return sheet

    def remember(self, state: GameState, sheet: Sheet) -> None:
        """Keep the sheet of the game as `state`'s log stands, with a clone of the state."""
        pairs = self._recent.get(state.game_id) or []
        kept = [pair for pair in pairs if pair[0].last_seq != state.last_seq]
        kept.append((clone(state), sheet))
        kept.sort(key=lambda pair: pair[0].last_seq)
        self._recent.put(state.game_id, kept[-RECENT_SEQS:])

    def recent(self, game_id: int, seq: int) -> tuple[GameState, Sheet] | None:
        """The game's state and sheet as its log stood at event `seq`, if kept."""
        pairs = self._recent.get(game_id) or []
        return next((pair for pair in pairs if pair[0].last_seq == seq), None)
