"""`GameService`: the one object the handlers hold — a thin facade over the command modules.

Every command runs in the unit of work it is given (`bot.core.uow.UnitOfWork`: the chat's lock,
the update marked, the game folded, one transaction at its commit): `await game.record(uow, caller,
text)`. The commands themselves are small functions in `lobby` (/newgame, /join, /leave),
`records` (/deal, /undo, /edit), `votes` (ballots, /endgame, the vote clock), `corrections`
(/dispute, late deals, /rule, /arbiter) and `audit` (/export, the picture's corrections). `run`
runs a unit to its commit, again after a transient database failure (`bot.core.attempts`).
Reads without a unit see the store as committed.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from typing import TypeVar

from bot.core import attempts, audit, corrections, lobby, records, votes
from bot.core import debts as settling
from bot.core.audit import CorrectedValues, event_log_json, protocol_comments
from bot.core.changes import corrections_count
from bot.core.corrections import DISPUTE_EXAMPLE
from bot.core.errors import GameError
from bot.core.ledger import Debt
from bot.core.newgame import NewGame
from bot.core.records import DEAL_EXAMPLE, RULE_EXAMPLE, split_late
from bot.core.results import (
    Arrival,
    ChatSettings,
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
    UnitOfWork,
    deal_example,
    records_of,
    rules_now,
    utc_now,
)
from bot.core.uow import settlement as settle_sheet
from bot.domain import Fault, Reminder, Store
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
    "UnitOfWork",
    "deal_example",
    "split_late",
    "utc_now",
]

log = logging.getLogger(__name__)
T = TypeVar("T")


class GameService:
    """One instance per bot; `store` is the repository, `clock` gives aware UTC datetimes."""

    def __init__(
        self, store: Store, clock: Clock = utc_now, snapshot_every: int | None = None
    ) -> None:
        self.core = Core(store, clock, snapshot_every)
        self._corrected: audit.Known = OrderedDict()  # corrected values worked out, by game
        self.store = store
        self.clock = clock

    # -- units of work -----------------------------------------------------------------------
    def unit_of_work(self, caller: Caller | None = None) -> UnitOfWork:
        """A unit of work marking `caller`'s update (None: the bot's own); commit it yourself."""
        return UnitOfWork(self.core, caller)

    async def run(self, work: attempts.Work[T], caller: Caller | None = None) -> T:
        """`work(uow)` in a unit of work committed when it returns, tried again with a fresh one
        after a transient database failure (`bot.core.attempts.run`)."""
        return await attempts.run(self.core, work, caller)

    def fault(self, error: BaseException) -> Fault | None:
        """What kind of database failure `error` is (None: none, a bug)."""
        return self.store.fault(error)

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
        return audit.corrected_values(state, sheet, self._corrected)

    # -- commands ----------------------------------------------------------------------------
    async def was_handled(
        self, update_id: int, chat_id: int | None = None, message_id: int | None = None
    ) -> bool:
        async with self.store.reading() as repo:
            return await repo.update_seen(update_id, chat_id, message_id)

    async def new_game(
        self, uow: UnitOfWork, caller: Caller, spec: NewGame, language: str | None = None
    ) -> Opened:
        return await lobby.new_game(uow, caller, spec, language)

    async def join(
        self, uow: UnitOfWork, caller: Caller, name: str | None = None, game_id: int | None = None
    ) -> Joined:
        return await lobby.join(uow, caller, name, game_id)

    async def claim(self, uow: UnitOfWork, caller: Caller, game_id: int, seat: int) -> Joined:
        return await lobby.claim(uow, caller, game_id, seat)

    async def leave(self, uow: UnitOfWork, caller: Caller, name: str | None = None) -> Left:
        return await lobby.leave(uow, caller, name)

    async def record(self, uow: UnitOfWork, caller: Caller, text: str) -> Recorded:
        return await records.record(uow, caller, text)

    async def undo(self, uow: UnitOfWork, caller: Caller) -> Undone:
        return await records.undo(uow, caller)

    async def edit(self, uow: UnitOfWork, caller: Caller, text: str) -> Edited:
        return await records.edit(uow, caller, text)

    async def edit_by_message(
        self, uow: UnitOfWork, caller: Caller, text: str, sent_at: datetime
    ) -> Edited:
        return await records.edit_by_message(uow, caller, text, sent_at)

    async def end_game(self, uow: UnitOfWork, caller: Caller) -> Ended | VoteState:
        return await votes.end_game(uow, caller)

    async def vote(
        self, uow: UnitOfWork, caller: Caller, game_id: int, vote_seq: int, yes: bool
    ) -> VoteState:
        return await votes.vote(uow, caller, game_id, vote_seq, yes)

    async def dispute(self, uow: UnitOfWork, caller: Caller, number: str, text: str) -> VoteState:
        return await corrections.dispute(uow, caller, number, text)

    async def propose_late(self, uow: UnitOfWork, caller: Caller, text: str) -> VoteState:
        return await corrections.propose_late(uow, caller, text)

    async def propose_rule(self, uow: UnitOfWork, caller: Caller, text: str) -> VoteState:
        return await corrections.propose_rule(uow, caller, text)

    async def name_arbiter(
        self, uow: UnitOfWork, caller: Caller, ref: str
    ) -> GameState | VoteState:
        return await corrections.name_arbiter(uow, caller, ref)

    # -- settling up (bot.core.debts) -------------------------------------------------------
    async def mark_debt(
        self, uow: UnitOfWork, caller: Caller, game_id: int, seq: int
    ) -> settling.Marked:
        return await settling.mark(uow, caller, game_id, seq)

    async def paid(self, uow: UnitOfWork, caller: Caller, ref: str) -> list[Debt]:
        return await settling.paid_all(uow, caller, ref)

    async def debts(self, caller: Caller) -> settling.DebtsView:
        """/debts: the chat's open debts and their net, or in private the account's everywhere."""
        if caller.private:
            return await settling.account_debts(self.core, caller)
        return await settling.chat_debts(self.core, caller.chat_id)

    async def start_account(self, uow: UnitOfWork, caller: Caller, lang: str) -> None:
        await settling.start_account(uow, caller, lang)

    async def forget_account(self, uow: UnitOfWork, caller: Caller) -> None:
        await settling.forget_account(uow, caller)

    async def set_reminder(
        self, uow: UnitOfWork, caller: Caller, every: int | None
    ) -> Reminder | None:
        return await settling.set_reminder(uow, caller, every)

    async def reminder(self, chat_id: int) -> Reminder | None:
        """The chat's reminder of open debts, as committed (None: off)."""
        return await settling.reminder_of(self.core, chat_id)

    async def due_reminders(self) -> list[Reminder]:
        return await settling.due_reminders(self.core)

    async def remind(self, uow: UnitOfWork, chat_id: int) -> tuple[int, list[Debt]]:
        return await settling.remind(uow, chat_id)

    # -- the vote clock (bot.telegram.outbound.outbox.close_expired_votes) -----------------------------------
    async def watch_open_votes(self) -> int:
        return await votes.watch_open_votes(self.core)

    def due_votes(self) -> list[tuple[int, int]]:
        """(chat id, game id) of the games with a vote whose time may be over."""
        return votes.due_votes(self.core)

    async def expire(self, uow: UnitOfWork, chat_id: int, game_id: int) -> list[VoteState]:
        """Close (or refer) the game's timed-out votes in `uow`."""
        return await votes.expire(uow, chat_id, game_id)

    async def vote_posted(
        self, chat_id: int, game_id: int, vote_seq: int, message_id: int
    ) -> None:
        """Remember a vote's message (the sender, once it posted it): a unit of its own."""

        async def work(uow: UnitOfWork) -> None:
            await votes.vote_posted(uow, chat_id, game_id, vote_seq, message_id)

        await self.run(work)

    # -- looking -----------------------------------------------------------------------------
    async def snapshot(
        self, chat_id: int, uow: UnitOfWork | None = None, topic: int = 0
    ) -> Snapshot:
        """The table's live game, or else its last one (ended games stay readable); with `uow`,
        as that unit sees it (its own writes included). `topic`: the forum topic (0: the chat)."""
        own = uow is not None and uow.sees_own_writes
        async with self.store.reading() if uow is None else uow.reading() as repo:
            row = await repo.live_game(chat_id, topic) or await repo.last_game(chat_id, topic)
            if row is None:
                raise GameError("no-game", "", {}, "/newgame sochi")
            if own:  # not the log as committed: folded apart, kept nowhere
                state = self.core.folded(row, await repo.events(row.game_id))
            else:
                state = await self.core.fold(repo, row)
        if state.rules is None:
            return Snapshot(state, None, None)
        sheet = replay(state.game(), records_of(state)) if own else self.sheet(state)
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
            state = await self.core.fold(repo, row)  # kept, or from its snapshot and the tail
            if state.last_seq != seq:  # the log has moved on since: the state then, folded
                events = [event for event in await repo.events(game_id) if event.seq <= seq]
                state = fold(game_id, events)
                state.chat_id = row.chat_id
                state.thread_id = row.thread_id
        if state.last_seq == seq and state.rules is not None:
            sheet = self.sheet(state)
            return Snapshot(state, sheet, self.settlement(state, sheet))
        if state.rules is None:
            return Snapshot(state, None, None)
        sheet = self.core.cached(state) or replay(state.game(), records_of(state))
        return Snapshot(state, sheet, self.settlement(state, sheet))

    async def look(self, uow: UnitOfWork, caller: Caller) -> Snapshot:
        """`snapshot` for a look by `caller` (/score, /sheet, /history, /rules): his first act
        in the chat links his `@username` seat (notation.md "Players") — a command of `uow`,
        whose game the look then shows (nothing is committed before the unit is)."""
        snap = await self.snapshot(caller.chat_id, uow, caller.topic)
        if not lobby.needs_link(snap.state, caller):
            return snap
        async with uow.command(caller) as unit:  # links the seat, records nothing else
            state = unit.state
            sheet = unit.sheet() if state.rules is not None else None
        if sheet is None:
            return Snapshot(state, None, None)
        return Snapshot(state, sheet, self.settlement(state, sheet))

    async def export(
        self,
        chat_id: int,
        uow: UnitOfWork | None = None,
        zone: tzinfo = UTC,
        topic: int = 0,
    ) -> Exported:
        """The protocol file of the table's game (live, else its last; times in the chat's `zone`)
        and its JSON event log."""
        state = (await self.snapshot(chat_id, uow, topic)).state
        if state.rules is None:
            missing = str(state.seats - len(state.players))
            raise GameError("game-not-started", "/export", {"missing": missing}, "/join")
        in_force = self.records(state)
        comments = protocol_comments(state, in_force, zone)
        protocol = format_protocol(state.game(), in_force, comments)
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
    async def locale(self, chat_id: int, uow: UnitOfWork | None = None) -> str | None:
        """The chat's language, read now (a /lang taken by any instance is seen at once)."""
        async with self.store.reading() if uow is None else uow.reading() as repo:
            return await repo.chat_locale(chat_id)

    async def arrival(self, uow: UnitOfWork, caller: Caller) -> Arrival:
        """What an update is read with, in one short read: whether it was handled before, and its
        chat's settings."""
        async with uow.reading() as repo:
            seen = caller.update_id is not None and await repo.update_seen(
                caller.update_id, caller.chat_id, caller.message_id
            )
            chat = await repo.chat_settings(caller.chat_id)
            return Arrival(seen, ChatSettings(chat.locale, chat.time_zone))

    async def set_locale(self, uow: UnitOfWork, caller: Caller, locale: str) -> None:
        await lobby.set_language(uow, caller, locale)

    async def migrate_chat(self, uow: UnitOfWork, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup: its games and settings move to the new id."""
        if old_chat_id == new_chat_id:
            return 0
        repo = await uow.holding(old_chat_id, new_chat_id)
        moved = await repo.move_chat(old_chat_id, new_chat_id)
        if moved:
            log.info("moving %d game(s) from chat %s to %s", moved, old_chat_id, new_chat_id)
        return moved

    async def sheet_message(self, game_id: int) -> int | None:
        async with self.store.reading() as repo:
            return await repo.sheet_message(game_id)

    async def set_sheet_message(self, game_id: int, message_id: int | None) -> None:
        async with self.store.transaction() as repo:
            await repo.set_sheet_message(game_id, message_id)
