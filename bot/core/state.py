"""A game as a fold of its log: players, frozen rules, the records in force, open votes; how each
stored event folds into it, and the copy a command folds on."""

from contextlib import suppress
from copy import copy
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from fractions import Fraction
from functools import reduce
from itertools import filterfalse
from operator import attrgetter
from typing import Any

from bot.core import events as ev
from bot.core.events import Kind, decode
from bot.core.events import Player as Player
from bot.domain import EventRow, GameStatus
from scoring.errors import ScoringError
from scoring.notation import Table, format_record, parse_record, stake_text
from scoring.rules import RULES_VERSION, Rules, format_option, stored_rules, with_option
from scoring.sheet import Game
from scoring.voting import Threshold


@dataclass(slots=True)
class RecordItem:
    """A record of the log: its event's seq (its id), the line in force, author, time, fate."""

    seq: int
    kind: Kind
    line: str
    author: int | None
    at: datetime
    old_lines: tuple[str, ...] = ()  # lines it had before edits (a tuple: most records have none)
    undone: bool = False
    seat: int | None = None  # the writer's seat, when the writer plays
    vote: int | None = None  # the vote that inserted it (a late deal) or wrote it (a penalty)
    votes: tuple[int, ...] = ()  # the votes that corrected it, in order
    change: tuple[str, str] | None = None  # (option, value): a rule changed mid-game


@dataclass(slots=True)
class Vote:
    seq: int
    event: ev.Proposed  # the opening event
    author: int | None
    at: datetime
    ballots: dict[int, bool] = field(default_factory=dict)  # user id → yes (the latest cast)
    usernames: dict[int, str | None] = field(default_factory=dict)  # user id → @username then
    closed: bool = False
    passed: bool | None = None
    reason: ev.CloseReason | None = None
    referred: ev.ReferReason | None = None  # waiting for the arbiter
    message_id: int | None = None  # the chat message that shows it
    decided_by: int | None = None  # who closed it (the arbiter), None for the bot

    @property
    def kind(self) -> Kind:
        return self.event.KIND

    @property
    def threshold(self) -> Threshold:
        return self.event.threshold

    def ballot(self, voter: Player) -> bool | None:
        for user_id, yes in self.ballots.items():
            if voter.is_user(user_id, self.usernames.get(user_id)):
                return yes
        return None

    @property
    def deadline(self) -> datetime:
        return datetime.fromisoformat(self.event.deadline)


