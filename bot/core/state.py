"""A game as a fold of its log: players, frozen rules, the records in force, open votes.

Nothing here is stored; `fold(events)` is run on every command (it is cheap next to a replay).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from fractions import Fraction
from itertools import filterfalse
from operator import attrgetter
from typing import Any

from bot.core.event_codec import decode
from bot.core.events import (
    ARBITER_SEAT,
    RECORD_VOTE_KINDS,
    ArbiterNamed,
    CloseReason,
    DealEdited,
    Dealt,
    DealUndone,
    DebtMarked,
    DebtOpened,
    EndReason,
    Event,
    GameCreated,
    GameEnded,
    GameStarted,
    Kind,
    LastRoundMarked,
    Penalized,
    Player,
    PlayerJoined,
    PlayerLeft,
    Proposed,
    ReferReason,
    RuleChanged,
    SeatLinked,
    VoteCast,
    VoteClosed,
    VotePosted,
    VoteReferred,
)
from bot.domain import EventRow, GameStatus
from scoring.errors import ScoringError
from scoring.notation import Table, format_record, parse_record
from scoring.protocol import stake_text
from scoring.rules import RULES_VERSION, Rules, format_option, stored_rules, with_option
from scoring.sheet import Game
from scoring.voting import Threshold

__all__ = ["GameState", "Player", "RecordItem", "Vote", "apply", "clone", "fold"]


@dataclass(slots=True)
class RecordItem:
    """A record of the log: its event's seq (its id), the line in force, author, time, fate."""

    seq: int
    kind: Kind
    line: str
    author: int | None
    at: datetime
    old_lines: tuple[str, ...] = ()  # lines it had before edits (a tuple: most records have none)
    edited_at: datetime | None = None
    undone: bool = False
    seat: int | None = None  # the writer's seat, when the writer plays
    vote: int | None = None  # the vote that inserted it (a late deal) or wrote it (a penalty)
    votes: tuple[int, ...] = ()  # the votes that corrected it, in order
    change: tuple[str, str] | None = None  # (option, value): a rule changed mid-game

    @property
    def rule_change(self) -> tuple[str, str] | None:
        """(option, value) when this record is a rule changed mid-game (a `RuleChanged` event)."""
        return self.change


_undone = attrgetter("undone")


@dataclass(slots=True)
class Vote:
    seq: int
    kind: Kind
    payload: dict[str, Any]
    author: int | None
    at: datetime
    ballots: dict[int, bool] = field(default_factory=dict)  # user id → yes (the latest cast)
    usernames: dict[int, str | None] = field(default_factory=dict)  # user id → @username then
    closed: bool = False
    passed: bool | None = None
    reason: CloseReason | None = None
    referred: ReferReason | None = None  # waiting for the arbiter
    message_id: int | None = None  # the chat message that shows it
    decided_by: int | None = None  # who closed it (the arbiter), None for the bot
    closed_at: datetime | None = None
    event: Proposed = field(init=False, repr=False)  # the opening event, typed

    def __post_init__(self) -> None:
        self.event = _proposed(self.kind, self.payload)

    @property
    def threshold(self) -> Threshold:
        return self.event.threshold

    def ballot(self, voter: Player) -> bool | None:
        """The voter's standing vote, if any."""
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
    ended_reason: EndReason | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    last_seq: int = 0
    log: list[EventRow] = field(default_factory=list)
    earlier_names: list[tuple[str, ...]] = field(default_factory=list)  # before each renaming link
    # The corrections a vote passed (their events, in log order), and the seq of the last event
    # that changed a record already written (an undo, an edit, a late deal, a renaming link):
    # what the corrected values on the picture depend on, known without reading the log again.
    corrections: list[DealEdited] = field(default_factory=list)
    revised: int = 0

    # -- derived ----------------------------------------------------------------------------
    def logged(self) -> list[tuple[EventRow, Event]]:
        """The log's rows with their typed events, decoded again: what only `/history` and the
        export read, so that a kept game does not hold every event twice."""
        return [(row, decode(row.kind, row.payload, row.schema_version)) for row in self.log]

    @property
    def records(self) -> list[RecordItem]:
        """The records in force, in play order."""
        return list(filterfalse(_undone, self.items))  # (in C: asked several times a command)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    @property
    def usernames(self) -> tuple[str | None, ...]:
        return tuple(p.username for p in self.players)

    def game(self) -> Game:
        if self.rules is None:
            raise ValueError("the game has not started")
        return Game(self.rules, self.names, self.first_dealer, self.stake)

    def rules_now(self) -> Rules | None:
        """The rules in force: the frozen start with every rule changed mid-game applied in order
        (what `scoring.replay` reports as `Sheet.rules`, without a replay)."""
        rules = self.rules
        if rules is None:
            return None
        for item in self.records:
            change = item.rule_change
            if change is not None:
                rules = with_option(rules, *change)
        return rules

    def changed_options(self) -> set[str]:
        """Options changed mid-game by a vote (the records in force)."""
        return {c[0] for item in self.records if (c := item.rule_change) is not None}

    def seat_of(self, user_id: int | None, username: str | None) -> int | None:
        for seat, player in enumerate(self.players):
            if player.is_user(user_id, username):
                return seat
        return None

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
        """The name of a user as this game knows him: a player, the scorekeeper, the arbiter, or
        someone whose @username a vote of his recorded."""
        if user_id is None:
            return None
        usernames: dict[int, str | None] = {}
        for vote in self.votes.values():
            usernames.update(vote.usernames)
        known = [*self.players, self.scorekeeper, self.arbiter]
        for person in known:
            if person is not None and person.is_user(user_id, usernames.get(user_id)):
                return person.name
        return None

    def item(self, seq: int) -> RecordItem:
        return next(item for item in self.items if item.seq == seq)

    def link_event(
        self, user_id: int | None, username: str | None, first_name: str
    ) -> SeatLinked | None:
        """notation.md "Players": the `@username` seat of this account, not linked yet, linked
        now; it shows `first_name` (the account's, cleaned) unless the seat was given a name or
        another player has that name (a clash keeps the username)."""
        if user_id is None or not username:
            return None
        for seat, player in enumerate(self.players):
            if player.user_id is not None or not player.is_user(None, username):
                continue
            if any(p.user_id == user_id for p in self.players):
                return None  # the account already sits in another seat
            name = player.name
            taken = {p.name.casefold() for i, p in enumerate(self.players) if i != seat}
            if name == player.username and first_name.casefold() not in taken:
                name = first_name
            return SeatLinked(seat, Player(name, user_id, player.username))
        arbiter = self.arbiter
        if arbiter is None or arbiter.user_id is not None or not arbiter.is_user(None, username):
            return None
        if any(p.user_id == user_id for p in self.players):
            return None
        name = arbiter.name
        if name == arbiter.username and first_name.casefold() not in {
            n.casefold() for n in self.names
        }:
            name = first_name
        return SeatLinked(ARBITER_SEAT, Player(name, user_id, arbiter.username))

    def canonical(self, line: str, lang: str = "en") -> str:
        """A stored record line as it reads now: written before a seat was renamed by its link,
        it is read with the names then and printed with today's; `lang` prints Russian role
        words (`scoring.notation.format_record`). A line the engine cannot read stays as it is."""
        for names in (self.names, *reversed(self.earlier_names)):
            try:
                record = parse_record(line, Table(names))
            except ScoringError:
                continue
            return format_record(record, self.names, lang=lang)
        return line


