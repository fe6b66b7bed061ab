"""A game as a fold of its log: players, frozen rules, the records in force, open votes.

Nothing here is stored; `fold(events)` is run on every command (it is cheap next to a replay).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from fractions import Fraction
from typing import Any

from bot.core.events import RECORD_KINDS, VOTE_KINDS, Kind, PlayerPayload
from bot.storage import EventRow, GameStatus
from scoring.rules import RULES_VERSION, Rules, format_option, rules_for, with_option
from scoring.sheet import Game


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    user_id: int | None = None
    username: str | None = None  # without the @

    @property
    def named_only(self) -> bool:
        """A player without a Telegram account in this game: the scorekeeper acts for him."""
        return self.user_id is None and self.username is None

    def is_user(self, user_id: int | None, username: str | None) -> bool:
        if self.user_id is not None:
            return self.user_id == user_id
        return bool(self.username and username and self.username.lower() == username.lower())

    def payload(self) -> PlayerPayload:
        return {"name": self.name, "user_id": self.user_id, "username": self.username}

    @classmethod
    def of(cls, payload: dict[str, Any]) -> Player:
        return cls(payload["name"], payload.get("user_id"), payload.get("username"))


RULE_CHANGE_PREFIX = "option "  # scoring.notation.format_record of a RuleChange


@dataclass(slots=True)
class RecordItem:
    """A record of the log: its event's seq (its id), the line in force, author, time, fate."""

    seq: int
    kind: Kind
    line: str
    author: int | None
    at: datetime
    old_lines: list[str] = field(default_factory=list)  # lines it had before edits
    edited_at: datetime | None = None
    undone: bool = False
    seat: int | None = None  # the writer's seat, when the writer plays (issue 6)
    vote: int | None = None  # the vote that inserted it (a late deal) or wrote it (a penalty)
    votes: list[int] = field(default_factory=list)  # the votes that corrected it, in order

    @property
    def rule_change(self) -> tuple[str, str] | None:
        """(option, value) when this record is a rule changed mid-game (`option name=value`)."""
        if self.kind is not Kind.DEAL or not self.line.startswith(RULE_CHANGE_PREFIX):
            return None
        name, _, value = self.line.removeprefix(RULE_CHANGE_PREFIX).partition("=")
        return name, value


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
    reason: str | None = None
    referred: str | None = None  # "tie" | "timeout": waiting for the arbiter
    message_id: int | None = None  # the chat message that shows it
    decided_by: int | None = None  # who closed it (the arbiter), None for the bot
    closed_at: datetime | None = None

    @property
    def threshold(self) -> str:
        return str(self.payload.get("threshold", "all"))

    def ballot(self, voter: Player) -> bool | None:
        """The voter's standing vote, if any."""
        for user_id, yes in self.ballots.items():
            if voter.is_user(user_id, self.usernames.get(user_id)):
                return yes
        return None

    @property
    def deadline(self) -> datetime:
        return datetime.fromisoformat(self.payload["deadline"])


@dataclass(slots=True)
class GameState:
    game_id: int
    chat_id: int = 0  # set by the service when it reads the game
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
    ended_reason: str | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    last_seq: int = 0
    log: list[EventRow] = field(default_factory=list)

    # -- derived ----------------------------------------------------------------------------
    @property
    def records(self) -> list[RecordItem]:
        """The records in force, in play order."""
        return [item for item in self.items if not item.undone]

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


def rules_snapshot(rules: Rules) -> dict[str, str]:
    """Every option of the frozen rules as option strings (convention included)."""
    return {f.name: format_option(getattr(rules, f.name)) for f in fields(rules)}


def rules_from_snapshot(snapshot: dict[str, Any], seats: int) -> Rules:
    """The rules a game froze at its start; options missing from an old snapshot take the preset's."""
    options = {k: str(v) for k, v in snapshot["rules"].items() if k != "convention"}
    return rules_for(snapshot["convention"], seats, options)