@dataclass(slots=True)
class GameState:
    game_id: int
    chat_id: int = 0  # set by the service when it reads the game
    number: int = 0  # the game's number in its chat (games.number), set with chat_id
    thread_id: int = 0  # its forum topic (0: none), set with chat_id
    status: GameStatus = GameStatus.FORMING
    convention: str = "sochi"
    seats: int = 3
    overrides: dict[str, str] = field(default_factory=dict)
    stake: Fraction | None = None
    dealer_ref: str | None = None
    scorekeeper: Player | None = None
    players: list[Player] = field(default_factory=list)
    rules: Rules | None = None
    first_dealer: int = 0
    items: list[RecordItem] = field(default_factory=list)  # every record ever, in log order
    votes: dict[int, Vote] = field(default_factory=dict)
    arbiter: Player | None = None
    ended_reason: ev.EndReason | None = None
    last_seq: int = 0
    debt_rows: list[EventRow] = field(default_factory=list)  # the debts' events, in log order
    # The whole log, only when read for /history or the export (`archive.read_log`): a kept game
    # holds its records once, not every event's row beside them, so its memory grows by little.
    log: list[EventRow] | None = None
    earlier_names: list[tuple[str, ...]] = field(default_factory=list)  # before each renaming link
    # The corrections a vote passed (their events, in log order), and the seq of the last event
    # that changed a record already written (an undo, an edit, a late deal, a renaming link):
    # what the corrected values on the picture depend on, known without reading the log again.
    corrections: list[ev.DealEdited] = field(default_factory=list)
    revised: int = 0

    def logged(self) -> list[tuple[EventRow, ev.Event]]:
        """The log's rows with their typed events, decoded again (for /history and the export)."""
        if self.log is None:
            raise RuntimeError(f"game {self.game_id}: its log was not read (looks.read_log)")
        return [(row, decode(row.kind, row.payload, row.schema_version)) for row in self.log]

    @property
    def records(self) -> list[RecordItem]:
        """The records in force, in play order (filtered in C: asked several times a command)."""
        return list(filterfalse(attrgetter("undone"), self.items))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    def game(self) -> Game:
        if self.rules is None:
            raise ValueError("the game has not started")
        return Game(self.rules, self.names, self.first_dealer, self.stake)

    def rules_now(self) -> Rules | None:
        """The rules in force: the frozen start with every mid-game change applied in order."""
        if self.rules is None:
            return None
        changes = [item.change for item in self.records if item.change is not None]
        return reduce(lambda rules, change: with_option(rules, *change), changes, self.rules)

    def changed_options(self) -> set[str]:
        return {c[0] for item in self.records if (c := item.change) is not None}

    def seat_of(self, user_id: int | None, username: str | None) -> int | None:
        seats = enumerate(self.players)
        return next((seat for seat, player in seats if player.is_user(user_id, username)), None)

    def is_scorekeeper(self, user_id: int | None) -> bool:
        return self.scorekeeper is not None and self.scorekeeper.user_id == user_id

    def may_record(self, user_id: int | None, username: str | None) -> bool:
        """Players record their deals; the scorekeeper records for everyone (named players)."""
        return self.seat_of(user_id, username) is not None or self.is_scorekeeper(user_id)

    def voters(self) -> list[Player]:
        """Who votes: the players with a Telegram account, and the scorekeeper for named ones."""
        voters = [p for p in self.players if not p.named_only]
        keeper = self.scorekeeper
        if keeper is None or not any(p.named_only for p in self.players):
            return voters
        if not any(v.is_user(keeper.user_id, keeper.username) for v in voters):
            voters.append(keeper)
        return voters

    def open_votes(self, kind: Kind | None = None) -> list[Vote]:
        """Votes not closed (those waiting for the arbiter included)."""
        return [v for v in self.votes.values() if not v.closed and kind in (None, v.kind)]

    def is_arbiter(self, user_id: int | None, username: str | None) -> bool:
        return self.arbiter is not None and self.arbiter.is_user(user_id, username)

    def player_name(self, user_id: int | None) -> str | None:
        """The name of a user as this game knows him (player, scorekeeper, arbiter, voter)."""
        if user_id is None:
            return None
        username = None  # as his latest ballot gave it
        for vote in self.votes.values():
            username = vote.usernames.get(user_id, username)
        for person in (*self.players, self.scorekeeper, self.arbiter):
            if person is not None and person.is_user(user_id, username):
                return person.name
        return None

    def item(self, seq: int) -> RecordItem:
        return next(item for item in self.items if item.seq == seq)

    def link_event(self, account: Player) -> ev.SeatLinked | None:
        """notation.md "Players": the link of this `account`'s `@username` seat, if it is due."""
        if account.user_id is None or not account.username:
            return None
        for seat, player in [*enumerate(self.players), (ev.ARBITER_SEAT, self.arbiter)]:
            if player is None or not player.is_user(None, account.username):  # (no account yet)
                continue
            if any(p.user_id == account.user_id for p in self.players):
                return None  # the account already sits in another seat
            name = player.name
            taken = {p.name.casefold() for i, p in enumerate(self.players) if i != seat}
            if name == player.username and account.name.casefold() not in taken:
                name = account.name
            return ev.SeatLinked(seat, Player(name, account.user_id, player.username))
        return None

    def canonical(self, line: str, lang: str = "en") -> str:
        """A stored record line as it reads now (written with the names before any link)."""
        for names in (self.names, *reversed(self.earlier_names)):
            with suppress(ScoringError):
                return format_record(parse_record(line, Table(names)), self.names, lang=lang)
        return line


def rules_snapshot(rules: Rules) -> dict[str, str]:
    """Every option of the frozen rules as option strings (convention included)."""
    return {f.name: format_option(getattr(rules, f.name)) for f in fields(rules)}


def rules_from_snapshot(snapshot: dict[str, Any], seats: int) -> Rules:
    """The rules a game froze at its start; options missing from an old snapshot take the preset's."""
    options = {k: str(v) for k, v in snapshot["rules"].items() if k != "convention"}
    return stored_rules(snapshot["convention"], seats, options)


def started_event(state: GameState, rules: Rules, first_dealer: int) -> ev.GameStarted:
    stake = stake_text(state.stake) if state.stake is not None else None
    seating = (tuple(state.players), first_dealer, rules.convention, dict(state.overrides))
    return ev.GameStarted(*seating, rules_snapshot(rules), RULES_VERSION, stake)


def fold(game_id: int, events: list[EventRow]) -> GameState:
    state = GameState(game_id)
    for event in events:
        apply(state, event)
    return state


def clone(state: GameState) -> GameState:
    """A copy to fold on that shares nothing mutable with `state`."""
    return replace(
        state,
        overrides=dict(state.overrides),
        players=list(state.players),
        items=list(state.items),
        votes={
            seq: replace(vote, ballots=dict(vote.ballots), usernames=dict(vote.usernames))
            for seq, vote in state.votes.items()
        },
        debt_rows=list(state.debt_rows),
        log=None if state.log is None else list(state.log),
        corrections=list(state.corrections),
    )


