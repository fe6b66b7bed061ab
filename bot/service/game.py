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
from functools import lru_cache
from typing import Any, Final

from bot.service.errors import AlreadyHandled, GameError
from bot.service.events import Kind, Payload
from bot.service.newgame import NewGame, check_name, name_from_profile
from bot.service.results import (
    Edited,
    Ended,
    Joined,
    Left,
    Opened,
    Recorded,
    Snapshot,
    Undone,
    VoteState,
)
from bot.service.state import GameState, Player, RecordItem, Vote, apply, fold, started_payload
from bot.storage import GameRow, GameStatus, Repo, Store
from scoring.deal import Adjust, LastRound, Record
from scoring.errors import IllegalDeal, ScoringError
from scoring.notation import SEATS, Table, format_record, parse_record, resolve_player
from scoring.replay import replay
from scoring.rules import EndRule, rules_for
from scoring.settle import Settlement, settle
from scoring.sheet import Sheet

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
DEAL_EXAMPLE: Final = "/deal Anna 7♠ -1 vist:Boris pass:Clara"
SHEET_CACHE: Final = 256


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
        return fold(row.game_id, await repo.events(row.game_id))

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
        assert state.rules is not None
        return settle(state.rules, sheet.totals, state.stake)

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
            state = GameState(row.game_id)
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
            if isinstance(record, Adjust):
                raise GameError("adjust-by-vote", text.strip(), {}, DEAL_EXAMPLE)
            if isinstance(record, LastRound):
                self._check_last_round(state, before)
            sheet = self._replay(state, [*self.records(state), record], before.next_dealer)
            kind = Kind.LAST_ROUND if isinstance(record, LastRound) else Kind.DEAL
            line = format_record(record, state.names)
            await self._append(repo, state, kind, {"line": line}, caller.user_id)
            if caller.user_id is not None:
                await repo.add_member(state.game_id, caller.user_id)
            self._remember(state, sheet)
            return Recorded(
                state, state.items[-1], sheet.records[-1], sheet, self.settlement(state, sheet)
            )

    @staticmethod
    def _check_last_round(state: GameState, sheet: Sheet) -> None:
        assert state.rules is not None
        if state.rules.end_rule is not EndRule.TIME_THEN_FIRST_CLOSED:
            raise GameError(
                "last-round-not-allowed",
                "/lastround",
                {"convention": state.rules.convention},
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
        assert state.rules is not None
        window = timedelta(seconds=state.rules.pencil_seconds)
        if self.clock() - last.at > window:
            raise GameError(
                "pencil-expired",
                last.line,
                {"seconds": str(state.rules.pencil_seconds)},
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
            if self.sheet(state).finished:
                return await self._end(repo, state, "end_rule", caller.user_id)
            open_votes = state.open_votes(Kind.END_PROPOSED)
            if open_votes:
                vote = open_votes[0]
            else:
                assert state.rules is not None
                deadline = self.clock() + timedelta(seconds=state.rules.vote_seconds)
                payload = {"threshold": "all", "deadline": deadline.isoformat()}
                await self._append(repo, state, Kind.END_PROPOSED, payload, caller.user_id)
                vote = state.votes[state.last_seq]
            return await self._cast(repo, state, vote, caller, yes=True)

    async def _end(self, repo: Repo, state: GameState, reason: str, author: int | None) -> Ended:
        await self._append(repo, state, Kind.GAME_ENDED, {"reason": reason}, author)
        await repo.set_status(state.game_id, GameStatus.ENDED)
        if state.rules is None:
            return Ended(state, reason, None, None)
        sheet = self.sheet(state)
        return Ended(state, reason, sheet, self.settlement(state, sheet))

    async def vote(self, caller: Caller, game_id: int, vote_seq: int, yes: bool) -> VoteState:
        """A ✅/❌ press; the button's game and vote are checked against the log."""
        async with self._command(caller) as repo:
            row = await repo.game(game_id)
            if row is None or row.chat_id != caller.chat_id:
                raise GameError("stale-button", "", {}, "/score")
            state = await self._fold(repo, row)
            vote = state.votes.get(vote_seq)
            if vote is None:
                raise GameError("stale-button", "", {}, "/score")
            if vote.closed or state.status is GameStatus.ENDED:
                raise GameError("vote-closed", "", {}, "/score")
            return await self._cast(repo, state, vote, caller, yes)

    async def _cast(
        self, repo: Repo, state: GameState, vote: Vote, caller: Caller, yes: bool
    ) -> VoteState:
        voters = tuple(state.voters())
        if not any(v.is_user(caller.user_id, caller.username) for v in voters):
            raise GameError("not-a-voter", caller.shown, {}, "/score")
        if self.clock() > vote.deadline:
            return await self._close(repo, state, vote, voters, passed=False, reason="timeout")
        payload: dict[str, Any] = {"vote": vote.seq, "yes": yes, "username": caller.username}
        await self._append(repo, state, Kind.VOTE_CAST, payload, caller.user_id)
        passed = tally(vote, voters)
        if passed is None:
            return VoteState(state, vote, voters, None)
        return await self._close(repo, state, vote, voters, passed=passed, reason="certain")

    async def _close(
        self,
        repo: Repo,
        state: GameState,
        vote: Vote,
        voters: tuple[Player, ...],
        *,
        passed: bool,
        reason: str,
    ) -> VoteState:
        payload = {"vote": vote.seq, "passed": passed, "reason": reason}
        await self._append(repo, state, Kind.VOTE_CLOSED, payload, None)
        ended = None
        if passed and vote.kind is Kind.END_PROPOSED:
            ended = await self._end(repo, state, "agreed", None)
        return VoteState(state, vote, voters, passed, reason, ended)

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


def tally(vote: Vote, voters: Sequence[Player]) -> bool | None:
    """A vote's result once it cannot change, else None: "all" needs every voter's ✅ (one ❌
    rejects); "majority" a strict majority of voters either way (corrections.md "A vote")."""
    ballots = [vote.ballot(v) for v in voters]
    yes, no = ballots.count(True), ballots.count(False)
    if vote.payload.get("threshold", "all") == "all":
        if no:
            return False
        return True if yes == len(voters) else None
    need = len(voters) // 2 + 1
    if yes >= need:
        return True
    if no > len(voters) - need:
        return False
    return None
