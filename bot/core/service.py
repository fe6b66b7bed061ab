"""`GameService`: the one object the handlers hold — a thin facade over the command modules.

Every command runs as one unit of work (`bot.core.uow.Core.command`: the chat's lock, one
transaction, the update marked, the game folded); the commands themselves are small functions in
`lobby` (/newgame, /join, /leave), `records` (/deal, /undo, /edit), `votes` (ballots, /endgame, the
vote clock), `corrections` (/dispute, late deals, /rule, /arbiter) and `audit` (/export, the
picture's corrections). The methods keep the names, parameters and results they had when all of
this was one class, so the handlers did not change.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from bot.core import audit, corrections, lobby, records, votes
from bot.core.audit import CorrectedValues, event_log_json, protocol_comments
from bot.core.changes import corrections_count
from bot.core.corrections import DISPUTE_EXAMPLE
from bot.core.errors import GameError
from bot.core.newgame import NewGame
from bot.core.owing import Flushing, flush_owing
from bot.core.records import DEAL_EXAMPLE, RULE_EXAMPLE, split_late
from bot.core.results import (
    Edited,
    Ended,
    Exported,
    Joined,
    Left,
    Opened,
    Recorded,
    Snapshot,
    Undone,
    VoteState,
)
from bot.core.state import GameState, RecordItem, fold
from bot.core.uow import (
    Caller,
    Clock,
    Core,
    deal_example,
    records_of,
    rules_now,
    utc_now,
)
from bot.core.uow import settlement as settle_sheet
from bot.storage import Store
from scoring.deal import Record
from scoring.protocol import format_protocol
from scoring.replay import replay
from scoring.rules import Rules
from scoring.settle import Settlement
from scoring.sheet import Sheet

__all__ = [
    "DEAL_EXAMPLE",
    "DISPUTE_EXAMPLE",
    "RULE_EXAMPLE",
    "Caller",
    "Clock",
    "GameService",
    "deal_example",
    "split_late",
    "utc_now",
]

log = logging.getLogger(__name__)


class GameService:
    """One instance per bot; `store` is the repository, `clock` gives aware UTC datetimes."""

    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.core = Core(store, clock)
        self.store: Store = Flushing(store)  # an update's waiting command commits first
        self.clock = clock
        self._locales: dict[int, str | None] = {}

    # -- the sheet ---------------------------------------------------------------------------
    def records(self, state: GameState, items: Sequence[RecordItem] | None = None) -> list[Record]:
        return records_of(state, items)

    def sheet(self, state: GameState) -> Sheet:
        """The replay of the records in force (cached per game until its log grows)."""
        return self.core.sheet(state)

    @staticmethod
    def settlement(state: GameState, sheet: Sheet) -> Settlement:
        return settle_sheet(state, sheet)

    @staticmethod
    def rules(state: GameState) -> Rules:
        return rules_now(state)

    def in_window(self, state: GameState, index: int) -> bool:
        return corrections.in_window(state, index, self.clock())

    @staticmethod
    def corrections_count(state: GameState, writer: int | None) -> int:
        return corrections_count(state, writer)

    def corrected_values(self, state: GameState, sheet: Sheet) -> CorrectedValues:
        return audit.corrected_values(state, sheet)

    # -- commands ----------------------------------------------------------------------------
    async def was_handled(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        async with self.store.reading() as repo:
            return await repo.update_seen(update_id, chat_id, message_id)

    async def new_game(self, caller: Caller, spec: NewGame, language: str | None = None) -> Opened:
        opened = await lobby.new_game(self.core, caller, spec, language)
        self._locales.pop(caller.chat_id, None)  # a new group may have taken the opener's
        return opened

    async def join(
        self, caller: Caller, name: str | None = None, game_id: int | None = None
    ) -> Joined:
        return await lobby.join(self.core, caller, name, game_id)

    async def leave(self, caller: Caller, name: str | None = None) -> Left:
        return await lobby.leave(self.core, caller, name)

    async def record(self, caller: Caller, text: str) -> Recorded:
        return await records.record(self.core, caller, text)

    async def undo(self, caller: Caller) -> Undone:
        return await records.undo(self.core, caller)

    async def edit(self, caller: Caller, text: str) -> Edited:
        return await records.edit(self.core, caller, text)

    async def edit_by_message(self, caller: Caller, text: str, sent_at: datetime) -> Edited:
        return await records.edit_by_message(self.core, caller, text, sent_at)

    async def end_game(self, caller: Caller) -> Ended | VoteState:
        return await votes.end_game(self.core, caller)

    async def vote(self, caller: Caller, game_id: int, vote_seq: int, yes: bool) -> VoteState:
        return await votes.vote(self.core, caller, game_id, vote_seq, yes)

    async def dispute(self, caller: Caller, number: str, text: str) -> VoteState:
        return await corrections.dispute(self.core, caller, number, text)

    async def propose_late(self, caller: Caller, text: str) -> VoteState:
        return await corrections.propose_late(self.core, caller, text)

    async def propose_rule(self, caller: Caller, text: str) -> VoteState:
        return await corrections.propose_rule(self.core, caller, text)

    async def name_arbiter(self, caller: Caller, ref: str) -> GameState | VoteState:
        return await corrections.name_arbiter(self.core, caller, ref)

    # -- the vote clock (bot.app's background task) -----------------------------------------
    async def watch_open_votes(self) -> int:
        return await votes.watch_open_votes(self.core)

    async def expire_votes(self) -> list[VoteState]:
        return await votes.expire_votes(self.core)

    async def vote_posted(
        self, chat_id: int, game_id: int, vote_seq: int, message_id: int
    ) -> None:
        await votes.vote_posted(self.core, chat_id, game_id, vote_seq, message_id)

    # -- looking -----------------------------------------------------------------------------
    async def snapshot(self, chat_id: int) -> Snapshot:
        """The chat's live game, or else its last one (ended games stay readable)."""
        async with self.store.reading() as repo:
            row = await repo.live_game(chat_id) or await repo.last_game(chat_id)
            if row is None:
                raise GameError("no-game", "", {}, "/newgame sochi")
            state = await self.core.fold(repo, row)
        if state.rules is None:
            return Snapshot(state, None, None)
        sheet = self.sheet(state)
        return Snapshot(state, sheet, self.settlement(state, sheet))

    async def sheet_at(self, game_id: int, seq: int) -> Snapshot | None:
        """The game as its log stood at event `seq`: what an owed sheet shows (the sender draws
        it at send time); None when the game is gone."""
        recent = self.core.recent(game_id, seq)
        if recent is not None:  # as the command that owed it committed it: no fold
            state, sheet = recent
            return Snapshot(state, sheet, self.settlement(state, sheet))
        async with self.store.reading() as repo:
            row = await repo.game(game_id)
            if row is None:
                return None
            events = [event for event in await repo.events(game_id) if event.seq <= seq]
        state = fold(game_id, events)
        state.chat_id = row.chat_id
        if state.rules is None:
            return Snapshot(state, None, None)
        sheet = self.core.cached(state) or replay(state.game(), records_of(state))
        return Snapshot(state, sheet, self.settlement(state, sheet))

    async def look(self, caller: Caller) -> Snapshot:
        """`snapshot` for a look by `caller` (/score, /sheet, /history, /rules): his first act
        in the chat links his `@username` seat (notation.md "Players")."""
        snap = await self.snapshot(caller.chat_id)
        if lobby.needs_link(snap.state, caller):
            await lobby.link_seat(self.core, caller)
            await flush_owing()  # the link commits now: the look reads it back
            snap = await self.snapshot(caller.chat_id)
        return snap

    async def export(self, chat_id: int) -> Exported:
        """The protocol file of the chat's game (live, else its last) and its JSON event log."""
        state = (await self.snapshot(chat_id)).state
        if state.rules is None:
            missing = str(state.seats - len(state.players))
            raise GameError("game-not-started", "/export", {"missing": missing}, "/join")
        in_force = self.records(state)
        protocol = format_protocol(state.game(), in_force, protocol_comments(state, in_force))
        return Exported(state, protocol, event_log_json(state, self.clock()))

    async def open_games(self, user_id: int) -> list[tuple[GameState, str | None]]:
        """The user's live games with their chats' titles (private chat)."""
        async with self.store.reading() as repo:
            rows = await repo.games_of_user(user_id)
            return [
                (await self.core.fold(repo, row), await repo.chat_title(row.chat_id))
                for row in rows
            ]

    # -- the chat ----------------------------------------------------------------------------
    async def locale(self, chat_id: int) -> str | None:
        if chat_id not in self._locales:
            async with self.store.reading() as repo:
                self._locales[chat_id] = await repo.chat_locale(chat_id)
        return self._locales[chat_id]

    async def set_locale(self, caller: Caller, locale: str) -> None:
        await lobby.set_language(self.core, caller, locale)
        self._locales[caller.chat_id] = locale

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup: its games and settings move to the new id."""
        if old_chat_id == new_chat_id:
            return 0
        async with (
            self.core.lock(old_chat_id),
            self.core.lock(new_chat_id),
            self.store.transaction() as repo,
        ):
            moved = await repo.move_chat(old_chat_id, new_chat_id)
        self._locales.pop(old_chat_id, None)
        self._locales.pop(new_chat_id, None)
        if moved:
            log.info("moved %d game(s) from chat %s to %s", moved, old_chat_id, new_chat_id)
        return moved

    async def sheet_message(self, game_id: int) -> int | None:
        async with self.store.reading() as repo:
            return await repo.sheet_message(game_id)

    async def set_sheet_message(self, game_id: int, message_id: int | None) -> None:
        async with self.store.transaction() as repo:
            await repo.set_sheet_message(game_id, message_id)
