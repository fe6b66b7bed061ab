"""The typed events of a game's append-only log, and their JSON payloads both ways."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar, Final, TypeVar, dataclass_transform

from scoring.notation import parse_rule_change
from scoring.voting import Threshold


class Kind(StrEnum):
    """An event row's `kind`; its payload is the typed event's fields (below)."""

    # the game's life
    GAME_CREATED = "game_created"
    PLAYER_JOINED = "player_joined"
    PLAYER_LEFT = "player_left"
    GAME_STARTED = "game_started"
    GAME_ENDED = "game_ended"
    # records: each one becomes a record of the replay
    DEAL = "deal"
    LAST_ROUND = "last_round"
    PENALTY = "penalty"
    # corrections of records
    DEAL_UNDONE = "deal_undone"
    DEAL_EDITED = "deal_edited"
    # votes: the opening event's seq is the vote's id
    END_PROPOSED = "end_proposed"
    CORRECTION_PROPOSED = "correction_proposed"
    LATE_DEAL_PROPOSED = "late_deal_proposed"
    ARBITER_PROPOSED = "arbiter_proposed"
    RULE_CHANGE_PROPOSED = "rule_change_proposed"
    VOTE_CAST = "vote_cast"
    VOTE_REFERRED = "vote_referred"
    VOTE_CLOSED = "vote_closed"
    VOTE_POSTED = "vote_posted"
    ARBITER_NAMED = "arbiter_named"
    SEAT_LINKED = "seat_linked"
    # settling up: what the game's end left owed, and the marks that pay it off
    DEBT_OPENED = "debt_opened"
    DEBT_MARKED = "debt_marked"


VOTE_KINDS: Final = frozenset(kind for kind in Kind if kind.endswith("_proposed"))
RECORD_VOTE_KINDS: Final = frozenset({Kind.CORRECTION_PROPOSED, Kind.LATE_DEAL_PROPOSED})


class EndReason(StrEnum):
    END_RULE = "end_rule"  # the convention's end rule is met
    AGREED = "agreed"  # every player agreed to end early
    ARBITER = "arbiter"  # the arbiter accepted an early end
    CANCELLED = "cancelled"  # the scorekeeper cancelled a forming game


class ReferReason(StrEnum):  # why a vote waits for the arbiter
    TIE = "tie"
    TIMEOUT = "timeout"


class DebtSide(StrEnum):  # who marked a debt: the debtor, or the creditor (which closes it)
    PAID = "paid"
    RECEIVED = "received"


class CloseReason(StrEnum):  # how a vote closed
    CERTAIN = "certain"  # its result could no longer change
    TIMEOUT = "timeout"  # the time was over (rejected)
    ARBITER = "arbiter"  # the arbiter decided
    CANCELLED = "cancelled"  # the game ended under it
    CONFLICT = "conflict"  # it passed, but the log had moved on: nothing changed


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    user_id: int | None = None
    username: str | None = None  # without the @

    @property
    def named_only(self) -> bool:  # no Telegram account in this game: the scorekeeper acts for him
        return self.user_id is None and self.username is None

    def is_user(self, user_id: int | None, username: str | None) -> bool:
        if self.user_id is not None:
            return self.user_id == user_id
        return bool(self.username and username and self.username.lower() == username.lower())

    def is_same(self, other: Player) -> bool:
        """One account, known to either side by its id or by its @username."""
        return self.is_user(other.user_id, other.username) or other.is_user(
            self.user_id, self.username
        )

    def payload(self) -> dict[str, Any]:
        return {"name": self.name, "user_id": self.user_id, "username": self.username}

    @classmethod
    def of(cls, payload: Mapping[str, Any]) -> Player:
        return cls(payload["name"], payload.get("user_id"), payload.get("username"))


# Field names are the JSON keys. `OMIT` names optional keys left out of the JSON when empty (None,
# or False), as version 1 wrote them; `KIND` is the event's kind.
@dataclass(frozen=True, slots=True)
class Event:
    KIND: ClassVar[Kind]
    OMIT: ClassVar[frozenset[str]] = frozenset()


E = TypeVar("E", bound=Event)
_CLASSES: Final[dict[Kind, type[Event]]] = {}  # every typed event by its kind


@dataclass_transform(frozen_default=True)
def event(kind: Kind, *omit: str) -> Callable[[type[E]], type[E]]:
    """An event class of this kind, frozen and with slots (a kept game holds many)."""

    def make(cls: type[E]) -> type[E]:
        cls.KIND, cls.OMIT = kind, frozenset(omit)
        made = dataclass(frozen=True, slots=True)(cls)
        _CLASSES.setdefault(kind, made)  # the first of a kind: a `RuleChanged` is a `deal` too
        return made

    return make


@event(Kind.GAME_CREATED)
class GameCreated(Event):
    convention: str
    seats: int
    overrides: Mapping[str, str]
    stake: str | None  # "p/q"
    dealer: str | None
    scorekeeper: Player | None  # the creator: he records for named players


@event(Kind.PLAYER_JOINED)
class PlayerJoined(Event):
    player: Player


@event(Kind.PLAYER_LEFT)
class PlayerLeft(Event):
    name: str


@event(Kind.GAME_STARTED)
class GameStarted(Event):  # the players in seat order, every option of the rules: all frozen
    players: tuple[Player, ...]
    first_dealer: int
    convention: str
    overrides: Mapping[str, str]
    rules: Mapping[str, str]
    rules_version: int
    stake: str | None


@event(Kind.GAME_ENDED)
class GameEnded(Event):
    reason: EndReason


@event(Kind.DEAL, "seat", "before", "vote")
class Dealt(Event):  # `before`: a late deal inserted before that record by the vote `vote`
    line: str
    before: int | None = None
    vote: int | None = None
    seat: int | None = None


# A rule changed mid-game by the vote `vote` (conventions.md §1.4), stored as a `deal` whose line
# is `option name=value` (the decoder knows it by the engine's parse).
@event(Kind.DEAL, "vote")
class RuleChanged(Event):
    option: str
    value: str
    vote: int | None = None

    @property
    def line(self) -> str:
        return f"option {self.option}={self.value}"


@event(Kind.LAST_ROUND)
class LastRoundMarked(Event):
    line: str  # "last-round"


@event(Kind.PENALTY)
class Penalized(Event):  # a record penalty (Кодекс 4.2.7) by the correction vote `vote`
    line: str
    vote: int
    target: int


@event(Kind.DEAL_UNDONE)
class DealUndone(Event):  # the pencil rule: the writer takes his record back
    target: int
    line: str


@event(Kind.DEAL_EDITED, "vote", "warning")
class DealEdited(Event):  # the pencil rule (no vote) or a passed correction vote
    target: int
    line: str
    old: str
    vote: int | None = None
    warning: bool = False  # the writer's first corrected error: no penalty (4.2.7)


@event(Kind.END_PROPOSED)
class EndProposed(Event):
    threshold: Threshold
    deadline: str  # ISO time


# /dispute; `pencil`: proposed as free, no warning or penalty — a log may hold it, the bot writes
# false (corrections.md 4.2.8: a /dispute is never under the pencil rule).
@event(Kind.CORRECTION_PROPOSED)
class CorrectionProposed(Event):
    target: int
    line: str
    old: str
    threshold: Threshold
    deadline: str
    pencil: bool


@event(Kind.LATE_DEAL_PROPOSED)
class LateDealProposed(Event):
    line: str
    before: int
    threshold: Threshold
    deadline: str


@event(Kind.ARBITER_PROPOSED)
class ArbiterProposed(Event):
    arbiter: Player
    threshold: Threshold
    deadline: str


@event(Kind.RULE_CHANGE_PROPOSED)
class RuleChangeProposed(Event):  # /rule (§1.4); once passed, a `RuleChanged` ends the log
    line: str  # "option name=value"
    old: str  # the value in force then
    threshold: Threshold
    deadline: str


Proposed = (
    EndProposed | CorrectionProposed | LateDealProposed | ArbiterProposed | RuleChangeProposed
)


@event(Kind.VOTE_CAST)
class VoteCast(Event):  # a voter's ballot; a later cast replaces his earlier one
    vote: int
    yes: bool
    username: str | None


@event(Kind.VOTE_REFERRED)
class VoteReferred(Event):
    vote: int
    reason: ReferReason


@event(Kind.VOTE_CLOSED, "username")
class VoteClosed(Event):  # what a passed vote changes follows as events of its own
    vote: int
    passed: bool
    reason: CloseReason
    username: str | None = None


@event(Kind.VOTE_POSTED)
class VotePosted(Event):
    vote: int
    message_id: int  # the chat message that shows the vote (to edit it later)


@event(Kind.ARBITER_NAMED, "vote")
class ArbiterNamed(Event):
    arbiter: Player | None
    vote: int | None = None


ARBITER_SEAT: Final = -1  # `SeatLinked.seat` of the arbiter (not a player): linked like a seat


@event(Kind.SEAT_LINKED)
class SeatLinked(Event):  # an `@username` seat linked to its account on its first act
    seat: int
    player: Player


@event(Kind.DEBT_OPENED)
class DebtOpened(Event):  # one transfer of the settlement at the game's end; seq: the debt's id
    debtor: Player
    creditor: Player
    debtor_seat: int
    creditor_seat: int
    amount: str  # money ("12.50") when `money`, else whists as a fraction ("45/2")
    money: bool


@event(Kind.DEBT_MARKED)
class DebtMarked(Event):
    debt: int
    side: DebtSide


DEBT_KINDS: Final = frozenset({Kind.DEBT_OPENED, Kind.DEBT_MARKED})


SCHEMA_VERSION: Final = 1
"""The events table's `schema_version`: a later version adds a branch to `decode`, never changes 1
(the shape written before the typed log, so no stored event is rewritten)."""

# How a stored value reads back into its field, by the field's annotation as written above (they
# are strings here); a value of any other type is kept as stored.
_READERS: Final[dict[str, Callable[[Any], object]]] = {
    **dict.fromkeys(("Player", "Player | None"), lambda raw: Player.of(raw) if raw else None),
    "tuple[Player, ...]": lambda raw: tuple(map(Player.of, raw)),
    "Mapping[str, str]": lambda raw: {str(k): str(v) for k, v in raw.items()},
    "bool": bool,
    **{enum.__name__: enum for enum in (EndReason, ReferReason, CloseReason, DebtSide, Threshold)},
}


def _json(value: object) -> object:
    if isinstance(value, Player):
        return value.payload()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    if isinstance(value, Mapping):
        return dict(value)
    return value


def encode(event: Event) -> tuple[Kind, dict[str, Any]]:
    values = {f.name: getattr(event, f.name) for f in fields(event)}
    if isinstance(event, RuleChanged):  # a `deal` whose line says the change
        values = {"line": event.line, "vote": event.vote}
    omitted = {name for name in event.OMIT if values[name] is None or values[name] is False}
    return event.KIND, {name: _json(v) for name, v in values.items() if name not in omitted}


class UnknownSchema(ValueError):
    """An event written by a newer bot than this one (its schema_version is unknown)."""


def decode(kind: str, payload: Mapping[str, Any], schema_version: int = SCHEMA_VERSION) -> Event:
    if schema_version != 1:
        raise UnknownSchema(f"event schema {schema_version} (this bot reads 1)")
    which = Kind(kind)
    if which is Kind.DEAL:
        change = parse_rule_change(str(payload["line"]))
        if change is not None:
            return RuleChanged(change.option, change.value, payload.get("vote"))
    cls = _CLASSES[which]
    stored = {"threshold": Threshold.ALL, **payload}  # v1 votes had none: they were unanimous
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in stored:
            read = _READERS.get(str(f.type))
            values[f.name] = stored[f.name] if read is None else read(stored[f.name])
    return cls(**values)