def apply(state: GameState, row: EventRow) -> None:
    state.last_seq = row.seq
    if row.kind in ev.DEBT_KINDS:
        state.debt_rows.append(row)
    if state.log is not None:
        state.log.append(row)
    event = decode(row.kind, row.payload, row.schema_version)
    match event:
        case ev.GameCreated() | ev.GameStarted():  # the start sets again what the creation set
            state.convention, state.overrides = event.convention, dict(event.overrides)
            state.stake = Fraction(event.stake) if event.stake else None
            if isinstance(event, ev.GameCreated):
                state.seats, state.dealer_ref = event.seats, event.dealer
                state.scorekeeper = event.scorekeeper
            else:
                state.players = list(event.players)
                state.seats = len(state.players)
                state.first_dealer = event.first_dealer
                snapshot = {"convention": event.convention, "rules": event.rules}
                state.rules = rules_from_snapshot(snapshot, state.seats)
                state.status = GameStatus.PLAYING
        case ev.PlayerJoined():
            state.players.append(event.player)
        case ev.PlayerLeft():
            state.players = [pl for pl in state.players if pl.name != event.name]
        case ev.GameEnded():
            state.status = GameStatus.ENDED
            state.ended_reason = event.reason
        case ev.Dealt() | ev.LastRoundMarked() | ev.Penalized() | ev.RuleChanged():
            item = RecordItem(row.seq, event.KIND, event.line, row.author, row.at)
            before = None
            if isinstance(event, ev.Dealt):
                item.seat, item.vote, before = event.seat, event.vote, event.before
            elif isinstance(event, ev.Penalized):
                item.vote = event.vote
            elif isinstance(event, ev.RuleChanged):
                item.vote, item.change = event.vote, (event.option, event.value)
            if before is None:
                state.items.append(item)
            else:
                index = next(i for i, it in enumerate(state.items) if it.seq == before)
                state.items.insert(index, item)
                state.revised = row.seq
        case ev.DealUndone():
            _own(state, event.target).undone = True
            state.revised = row.seq
        case ev.DealEdited():
            item = _own(state, event.target)
            item.old_lines = (*item.old_lines, item.line)
            item.line = event.line
            state.revised = row.seq
            if event.vote is not None:
                item.votes = (*item.votes, event.vote)
                state.corrections.append(event)
        case ev.VoteCast():
            if row.author is not None:
                vote = state.votes[event.vote]
                vote.ballots[row.author] = event.yes
                vote.usernames[row.author] = event.username
        case ev.VoteReferred():
            state.votes[event.vote].referred = event.reason
        case ev.VoteClosed():
            vote = state.votes[event.vote]
            vote.closed, vote.passed, vote.reason = True, event.passed, event.reason
            vote.decided_by = row.author
            if row.author is not None and event.username:
                vote.usernames.setdefault(row.author, event.username)
        case ev.VotePosted():
            state.votes[event.vote].message_id = event.message_id
        case ev.ArbiterNamed():
            state.arbiter = event.arbiter
        case ev.SeatLinked() if event.seat == ev.ARBITER_SEAT:
            state.arbiter = event.player
        case ev.SeatLinked():
            _link(state, event)
        case ev.DebtOpened() | ev.DebtMarked():
            pass  # settling up is read from the log by `bot.core.ledger`
        case _:
            assert isinstance(event, ev.Proposed), event
            state.votes[row.seq] = Vote(row.seq, event, row.author, row.at)


def _own(state: GameState, seq: int) -> RecordItem:
    """The record `seq` as this state's own copy, to change (records are shared with clones)."""
    index = next(i for i, item in enumerate(state.items) if item.seq == seq)
    item = state.items[index] = copy(state.items[index])
    return item


def _link(state: GameState, event: ev.SeatLinked) -> None:
    """The seat's account is known: its new name is written into the lines read so far."""
    old = state.names
    state.players[event.seat] = event.player
    new = state.names
    if new == old:
        return
    state.earlier_names.append(old)
    state.revised = state.last_seq

    def renamed(line: str) -> str:
        with suppress(ScoringError):
            return format_record(parse_record(line, Table(old)), new)
        return line

    for index, item in enumerate(state.items):
        if item.change is None:
            item = state.items[index] = copy(item)
            item.line = renamed(item.line)
            item.old_lines = tuple(map(renamed, item.old_lines))
    for vote in state.votes.values():  # a vote's record lines are renamed likewise
        shown = vote.event
        if isinstance(shown, ev.CorrectionProposed):
            vote.event = replace(shown, line=renamed(shown.line), old=renamed(shown.old))
        elif isinstance(shown, ev.LateDealProposed):
            vote.event = replace(shown, line=renamed(shown.line))
