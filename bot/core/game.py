"""The game service: every command of a chat as one unit of work over the event log.

A command runs under its chat's lock and inside one transaction: it folds the game's log, checks the
command against it (and against the rules engine by replaying), appends its events and marks the
Telegram update as handled — all committed together, or nothing. Handlers only parse arguments, call
these methods and show the results.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

from bot.core.audit import event_log_json, protocol_comments
from bot.core.errors import AlreadyHandled, GameError
from bot.core.events import RECORD_VOTE_KINDS, VOTE_KINDS, Kind, Payload
from bot.core.newgame import NewGame, check_name, name_from_profile, parse_arbiter
from bot.core.results import (
    Applied,
    Edited,
    Ended,
    Exported,
    Joined,
    Left,
    Opened,
    Proposal,
    Recorded,
    Snapshot,
    Undone,
    VoteState,
)
from bot.core.state import GameState, Player, RecordItem, Vote, apply, fold, started_payload
from bot.storage import GameRow, GameStatus, Repo, Store
from scoring.corrections import record_penalty
from scoring.deal import Adjust, LastRound, Record, RuleChange
from scoring.errors import IllegalDeal, ScoringError
from scoring.notation import (
    SEATS,
    Table,
    format_record,
    parse_record,
    parse_rule_change,
    resolve_player,
)
from scoring.protocol import format_protocol
from scoring.replay import replay
from scoring.rules import EndRule, Rules, format_option, rules_for
from scoring.settle import Settlement, settle
from scoring.sheet import Band, Sheet

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
DEAL_EXAMPLE: Final = "/deal Anna 7♠ -1 vist:Boris pass:Clara"
DISPUTE_EXAMPLE: Final = "/dispute 3 Anna 7♠ -1 vist:Boris pass:Clara"
RULE_EXAMPLE: Final = "/rule pool_target=30"
SHEET_CACHE: Final = 256
LATE_WORDS: Final = frozenset({"late", "поздно", "забытая"})
CorrectedValues = dict[tuple[Band, int], tuple[Fraction, int]]


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

    @property
    def private(self) -> bool:
        return self.chat_type == "private"

    def as_player(self, taken: set[str] | None = None) -> Player:
        name = name_from_profile(self.first_name, self.username, taken or set())
        return Player(name, self.user_id, self.username)

    @property
    def shown(self) -> str:
        return self.first_name or (f"@{self.username}" if self.username else str(self.user_id))


def no_rule_change(record: Record, text: str) -> None:
    """A rule changes mid-game only by everyone's vote (`/rule`), never as a deal (conventions.md §1.4)."""
    if isinstance(record, RuleChange):
        raise GameError("rule-change-needs-vote", text.strip(), {}, RULE_EXAMPLE)


@lru_cache(maxsize=8192)
def parse_stored(line: str, table: Table) -> Record:
    """A record from its stored canonical line (the lines are few and repeat on every replay)."""
    return parse_record(line, table)