def rules_snapshot(rules: Rules) -> dict[str, str]:
    """Every option of the frozen rules as option strings (convention included)."""
    return {f.name: format_option(getattr(rules, f.name)) for f in fields(rules)}


def rules_from_snapshot(snapshot: dict[str, Any], seats: int) -> Rules:
    """The rules a game froze at its start; options missing from an old snapshot take the preset's."""
    options = {k: str(v) for k, v in snapshot["rules"].items() if k != "convention"}
    return stored_rules(snapshot["convention"], seats, options)


def fold(game_id: int, events: list[EventRow]) -> GameState:
    state = GameState(game_id)
    for event in events:
        apply(state, event)
    return state


def clone(state: GameState) -> GameState:
    """A copy to fold on that shares nothing mutable with `state` (the kept state of a
    live game is advanced by the log's tail, and each command works on its own copy). Events, rows
    and players are frozen and shared; votes are copied; records are shared and copied on write
    (`_own`: folding never changes a `RecordItem` in place), so a clone costs a few list copies."""
    return replace(
        state,
        overrides=dict(state.overrides),
        players=list(state.players),
        items=list(state.items),
        votes={seq: _copy_vote(vote) for seq, vote in state.votes.items()},
        log=list(state.log),
        corrections=list(state.corrections),
    )


def _copy_item(item: RecordItem) -> RecordItem:
    return RecordItem(
        item.seq,
        item.kind,
        item.line,
        item.author,
        item.at,
        item.old_lines,
        item.edited_at,
        item.undone,
        item.seat,
        item.vote,
        item.votes,
        item.change,
    )


def _copy_vote(vote: Vote) -> Vote:
    copy = Vote.__new__(Vote)
    for name in Vote.__slots__:
        setattr(copy, name, getattr(vote, name))
    copy.ballots = dict(vote.ballots)
    copy.usernames = dict(vote.usernames)
    return copy


def apply(state: GameState, row: EventRow) -> None:
    """Fold one stored event into the state (decoded to its typed event first)."""
    state.last_seq = row.seq
    state.log.append(row)
    _apply(state, row, decode(row.kind, row.payload, row.schema_version))


