"""One command's part of a unit of work: its game, the events it appends, its writes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.core.base import Caller, Core, deal_example, records_of, rules_now
from bot.core.event_codec import SCHEMA_VERSION, encode
from bot.core.events import ARBITER_SEAT, VOTE_KINDS, Event
from bot.core.folding import apply
from bot.core.newgame import name_from_profile
from bot.core.state import GameState
from bot.domain import EventRow, GameRow, Repo
from scoring.deal import Record
from scoring.errors import ScoringError
from scoring.sheet import Sheet

Write = Callable[[Repo], Awaitable[object]]


class Command:
    """A command's part of its unit; a direct one writes at once into the open transaction."""

    def __init__(
        self, core: Core, chat_id: int, repo: Repo | None, touched: Callable[[], None]
    ) -> None:
        self.core = core
        self.chat_id = chat_id
        self._repo = repo
        self._touched = touched  # tells the unit its open transaction holds its writes
        self._state: GameState | None = None
        self.writes: list[Write] = []
        self._sheets: list[tuple[GameState, int, Sheet]] = []

    @property
    def in_transaction(self) -> bool:
        return self._repo is not None

    @property
    def repo(self) -> Repo:
        """The open transaction's repository (direct commands): what it writes is the unit's."""
        assert self._repo is not None, "only a direct command holds the repository"
        self._touched()
        return self._repo

    def fold(self, row: GameRow, events: list[EventRow]) -> GameState:
        self._state = self.core.folded(row, events)
        return self._state

    async def link(self, caller: Caller) -> None:
        """An `@username` seat is linked to the caller's account on his first act (notation.md)."""
        first = name_from_profile(caller.first_name, caller.username, set())
        event = self.state.link_event(caller.user_id, caller.username, first)
        user_id, game_id = caller.user_id, self.state.game_id
        if event is not None and user_id is not None:
            await self.append(event, user_id)
            if event.seat != ARBITER_SEAT:  # the arbiter is no player: the game is not his
                await self.write(lambda repo: repo.add_member(game_id, user_id))

    def adopt(self, state: GameState) -> None:
        """A game this command created or read (nothing to fold yet)."""
        self._state = state

    @property
    def has_state(self) -> bool:
        return self._state is not None

    @property
    def state(self) -> GameState:
        assert self._state is not None, "this command read no game"
        return self._state

    def now(self) -> datetime:
        return self.core.clock()

    def deadline(self) -> str:
        """When a vote opened now times out (the rules in force's `vote_seconds`)."""
        seconds = rules_now(self.state).vote_seconds
        return (self.now() + timedelta(seconds=seconds)).isoformat()

    async def write(self, write: Write) -> None:
        """A write beside the events (members, the status index): now, or at the commit."""
        if self._repo is not None:
            await write(self.repo)
        else:
            self.writes.append(write)

    async def append(self, event: Event, author: int | None) -> None:
        """Append a typed event and fold it into the state; its seq is the log's next."""
        state = self.state
        kind, payload = encode(event)
        at = self.now()
        if self._repo is not None:
            row = await self.repo.append(state.game_id, kind.value, payload, author, at)
        else:
            seq = state.last_seq + 1
            row = EventRow(state.game_id, seq, kind.value, payload, author, at, SCHEMA_VERSION)
            self.writes.append(_appending(row))
        apply(state, row)
        if kind in VOTE_KINDS:
            self.core.track(state)

    def sheet(self, records: list[Record] | None = None) -> Sheet:
        """The replay of the records in force now; `records`: them, when the caller has them."""
        state = self.state
        sheet = self.core.cached(state)
        if sheet is None:
            records = records_of(state) if records is None else records
            sheet = self.core.games.sheet(state.game_id, state.game(), records)
            self.remember(sheet)
        return sheet

    def remember(self, sheet: Sheet) -> None:
        self._sheets.append((self.state, self.state.last_seq, sheet))

    def committed(self) -> None:
        for state, seq, sheet in self._sheets:
            if seq == state.last_seq:
                self.core.remember(state, sheet)

    def replay(self, records: list[Record], dealer: int) -> Sheet:
        """The sheet with a new record; the engine's refusal gets an example for this table."""
        state = self.state
        try:
            return self.core.games.sheet(state.game_id, state.game(), records)
        except ScoringError as error:
            error.example = error.example or deal_example(state.names, dealer)
            raise


def _appending(row: EventRow) -> Write:
    async def write(repo: Repo) -> None:
        stored = await repo.append(row.game_id, row.kind, row.payload, row.author, row.at)
        if stored.seq != row.seq:  # the chats' locks make this impossible; never write past it
            raise RuntimeError(f"game {row.game_id}: event {stored.seq} written as {row.seq}")

    return write