def fold(game_id: int, events: list[EventRow]) -> GameState:
    state = GameState(game_id)
    for event in events:
        apply(state, event)
    return state


def apply(state: GameState, event: EventRow) -> None:
    p = event.payload
    kind = Kind(event.kind)
    state.last_seq = event.seq
    state.log.append(event)
    if kind is Kind.GAME_CREATED:
        state.convention = p["convention"]
        state.seats = p["seats"]
        state.overrides = dict(p["overrides"])
        state.stake = Fraction(p["stake"]) if p.get("stake") else None
        state.dealer_ref = p.get("dealer")
        state.scorekeeper = Player.of(p["scorekeeper"]) if p.get("scorekeeper") else None
        state.created_at = event.at
    elif kind is Kind.PLAYER_JOINED:
        state.players.append(Player.of(p["player"]))
    elif kind is Kind.PLAYER_LEFT:
        state.players = [pl for pl in state.players if pl.name != p["name"]]
    elif kind is Kind.GAME_STARTED:
        state.players = [Player.of(pl) for pl in p["players"]]
        state.seats = len(state.players)
        state.first_dealer = p["first_dealer"]
        state.convention = p["convention"]
        state.overrides = dict(p["overrides"])
        state.stake = Fraction(p["stake"]) if p.get("stake") else None
        state.rules = rules_from_snapshot(p, state.seats)
        state.status = GameStatus.PLAYING
        state.started_at = event.at
    elif kind is Kind.GAME_ENDED:
        state.status = GameStatus.ENDED
        state.ended_reason = p["reason"]
    elif kind in RECORD_KINDS:
        item = RecordItem(event.seq, kind, p["line"], event.author, event.at)
        item.seat = p.get("seat")
        item.vote = p.get("vote")
        before = p.get("before")
        if before is None:
            state.items.append(item)
        else:
            index = next(i for i, it in enumerate(state.items) if it.seq == before)
            state.items.insert(index, item)
    elif kind is Kind.DEAL_UNDONE:
        state.item(p["target"]).undone = True
    elif kind is Kind.DEAL_EDITED:
        item = state.item(p["target"])
        item.old_lines.append(item.line)
        item.line = p["line"]
        item.edited_at = event.at
        if p.get("vote") is not None:
            item.votes.append(p["vote"])
    elif kind in VOTE_KINDS:
        state.votes[event.seq] = Vote(event.seq, kind, dict(p), event.author, event.at)
    elif kind is Kind.VOTE_CAST:
        if event.author is not None:
            vote = state.votes[p["vote"]]
            vote.ballots[event.author] = bool(p["yes"])
            vote.usernames[event.author] = p.get("username")
    elif kind is Kind.VOTE_REFERRED:
        state.votes[p["vote"]].referred = p["reason"]
    elif kind is Kind.VOTE_CLOSED:
        vote = state.votes[p["vote"]]
        vote.closed = True
        vote.passed = bool(p["passed"])
        vote.reason = p.get("reason")
        vote.decided_by = event.author
        vote.closed_at = event.at
        if event.author is not None and p.get("username"):
            vote.usernames.setdefault(event.author, p["username"])
    elif kind is Kind.VOTE_POSTED:
        state.votes[p["vote"]].message_id = p["message_id"]
    elif kind is Kind.ARBITER_NAMED:
        state.arbiter = Player.of(p["arbiter"]) if p.get("arbiter") else None


def started_payload(state: GameState, rules: Rules, first_dealer: int) -> dict[str, Any]:
    return {
        "players": [p.payload() for p in state.players],
        "first_dealer": first_dealer,
        "convention": rules.convention,
        "overrides": dict(state.overrides),
        "rules": rules_snapshot(rules),
        "rules_version": RULES_VERSION,
        "stake": str(state.stake) if state.stake is not None else None,
    }