class GameService:
    """One instance per bot; `store` is the repository, `clock` gives aware UTC datetimes."""

    def __init__(self, store: Store, clock: Clock = utc_now) -> None:
        self.store = store
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._sheets: OrderedDict[int, tuple[int, Sheet]] = OrderedDict()
        self._locales: dict[int, str | None] = {}
        # Games with open votes: game id → (chat id, the earliest deadline). It may hold more than
        # is due (a rolled-back command); `expire_votes` reads the log and corrects it.
        self._watch: dict[int, tuple[int, datetime]] = {}

    # -- units of work ----------------------------------------------------------------------
    def _lock(self, chat_id: int) -> asyncio.Lock:
        return self._locks.setdefault(chat_id, asyncio.Lock())

    @asynccontextmanager
    async def _command(self, caller: Caller) -> AsyncIterator[Repo]:
        """The chat's lock, one transaction, and the update marked as handled inside it."""
        async with self._lock(caller.chat_id), self.store.transaction() as repo:
            if caller.update_id is not None:
                if await repo.update_seen(caller.update_id):
                    raise AlreadyHandled(caller.update_id)
                await repo.mark_update(caller.update_id, self.clock())
            yield repo

    async def was_handled(self, update_id: int) -> bool:
        async with self.store.reading() as repo:
            return await repo.update_seen(update_id)

    async def _fold(self, repo: Repo, row: GameRow) -> GameState:
        state = fold(row.game_id, await repo.events(row.game_id))
        state.chat_id = row.chat_id
        self._track(state)
        return state

    async def _live(self, repo: Repo, chat_id: int) -> GameState:
        row = await repo.live_game(chat_id)
        if row is None:
            raise GameError("no-game", "", {}, "/newgame sochi")
        return await self._fold(repo, row)

    async def _append(
        self, repo: Repo, state: GameState, kind: Kind, payload: Payload, author: int | None
    ) -> None:
        event = await repo.append(state.game_id, kind.value, payload, author, self.clock())
        apply(state, event)
        if kind in VOTE_KINDS:
            self._track(state)

    # -- the sheet ---------------------------------------------------------------------------
    def _table(
        self, state: GameState, dealer: int | None = None, sender: int | None = None
    ) -> Table:
        return Table(state.names, state.usernames, dealer, sender)

    def records(self, state: GameState, items: Sequence[RecordItem] | None = None) -> list[Record]:
        table = self._table(state)
        return [
            parse_stored(item.line, table) for item in (state.records if items is None else items)
        ]

    def sheet(self, state: GameState) -> Sheet:
        """The replay of the records in force (cached per game until its log grows)."""
        cached = self._sheets.get(state.game_id)
        if cached is not None and cached[0] == state.last_seq:
            self._sheets.move_to_end(state.game_id)
            return cached[1]
        sheet = replay(state.game(), self.records(state))
        self._remember(state, sheet)
        return sheet

    def _remember(self, state: GameState, sheet: Sheet) -> None:
        self._sheets[state.game_id] = (state.last_seq, sheet)
        self._sheets.move_to_end(state.game_id)
        while len(self._sheets) > SHEET_CACHE:
            self._sheets.popitem(last=False)

    def _replay(self, state: GameState, records: list[Record], dealer: int) -> Sheet:
        """The sheet with a new record; the engine's refusal gets an example for this table."""
        try:
            return replay(state.game(), records)
        except ScoringError as error:
            error.example = error.example or deal_example(state.names, dealer)
            raise

    @staticmethod
    def settlement(state: GameState, sheet: Sheet) -> Settlement:
        """Settled under the rules in force at the sheet's end (mid-game changes included)."""
        return settle(sheet.rules, sheet.totals, state.stake)

    @staticmethod
    def rules(state: GameState) -> Rules:
        """The rules in force now (conventions.md §1.4): time windows, the end rule, penalties."""
        rules = state.rules_now()
        assert rules is not None
        return rules

    # -- opening and joining ------------------------------------------------------------------
    async def new_game(self, caller: Caller, spec: NewGame) -> Opened:
        if caller.private:
            raise GameError("group-only", "", {}, "/newgame sochi")
        async with self._command(caller) as repo:
            if await repo.live_game(caller.chat_id) is not None:
                raise GameError("game-exists", "", {}, "/endgame")
            if caller.chat_title:
                await repo.set_chat_title(caller.chat_id, caller.chat_title)
            row = await repo.create_game(caller.chat_id, caller.user_id, self.clock())
            state = GameState(row.game_id, row.chat_id)
            if spec.dealer is not None:
                self._check_dealer_ref(spec)
            created = {
                "convention": spec.convention,
                "seats": spec.seats,
                "overrides": spec.overrides,
                "stake": str(spec.stake) if spec.stake is not None else None,
                "dealer": spec.dealer,
                "scorekeeper": caller.as_player().payload(),
            }
            await self._append(repo, state, Kind.GAME_CREATED, created, caller.user_id)
            if spec.arbiter is not None:
                payload = {"arbiter": spec.arbiter.payload()}
                await self._append(repo, state, Kind.ARBITER_NAMED, payload, caller.user_id)
            if caller.user_id is not None:
                await repo.add_member(state.game_id, caller.user_id)
            for player in spec.players:
                await self._append(
                    repo, state, Kind.PLAYER_JOINED, {"player": player.payload()}, caller.user_id
                )
                if player.user_id is not None:
                    await repo.add_member(state.game_id, player.user_id)
            started = await self._start_if_full(repo, state, caller)
            return Opened(state, started)

    @staticmethod
    def _check_dealer_ref(spec: NewGame) -> None:
        ref = spec.dealer or ""
        if len(ref) == 1 and ref in SEATS[: spec.seats]:
            return
        if len(spec.players) == spec.seats:
            try:
                resolve_player(ref, Table(tuple(p.name for p in spec.players)))
                return
            except ScoringError:
                pass
        raise GameError("unknown-dealer", ref, {}, "/newgame sochi dealer=B")

    async def _start_if_full(self, repo: Repo, state: GameState, caller: Caller) -> bool:
        if len(state.players) < state.seats:
            return False
        rules = rules_for(state.convention, state.seats, state.overrides)
        first = 0
        if state.dealer_ref:
            try:
                first = resolve_player(state.dealer_ref, Table(state.names))
            except ScoringError:
                log.warning(
                    "game %s: dealer %r not found, seat A deals", state.game_id, state.dealer_ref
                )
        payload = started_payload(state, rules, first)
        await self._append(repo, state, Kind.GAME_STARTED, payload, caller.user_id)
        await repo.set_status(state.game_id, GameStatus.PLAYING)
        return True

    async def join(
        self, caller: Caller, name: str | None = None, game_id: int | None = None
    ) -> Joined:
        """The sender takes the next seat (or, by the scorekeeper, a named player does);
        `game_id` is the game a Join button was made for."""
        async with self._command(caller) as repo:
            row = await repo.live_game(caller.chat_id)
            if game_id is not None and (row is None or row.game_id != game_id):
                raise GameError("stale-button", "", {}, "/join")
            if row is None:
                raise GameError("no-game", "", {}, "/newgame sochi")
            state = await self._fold(repo, row)
            taken = {n.casefold() for n in state.names}
            if name is not None:
                if not state.is_scorekeeper(caller.user_id):
                    raise GameError("scorekeeper-only", name, {}, "/join")
                check_name(name)
                if name.casefold() in taken:
                    raise GameError("same-name", name, {}, "/join Clara")
                player = Player(name)
            else:
                if state.seat_of(caller.user_id, caller.username) is not None:
                    raise GameError("already-joined", caller.shown, {}, "/score")
                if state.is_arbiter(caller.user_id, caller.username):
                    raise GameError("arbiter-plays", caller.shown, {}, "/arbiter")
                player = caller.as_player(taken)
            if state.status is not GameStatus.FORMING:
                raise GameError("no-open-game", player.name, {}, "/score")
            if len(state.players) >= state.seats:
                raise GameError("game-full", player.name, {}, "/score")
            await self._append(
                repo, state, Kind.PLAYER_JOINED, {"player": player.payload()}, caller.user_id
            )
            if player.user_id is not None:
                await repo.add_member(state.game_id, player.user_id)
            started = await self._start_if_full(repo, state, caller)
            return Joined(state, player, started)

    async def leave(self, caller: Caller, name: str | None = None) -> Left:
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            if name is not None:
                if not state.is_scorekeeper(caller.user_id):
                    raise GameError("scorekeeper-only", name, {}, "/leave")
                seat = next(
                    (
                        s
                        for s, p in enumerate(state.players)
                        if p.name.casefold() == name.casefold()
                    ),
                    None,
                )
            else:
                seat = state.seat_of(caller.user_id, caller.username)
            if seat is None:
                raise GameError("not-joined", name or caller.shown, {}, "/join")
            if state.status is not GameStatus.FORMING:
                raise GameError("no-open-game", state.players[seat].name, {}, "/endgame")
            player = state.players[seat]
            await self._append(
                repo, state, Kind.PLAYER_LEFT, {"name": player.name}, caller.user_id
            )
            if player.user_id is not None and not state.is_scorekeeper(player.user_id):
                await repo.remove_member(state.game_id, player.user_id)
            return Left(state, player)

    # -- records -------------------------------------------------------------------------------
    def _playing(self, state: GameState, caller: Caller) -> int | None:
        """Checks that the game is on and the sender may record; the sender's seat, if he plays."""
        if state.status is GameStatus.FORMING:
            raise GameError(
                "game-not-started", "", {"missing": str(state.seats - len(state.players))}, "/join"
            )
        seat = state.seat_of(caller.user_id, caller.username)
        if seat is None and not state.is_scorekeeper(caller.user_id):
            raise IllegalDeal(
                "not-a-player", caller.shown, {"players": ", ".join(state.names)}, DEAL_EXAMPLE
            )
        return seat

    async def record(self, caller: Caller, text: str) -> Recorded:
        """`/deal …` (or `/lastround`): the record is read, checked by a replay, then appended."""
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            seat = self._playing(state, caller)
            before = self.sheet(state)
            if before.finished:
                raise IllegalDeal("game-finished", text.strip(), {}, "/endgame")
            record = parse_record(text, self._table(state, before.next_dealer, seat))
            no_rule_change(record, text)
            if isinstance(record, Adjust):
                raise GameError("adjust-by-vote", text.strip(), {}, DEAL_EXAMPLE)
            if isinstance(record, LastRound):
                self._check_last_round(state, before)
            sheet = self._replay(state, [*self.records(state), record], before.next_dealer)
            kind = Kind.LAST_ROUND if isinstance(record, LastRound) else Kind.DEAL
            line = format_record(record, state.names)
            payload: Payload = {"line": line}
            if seat is not None:
                payload["seat"] = seat
            await self._append(repo, state, kind, payload, caller.user_id)
            if caller.user_id is not None:
                await repo.add_member(state.game_id, caller.user_id)
            self._remember(state, sheet)
            return Recorded(
                state, state.items[-1], sheet.records[-1], sheet, self.settlement(state, sheet)
            )

    @staticmethod
    def _check_last_round(state: GameState, sheet: Sheet) -> None:
        if sheet.rules.end_rule is not EndRule.TIME_THEN_FIRST_CLOSED:
            raise GameError(
                "last-round-not-allowed",
                "/lastround",
                {"convention": sheet.rules.convention},
                "/score",
            )
        if sheet.last_round_announced:
            raise GameError("last-round-twice", "/lastround", {}, "/score")

    def _pencil(self, state: GameState, caller: Caller) -> tuple[RecordItem, Sheet]:
        """The last record, if the sender wrote it and the pencil rule still holds (corrections.md);
        with the sheet as it stands."""
        self._playing(state, caller)
        records = state.records
        if not records:
            raise GameError("nothing-to-undo", "", {}, DEAL_EXAMPLE)
        last = records[-1]
        if last.author != caller.user_id:
            raise GameError("not-author", last.line, {}, "/history")
        if self._votes_on(state, last):
            raise GameError("vote-open", last.line, {}, "/history")
        seconds = self.rules(state).pencil_seconds
        if self.clock() - last.at > timedelta(seconds=seconds):
            raise GameError(
                "pencil-expired",
                last.line,
                {"seconds": str(seconds)},
                "/history",
            )
        return last, self.sheet(state)

    async def undo(self, caller: Caller) -> Undone:
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            last, before = self._pencil(state, caller)
            number = before.records[-1].number
            payload = {"target": last.seq, "line": last.line}
            await self._append(repo, state, Kind.DEAL_UNDONE, payload, caller.user_id)
            sheet = self.sheet(state)
            return Undone(state, number, last.line, sheet, self.settlement(state, sheet))

    async def edit(self, caller: Caller, text: str) -> Edited:
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            last, before = self._pencil(state, caller)
            scored = before.records[-1]
            seat = state.seat_of(caller.user_id, caller.username)
            record = parse_record(text, self._table(state, scored.dealer, seat))
            no_rule_change(record, text)
            if isinstance(record, Adjust):
                raise GameError("adjust-by-vote", text.strip(), {}, DEAL_EXAMPLE)
            if isinstance(record, LastRound) != isinstance(scored.record, LastRound):
                raise GameError("edit-mismatch", text.strip(), {"line": last.line}, DEAL_EXAMPLE)
            records = [*self.records(state)[:-1], record]
            sheet = self._replay(state, records, scored.dealer or 0)
            line = format_record(record, state.names)
            payload = {"target": last.seq, "line": line, "old": last.line}
            await self._append(repo, state, Kind.DEAL_EDITED, payload, caller.user_id)
            self._remember(state, sheet)
            return Edited(
                state,
                scored.number,
                last.old_lines[-1],
                sheet.records[-1],
                sheet,
                self.settlement(state, sheet),
            )

    # -- ending and votes --------------------------------------------------------------------
    async def end_game(self, caller: Caller) -> Ended | VoteState:
        """/endgame: cancel a forming game (scorekeeper), end a finished one, or open a vote in
        which every player must agree (the sender's ✅ counted)."""
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            if state.status is GameStatus.FORMING:
                if not state.is_scorekeeper(caller.user_id):
                    raise GameError("scorekeeper-only", "/endgame", {}, "/leave")
                return await self._end(repo, state, "cancelled", caller.user_id)
            self._playing(state, caller)
            if any(v.kind in RECORD_VOTE_KINDS for v in state.open_votes()):
                raise GameError("votes-pending", "/endgame", {}, "/history")
            if self.sheet(state).finished:
                return await self._end(repo, state, "end_rule", caller.user_id)
            open_votes = state.open_votes(Kind.END_PROPOSED)
            if open_votes:
                vote = open_votes[0]
            else:
                payload = {"threshold": "all", "deadline": self._deadline(state)}
                await self._append(repo, state, Kind.END_PROPOSED, payload, caller.user_id)
                vote = state.votes[state.last_seq]
            return await self._cast(repo, state, vote, caller, yes=True)

    async def _end(self, repo: Repo, state: GameState, reason: str, author: int | None) -> Ended:
        for vote in state.open_votes():  # a vote cannot outlive its game
            payload = {"vote": vote.seq, "passed": False, "reason": "cancelled"}
            await self._append(repo, state, Kind.VOTE_CLOSED, payload, None)
        await self._append(repo, state, Kind.GAME_ENDED, {"reason": reason}, author)
        await repo.set_status(state.game_id, GameStatus.ENDED)
        if state.rules is None:
            return Ended(state, reason, None, None)
        sheet = self.sheet(state)
        return Ended(state, reason, sheet, self.settlement(state, sheet))

    async def vote(self, caller: Caller, game_id: int, vote_seq: int, yes: bool) -> VoteState:
        """A ✅/❌ press; the button's game and vote are checked against the log. A vote waiting
        for the arbiter takes only the arbiter's press, which decides it."""
        async with self._command(caller) as repo:
            row = await repo.game(game_id)
            if row is None or row.chat_id != caller.chat_id:
                raise GameError("stale-button", "", {}, "/score")
            state = await self._fold(repo, row)
            vote = state.votes.get(vote_seq)
            if vote is None:
                raise GameError("stale-button", "", {}, "/score")
            if vote.closed or state.status is GameStatus.ENDED:
                raise GameError("vote-closed", "", {}, "/history")
            arbiter = state.is_arbiter(caller.user_id, caller.username)
            if vote.referred is not None:
                if not arbiter:
                    raise GameError("arbiter-only", "", {}, "/history")
                voters = tuple(state.voters())
                return await self._close(
                    repo,
                    state,
                    vote,
                    voters,
                    passed=yes,
                    reason="arbiter",
                    author=caller.user_id,
                    username=caller.username,
                )
            if arbiter and not self._voter(state, caller):
                raise GameError("arbiter-waits", "", {}, "/history")
            return await self._cast(repo, state, vote, caller, yes)

    @staticmethod
    def _voter(state: GameState, caller: Caller) -> Player | None:
        return next(
            (v for v in state.voters() if v.is_user(caller.user_id, caller.username)), None
        )

    async def _cast(
        self, repo: Repo, state: GameState, vote: Vote, caller: Caller, yes: bool
    ) -> VoteState:
        voters = tuple(state.voters())
        voter = self._voter(state, caller)
        if voter is None:
            raise GameError("not-a-voter", caller.shown, {}, "/score")
        if vote.referred is not None:
            raise GameError("arbiter-only", "", {}, "/history")
        if self.clock() > vote.deadline:
            return await self._expire(repo, state, vote, voters)
        if vote.ballot(voter) is yes:
            raise GameError("vote-same", "", {}, "/history")
        payload: dict[str, Any] = {"vote": vote.seq, "yes": yes, "username": caller.username}
        await self._append(repo, state, Kind.VOTE_CAST, payload, caller.user_id)
        with_arbiter = self._may_refer(state, vote)
        passed = tally(vote, voters, arbiter=with_arbiter)
        if passed is None:
            if with_arbiter and tied(vote, voters):
                return await self._refer(repo, state, vote, voters, "tie")
            return self._vote_state(state, vote, voters)
        return await self._close(repo, state, vote, voters, passed=passed, reason="certain")

    @staticmethod
    def _may_refer(state: GameState, vote: Vote) -> bool:
        """A tied or timed-out vote goes to the arbiter, if there is one — not a vote about him."""
        return state.arbiter is not None and vote.kind is not Kind.ARBITER_PROPOSED

    async def _expire(
        self, repo: Repo, state: GameState, vote: Vote, voters: tuple[Player, ...]
    ) -> VoteState:
        """The voting time is over: to the arbiter, or rejected (corrections.md "A vote")."""
        if self._may_refer(state, vote):
            return await self._refer(repo, state, vote, voters, "timeout")
        return await self._close(repo, state, vote, voters, passed=False, reason="timeout")

    async def _refer(
        self, repo: Repo, state: GameState, vote: Vote, voters: tuple[Player, ...], reason: str
    ) -> VoteState:
        payload = {"vote": vote.seq, "reason": reason}
        await self._append(repo, state, Kind.VOTE_REFERRED, payload, None)
        return self._vote_state(state, vote, voters, reason=reason)

    async def _close(
        self,
        repo: Repo,
        state: GameState,
        vote: Vote,
        voters: tuple[Player, ...],
        *,
        passed: bool,
        reason: str,
        author: int | None = None,
        username: str | None = None,
    ) -> VoteState:
        """Close a vote; a passed one then makes its change as events of its own. A passed vote on
        a record whose change the log no longer takes closes as "conflict" and changes nothing."""
        proposal = self._proposal(state, vote)
        records: list[Record] | None = None
        if passed and vote.kind in RECORD_VOTE_KINDS:
            records = self._planned(state, vote)
            if records is None:
                passed, reason = False, "conflict"
        if passed and vote.kind is Kind.RULE_CHANGE_PROPOSED and not self._rule_fits(state, vote):
            passed, reason = False, "conflict"
        payload: Payload = {"vote": vote.seq, "passed": passed, "reason": reason}
        if username is not None:
            payload["username"] = username
        await self._append(repo, state, Kind.VOTE_CLOSED, payload, author)
        ended: Ended | None = None
        applied: Applied | None = None
        if passed:
            if vote.kind is Kind.END_PROPOSED:
                how = "arbiter" if reason == "arbiter" else "agreed"
                ended = await self._end(repo, state, how, None)
            elif vote.kind is Kind.ARBITER_PROPOSED:
                named = {"arbiter": vote.payload["arbiter"], "vote": vote.seq}
                await self._append(repo, state, Kind.ARBITER_NAMED, named, None)
            elif vote.kind is Kind.CORRECTION_PROPOSED:
                assert records is not None
                applied = await self._apply_correction(repo, state, vote, records)
            elif vote.kind is Kind.LATE_DEAL_PROPOSED:
                applied = await self._apply_late(repo, state, vote)
            elif vote.kind is Kind.RULE_CHANGE_PROPOSED:
                # At the log's end, and by nobody: no pencil rule lets its proposer undo it.
                change = {"line": vote.payload["line"], "vote": vote.seq}
                await self._append(repo, state, Kind.DEAL, change, None)
        return self._vote_state(state, vote, voters, passed, reason, ended, proposal, applied)

    def _vote_state(
        self,
        state: GameState,
        vote: Vote,
        voters: tuple[Player, ...],
        passed: bool | None = None,
        reason: str | None = None,
        ended: Ended | None = None,
        proposal: Proposal | None = None,
        applied: Applied | None = None,
    ) -> VoteState:
        if proposal is None and applied is None:
            proposal = self._proposal(state, vote)
        return VoteState(
            state, vote, voters, passed, reason, ended, proposal, applied, state.chat_id
        )

    # -- disputes, late deals, the arbiter (issue 6, corrections.md) -----------------------------
    def _votes_on(self, state: GameState, item: RecordItem) -> list[Vote]:
        """Open votes that would change this record, or insert a deal before it."""
        return [
            v
            for v in state.open_votes()
            if (v.kind is Kind.CORRECTION_PROPOSED and v.payload["target"] == item.seq)
            or (v.kind is Kind.LATE_DEAL_PROPOSED and v.payload["before"] == item.seq)
        ]

    def _deal_index(self, sheet: Sheet, number: str, example: str) -> int:
        """The index (among the records in force) of the deal numbered `number` (`5`, `#5`)."""
        text = number.strip().lstrip("#№")
        if text.isdigit():
            for index, scored in enumerate(sheet.records):
                if scored.number == int(text):
                    return index
        raise GameError("bad-deal-number", number, {"deals": str(sheet.deals)}, example)

    def in_window(self, state: GameState, index: int) -> bool:
        """Кодекс 4.2.9 (corrections.md): a record may be disputed while it is the latest deal, or
        while the deal after it is younger than `dispute_grace_seconds` (the bot cannot see the
        end of the next bidding, so the next record marks it)."""
        later = [
            r for r in state.records[index + 1 :] if r.kind is Kind.DEAL and not r.rule_change
        ]
        if not later:
            return True
        grace = timedelta(seconds=self.rules(state).dispute_grace_seconds)
        return self.clock() - later[0].at < grace

    def _deadline(self, state: GameState) -> str:
        return (self.clock() + timedelta(seconds=self.rules(state).vote_seconds)).isoformat()

    async def dispute(self, caller: Caller, number: str, text: str) -> VoteState:
        """/dispute N <corrected deal>: a vote on replacing deal N (the proposer's ✅ counted).

        Inside the window any player may propose and a majority decides; after it only the
        record's writer may, and every player must agree (corrections.md, Кодекс 4.2.9)."""
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            seat = self._playing(state, caller)
            rules = self.rules(state)
            sheet = self.sheet(state)
            example = DISPUTE_EXAMPLE
            if sheet.records:
                last = sheet.records[-1]
                shown = deal_example(state.names, last.dealer or 0).removeprefix("/deal ")
                example = f"/dispute {last.number or 1} {shown}"
            index = self._deal_index(sheet, number, example)
            item, scored = state.records[index], sheet.records[index]
            if self._votes_on(state, item):
                raise GameError("vote-open", f"#{scored.number}", {}, "/history")
            record = parse_record(text, self._table(state, scored.dealer, seat))
            no_rule_change(record, text)
            if isinstance(record, Adjust | LastRound):
                raise GameError("dispute-not-deal", text.strip(), {}, example)
            line = format_record(record, state.names)
            if line == item.line:
                raise GameError("no-change", text.strip(), {"line": item.line}, example)
            records = self.records(state)
            records[index] = record
            self._replay(state, records, scored.dealer or 0)
            inside = self.in_window(state, index)
            if not inside and item.author != caller.user_id:
                writer = state.player_name(item.author) or "?"
                params = {"writer": writer, "seconds": str(rules.dispute_grace_seconds)}
                raise GameError("dispute-window", f"#{scored.number}", params, "/history")
            pencil_time = timedelta(seconds=rules.pencil_seconds)
            pencil = index == len(records) - 1 and self.clock() - item.at <= pencil_time
            payload = {
                "target": item.seq,
                "line": line,
                "old": item.line,
                "threshold": "majority" if inside else "all",
                "deadline": self._deadline(state),
                "pencil": pencil,
            }
            await self._append(repo, state, Kind.CORRECTION_PROPOSED, payload, caller.user_id)
            return await self._cast(repo, state, state.votes[state.last_seq], caller, yes=True)

    async def propose_late(self, caller: Caller, text: str) -> VoteState:
        """`/deal … late`: a forgotten deal to insert before the latest deal, while that one is
        younger than `dispute_grace_seconds`; every player must agree (Кодекс 4.2.10)."""
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            seat = self._playing(state, caller)
            rules = self.rules(state)
            sheet = self.sheet(state)
            deals = [i for i, scored in enumerate(sheet.records) if scored.number]
            if not deals:
                raise GameError("late-nothing-before", text.strip(), {}, DEAL_EXAMPLE)
            index = deals[-1]
            latest, dealer = state.records[index], sheet.records[index].dealer
            grace = timedelta(seconds=rules.dispute_grace_seconds)
            if self.clock() - latest.at >= grace:
                params = {"seconds": str(rules.dispute_grace_seconds)}
                raise GameError(
                    "late-window", f"#{sheet.records[index].number}", params, "/history"
                )
            if state.open_votes(Kind.LATE_DEAL_PROPOSED) or self._votes_on(state, latest):
                raise GameError("vote-open", text.strip(), {}, "/history")
            record = parse_record(text, self._table(state, dealer, seat))
            no_rule_change(record, text)
            if isinstance(record, Adjust):
                raise GameError("adjust-by-vote", text.strip(), {}, DEAL_EXAMPLE)
            if isinstance(record, LastRound):
                raise GameError("dispute-not-deal", text.strip(), {}, DEAL_EXAMPLE)
            records = self.records(state)
            records.insert(index, record)
            self._replay(state, records, dealer or 0)
            payload = {
                "line": format_record(record, state.names),
                "before": latest.seq,
                "threshold": "all",
                "deadline": self._deadline(state),
            }
            await self._append(repo, state, Kind.LATE_DEAL_PROPOSED, payload, caller.user_id)
            return await self._cast(repo, state, state.votes[state.last_seq], caller, yes=True)

    async def propose_rule(self, caller: Caller, text: str) -> VoteState:
        """/rule name=value: a vote to change one rule from the next record on; every player must
        agree (conventions.md §1.4). Once passed, `option name=value` is appended as a record."""
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            self._playing(state, caller)
            change = read_rule_change(text)
            current = format_option(getattr(self.rules(state), change.option))
            if current == change.value:
                params = {"option": change.option, "value": current}
                raise GameError("rule-same", text.strip(), params, RULE_EXAMPLE)
            if state.open_votes(Kind.RULE_CHANGE_PROPOSED):
                raise GameError("vote-open", text.strip(), {}, "/history")
            sheet = self.sheet(state)
            if sheet.finished:
                raise IllegalDeal("game-finished", text.strip(), {}, "/endgame")
            self._replay(state, [*self.records(state), change], sheet.next_dealer)
            payload: Payload = {
                "line": format_record(change, state.names),
                "old": current,
                "threshold": "all",
                "deadline": self._deadline(state),
            }
            await self._append(repo, state, Kind.RULE_CHANGE_PROPOSED, payload, caller.user_id)
            return await self._cast(repo, state, state.votes[state.last_seq], caller, yes=True)

    def _rule_fits(self, state: GameState, vote: Vote) -> bool:
        """A passed rule change still takes: the option has the value it was proposed against
        and the engine accepts the line at the end of the records."""
        name, _, _ = vote.payload["line"].removeprefix("option ").partition("=")
        if format_option(getattr(self.rules(state), name)) != vote.payload.get("old"):
            return False
        try:
            table = self._table(state)
            replay(state.game(), [*self.records(state), parse_stored(vote.payload["line"], table)])
        except ScoringError:
            return False
        return True

    async def name_arbiter(self, caller: Caller, ref: str) -> GameState | VoteState:
        """/arbiter @user: before the start the scorekeeper names him; during the game every
        player must agree (a vote). The arbiter is not a player and does not vote."""
        async with self._command(caller) as repo:
            state = await self._live(repo, caller.chat_id)
            arbiter = parse_arbiter(ref, caller.as_player())
            if any(arbiter.name.casefold() == n.casefold() for n in state.names) or any(
                p.is_user(arbiter.user_id, arbiter.username)
                or arbiter.is_user(p.user_id, p.username)
                for p in state.voters()
            ):
                raise GameError("arbiter-plays", ref.strip(), {}, "/arbiter @eva")
            current = state.arbiter
            if current is not None and current.payload() == arbiter.payload():
                raise GameError("arbiter-same", ref.strip(), {}, "/history")
            if state.status is GameStatus.FORMING:
                if not state.is_scorekeeper(caller.user_id):
                    raise GameError("scorekeeper-only", "/arbiter", {}, "/join")
                named: Payload = {"arbiter": arbiter.payload()}
                await self._append(repo, state, Kind.ARBITER_NAMED, named, caller.user_id)
                return state
            self._playing(state, caller)
            if state.open_votes(Kind.ARBITER_PROPOSED):
                raise GameError("vote-open", ref.strip(), {}, "/history")
            payload: Payload = {
                "arbiter": arbiter.payload(),
                "threshold": "all",
                "deadline": self._deadline(state),
            }
            await self._append(repo, state, Kind.ARBITER_PROPOSED, payload, caller.user_id)
            return await self._cast(repo, state, state.votes[state.last_seq], caller, yes=True)

    # -- what a vote on a record changes -------------------------------------------------------
    def _index_of(self, state: GameState, seq: int) -> int | None:
        return next((i for i, item in enumerate(state.records) if item.seq == seq), None)

    def _proposal(self, state: GameState, vote: Vote) -> Proposal | None:
        """The record before and after and the balances both ways (None when the log no longer
        allows it to be drawn: the record was undone, or the engine refuses it)."""
        if vote.kind not in RECORD_VOTE_KINDS or state.rules is None:
            return None
        table = self._table(state)
        new = parse_stored(vote.payload["line"], table)
        try:
            if vote.kind is Kind.CORRECTION_PROPOSED:
                index = self._index_of(state, vote.payload["target"])
                if index is None:
                    return None
                records = self.records(state)
                old = parse_stored(vote.payload["old"], table)
                wrong = replay(state.game(), [*records[:index], old, *records[index + 1 :]])
                right = replay(state.game(), [*records[:index], new, *records[index + 1 :]])
                writer = state.player_name(state.records[index].author)
                old_scored: Any = wrong.records[index]
            else:
                items = [i for i in state.records if i.vote != vote.seq]
                index = next(
                    (i for i, it in enumerate(items) if it.seq == vote.payload["before"]), -1
                )
                if index < 0:
                    return None
                records = self.records(state, items)
                wrong = replay(state.game(), records)
                right = replay(state.game(), [*records[:index], new, *records[index:]])
                writer, old_scored = None, None
        except ScoringError:
            return None
        return Proposal(
            right.records[index].number,
            old_scored,
            right.records[index],
            tuple(self.settlement(state, wrong).balances),
            tuple(self.settlement(state, right).balances),
            writer,
        )

    def _planned(self, state: GameState, vote: Vote) -> list[Record] | None:
        """The records in force once this passed vote is applied; None when the log has moved on
        so that it cannot be (the record changed or undone meanwhile, or the engine refuses)."""
        table = self._table(state)
        records = self.records(state)
        new = parse_stored(vote.payload["line"], table)
        if vote.kind is Kind.CORRECTION_PROPOSED:
            index = self._index_of(state, vote.payload["target"])
            if index is None or state.records[index].line != vote.payload["old"]:
                return None
            records[index] = new
        else:
            index = self._index_of(state, vote.payload["before"])
            if index is None:
                return None
            records.insert(index, new)
        try:
            replay(state.game(), records)
        except ScoringError:
            return None
        return records

    def corrections_count(self, state: GameState, writer: int | None) -> int:
        """Accepted corrections of this writer's records, not counting those made under the
        pencil rule (Кодекс 4.2.7: the first is a warning)."""
        return sum(
            1
            for item in state.items
            if item.author == writer
            for seq in item.votes
            if not state.votes[seq].payload.get("pencil")
        )

    async def _apply_correction(
        self, repo: Repo, state: GameState, vote: Vote, records: list[Record]
    ) -> Applied:
        """A passed correction: the record's new line, then the writer's penalty if it is not his
        first corrected error and the wrong record favoured him (Кодекс 4.2.7, record_penalties)."""
        target = vote.payload["target"]
        index = self._index_of(state, target)
        assert index is not None
        item = state.records[index]
        before = self.records(state)
        writer_seat = item.seat
        if writer_seat is None and item.author is not None:
            writer_seat = state.seat_of(item.author, None)
        warning = False
        penalties: tuple[Adjust, ...] = ()
        if self.rules(state).record_penalties and not vote.payload.get("pencil"):
            if self.corrections_count(state, item.author) == 0:
                warning = True
            elif writer_seat is not None:
                penalties = record_penalty(
                    state.game(), before, index, records[index], writer_seat
                )
        payload: Payload = {
            "target": target,
            "line": vote.payload["line"],
            "old": item.line,
            "vote": vote.seq,
        }
        if warning:
            payload["warning"] = True
        await self._append(repo, state, Kind.DEAL_EDITED, payload, vote.author)
        for adjust in penalties:
            line = format_record(adjust, state.names)
            penalty = {"line": line, "vote": vote.seq, "target": target}
            await self._append(repo, state, Kind.PENALTY, penalty, None)
        sheet = self.sheet(state)
        writer = state.player_name(item.author)
        return Applied(
            sheet.records[index].number,
            item.old_lines[-1],
            sheet.records[index],
            sheet,
            self.settlement(state, sheet),
            tuple(sheet.records[len(before) :]),
            writer if warning else None,
            writer,
        )

    async def _apply_late(self, repo: Repo, state: GameState, vote: Vote) -> Applied:
        """A passed late deal: inserted before the record it was proposed before (4.2.10)."""
        proposer_seat = None
        if vote.author is not None:
            proposer_seat = state.seat_of(vote.author, vote.usernames.get(vote.author))
        payload: Payload = {
            "line": vote.payload["line"],
            "before": vote.payload["before"],
            "vote": vote.seq,
        }
        if proposer_seat is not None:
            payload["seat"] = proposer_seat
        await self._append(repo, state, Kind.DEAL, payload, vote.author)
        index = self._index_of(state, state.last_seq)
        assert index is not None
        sheet = self.sheet(state)
        scored = sheet.records[index]
        return Applied(scored.number, None, scored, sheet, self.settlement(state, sheet))

    # -- votes that time out: a background task (bot.app) calls these -----------------------
    def _track(self, state: GameState) -> None:
        """Remember when this game's earliest open vote times out (never later than known)."""
        due = [v.deadline for v in state.open_votes() if v.referred is None]
        if not due or state.status is GameStatus.ENDED:
            return
        known = self._watch.get(state.game_id)
        earliest = min(due) if known is None else min(known[1], *due)
        self._watch[state.game_id] = (state.chat_id, earliest)

    async def watch_open_votes(self) -> int:
        """At start-up: find every live game with an open vote (the log keeps the deadlines), so
        that a restart loses none; returns how many games are watched."""
        async with self.store.reading() as repo:
            for row in await repo.live_games():
                await self._fold(repo, row)
        return len(self._watch)

    async def expire_votes(self) -> list[VoteState]:
        """Close (or refer to the arbiter) every vote whose time is over; each in its own unit
        of work under its chat's lock. The results carry their chat ids."""
        now = self.clock()
        results: list[VoteState] = []
        for game_id, (chat_id, due) in list(self._watch.items()):
            if due > now:
                continue
            async with self._lock(chat_id), self.store.transaction() as repo:
                row = await repo.game(game_id)
                self._watch.pop(game_id, None)
                if row is None or row.status is GameStatus.ENDED:
                    continue
                state = await self._fold(repo, row)
                self._watch.pop(game_id, None)
                voters = tuple(state.voters())
                for vote in state.open_votes():
                    if vote.referred is None and now >= vote.deadline:
                        results.append(await self._expire(repo, state, vote, voters))
                self._track(state)
        return results

    async def vote_posted(
        self, chat_id: int, game_id: int, vote_seq: int, message_id: int
    ) -> None:
        """Remember the message that shows a vote, so that its closing can edit it later."""
        async with self._lock(chat_id), self.store.transaction() as repo:
            payload = {"vote": vote_seq, "message_id": message_id}
            await repo.append(game_id, Kind.VOTE_POSTED.value, payload, None, self.clock())

    # -- the picture's corrections and the export ---------------------------------------------
    def corrected_values(self, state: GameState, sheet: Sheet) -> CorrectedValues:
        """Running totals a vote corrected, as paper shows them: (band, record index) → (the
        value first written there, the correction's number) — corrections.md "Audit"."""
        out: CorrectedValues = {}
        if state.rules is None:
            return out
        records = self.records(state)
        table = self._table(state)
        number = 0
        for event in state.log:
            if event.kind != Kind.DEAL_EDITED or event.payload.get("vote") is None:
                continue
            number += 1
            index = self._index_of(state, event.payload["target"])
            if index is None:
                continue
            try:
                old = parse_stored(event.payload["old"], table)
                wrong = replay(state.game(), [*records[:index], old])
            except ScoringError:
                continue
            for band, values in wrong.history.items():
                written = [total for at, total in values if at == index]
                right = [total for at, total in sheet.history.get(band, ()) if at == index]
                if written and right and written[-1] != right[-1]:
                    out[(band, index)] = (written[-1], number)
        return out

    async def export(self, chat_id: int) -> Exported:
        """The protocol file of the chat's game (live, else its last) and its JSON event log."""
        snap = await self.snapshot(chat_id)
        state = snap.state
        if state.rules is None:
            missing = str(state.seats - len(state.players))
            raise GameError("game-not-started", "/export", {"missing": missing}, "/join")
        comments = protocol_comments(state, self.records(state))
        protocol = format_protocol(state.game(), self.records(state), comments)
        return Exported(state, protocol, event_log_json(state, self.clock()))

    # -- looking ---------------------------------------------------------------------------
    async def snapshot(self, chat_id: int) -> Snapshot:
        """The chat's live game, or else its last one (ended games stay readable)."""
        async with self.store.reading() as repo:
            row = await repo.live_game(chat_id) or await repo.last_game(chat_id)
            if row is None:
                raise GameError("no-game", "", {}, "/newgame sochi")
            state = await self._fold(repo, row)
        if state.rules is None:
            return Snapshot(state, None, None)
        sheet = self.sheet(state)
        return Snapshot(state, sheet, self.settlement(state, sheet))

    async def open_games(self, user_id: int) -> list[tuple[GameState, str | None]]:
        """The user's live games with their chats' titles (private chat)."""
        async with self.store.reading() as repo:
            rows = await repo.games_of_user(user_id)
            return [
                (await self._fold(repo, row), await repo.chat_title(row.chat_id)) for row in rows
            ]

    # -- the chat --------------------------------------------------------------------------
    async def locale(self, chat_id: int) -> str | None:
        if chat_id not in self._locales:
            async with self.store.reading() as repo:
                self._locales[chat_id] = await repo.chat_locale(chat_id)
        return self._locales[chat_id]

    async def set_locale(self, caller: Caller, locale: str) -> None:
        async with self._command(caller) as repo:
            await repo.set_chat_locale(caller.chat_id, locale)
        self._locales[caller.chat_id] = locale

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup: its games and settings move to the new id."""
        if old_chat_id == new_chat_id:
            return 0
        async with (
            self._lock(old_chat_id),
            self._lock(new_chat_id),
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


def deal_example(names: Sequence[str], dealer: int) -> str:
    """One correct deal line for this table when `dealer` deals (with 4 players he sits out)."""
    active = [s for s in range(len(names)) if len(names) == 3 or s != dealer]
    a, b, c = (names[s] for s in active)
    return f"/deal {c} 7♠ -1 vist:{a} pass:{b}"


def tally(vote: Vote, voters: Sequence[Player], *, arbiter: bool = False) -> bool | None:
    """A vote's result once it cannot change, else None: "all" needs every voter's ✅ (one ❌
    rejects); "majority" a strict majority of voters either way (corrections.md "A vote").
    With an `arbiter` a tie is his to decide, so a majority vote is rejected only by a strict
    majority of ❌ (see `tied`)."""
    ballots = [vote.ballot(v) for v in voters]
    yes, no = ballots.count(True), ballots.count(False)
    if vote.threshold == "all":
        if no:
            return False
        return True if yes == len(voters) else None
    need = len(voters) // 2 + 1
    if yes >= need:
        return True
    if no >= need or (not arbiter and no > len(voters) - need):
        return False
    return None


def tied(vote: Vote, voters: Sequence[Player]) -> bool:
    """Every voter has voted on a majority vote and it is even: the arbiter's to decide."""
    ballots = [vote.ballot(v) for v in voters]
    yes, no = ballots.count(True), ballots.count(False)
    return vote.threshold == "majority" and yes + no == len(voters) and yes == no


def read_rule_change(text: str) -> RuleChange:
    """`/rule name=value` (or `option name=value`): the change, its value made canonical. An
    unknown option is refused with the valid ones listed."""
    words = text.strip()
    try:
        change = parse_rule_change(words) or parse_rule_change(f"option {words}")
    except ScoringError as error:
        error.example = RULE_EXAMPLE
        raise
    if change is None:
        raise GameError("bad-rule-change", words, {}, RULE_EXAMPLE)
    return change


def split_late(text: str) -> tuple[str, bool]:
    """`/deal … late`: the deal line without the word `late` (first or last), and whether it
    was there."""
    words = text.split()
    if words and words[-1].casefold() in LATE_WORDS:
        return " ".join(words[:-1]), True
    if words and words[0].casefold() in LATE_WORDS:
        return " ".join(words[1:]), True
    return text, False