def _apply(state: GameState, row: EventRow, event: Event) -> None:
    match event:
        case GameCreated():
            state.convention = event.convention
            state.seats = event.seats
            state.overrides = dict(event.overrides)
            state.stake = Fraction(event.stake) if event.stake else None
            state.dealer_ref = event.dealer
            state.scorekeeper = event.scorekeeper
            state.created_at = row.at
        case PlayerJoined():
            state.players.append(event.player)
        case PlayerLeft():
            state.players = [pl for pl in state.players if pl.name != event.name]
        case GameStarted():
            state.players = list(event.players)
            state.seats = len(state.players)
            state.first_dealer = event.first_dealer
            state.convention = event.convention
            state.overrides = dict(event.overrides)
            state.stake = Fraction(event.stake) if event.stake else None
            snapshot = {"convention": event.convention, "rules": event.rules}
            state.rules = rules_from_snapshot(snapshot, state.seats)
            state.status = GameStatus.PLAYING
            state.started_at = row.at
        case GameEnded():
            state.status = GameStatus.ENDED
            state.ended_reason = event.reason
        case RuleChanged():
            item = RecordItem(row.seq, Kind.DEAL, event.line, row.author, row.at)
            item.vote, item.change = event.vote, (event.option, event.value)
            state.items.append(item)
        case Dealt() | LastRoundMarked() | Penalized():
            item = RecordItem(row.seq, event.KIND, event.line, row.author, row.at)
            before = None
            if isinstance(event, Dealt):
                item.seat, item.vote, before = event.seat, event.vote, event.before
            elif isinstance(event, Penalized):
                item.vote = event.vote
            if before is None:
                state.items.append(item)
            else:
                index = next(i for i, it in enumerate(state.items) if it.seq == before)
                state.items.insert(index, item)
                state.revised = row.seq
        case DealUndone():
            _own(state, event.target).undone = True
            state.revised = row.seq
        case DealEdited():
            item = _own(state, event.target)
            item.old_lines = (*item.old_lines, item.line)
            item.line = event.line
            item.edited_at = row.at
            state.revised = row.seq
            if event.vote is not None:
                item.votes = (*item.votes, event.vote)
                state.corrections.append(event)
        case VoteCast():
            if row.author is not None:
                vote = state.votes[event.vote]
                vote.ballots[row.author] = event.yes
                vote.usernames[row.author] = event.username
        case VoteReferred():
            state.votes[event.vote].referred = event.reason
        case VoteClosed():
            vote = state.votes[event.vote]
            vote.closed = True
            vote.passed = event.passed
            vote.reason = event.reason
            vote.decided_by = row.author
            vote.closed_at = row.at
            if row.author is not None and event.username:
                vote.usernames.setdefault(row.author, event.username)
        case VotePosted():
            state.votes[event.vote].message_id = event.message_id
        case ArbiterNamed():
            state.arbiter = event.arbiter
        case SeatLinked():
            _link(state, event)
        case DebtOpened() | DebtMarked():
            pass  # settling up is read from the log by `bot.core.ledger`
        case _:
            assert isinstance(event, Proposed), event
            state.votes[row.seq] = Vote(row.seq, event.KIND, dict(row.payload), row.author, row.at)


def _own(state: GameState, seq: int) -> RecordItem:
    """The record `seq` as this state's own copy, to change: records are shared between a kept
    state and its clones (`clone`), so none is ever changed in place."""
    index = next(i for i, item in enumerate(state.items) if item.seq == seq)
    item = state.items[index] = _copy_item(state.items[index])
    return item


def _link(state: GameState, event: SeatLinked) -> None:
    """The seat's account is known from now on; a new name is written into every record line
    and proposed line read so far (the stored rows keep the lines as they were written). The
    arbiter's "seat" names him from now on; no line holds his name."""
    if event.seat == ARBITER_SEAT:
        state.arbiter = event.player
        return
    old = state.names
    state.players[event.seat] = event.player
    if state.names == old:
        return
    state.earlier_names.append(old)
    state.revised = state.last_seq
    for index, item in enumerate(state.items):
        if item.change is None:
            item = state.items[index] = _copy_item(item)
            item.line = _renamed(item.line, old, state.names)
            item.old_lines = tuple(_renamed(line, old, state.names) for line in item.old_lines)
    for vote in state.votes.values():
        for key in ("line", "old"):
            if isinstance(vote.payload.get(key), str) and vote.kind in RECORD_VOTE_KINDS:
                vote.payload[key] = _renamed(vote.payload[key], old, state.names)
        vote.event = _proposed(vote.kind, vote.payload)


def _renamed(line: str, old: tuple[str, ...], new: tuple[str, ...]) -> str:
    try:
        return format_record(parse_record(line, Table(old)), new)
    except ScoringError:
        return line


def _proposed(kind: Kind, payload: dict[str, Any]) -> Proposed:
    event = decode(kind, payload)
    assert isinstance(event, Proposed)
    return event


def started_event(state: GameState, rules: Rules, first_dealer: int) -> GameStarted:
    """The game's start: its players in seat order and every option of the rules, frozen."""
    stake = stake_text(state.stake) if state.stake is not None else None
    return GameStarted(
        tuple(state.players),
        first_dealer,
        rules.convention,
        dict(state.overrides),
        rules_snapshot(rules),
        RULES_VERSION,
        stake,
    )
