"""The kinds of events in a game's append-only log and the JSON payload of each.

A game is its log: `bot.core.state.fold(events)` rebuilds everything else, and the sheet is
`scoring.replay.replay(game, records)` over the records the log leaves in force. Every event row also
carries `author` (Telegram user id, None for the bot) and `at` (UTC); a payload never repeats them.

Players in payloads are `{"name": str, "user_id": int | null, "username": str | null}`; a record is
its canonical notation line (`scoring.notation.format_record`), so the log reads like a protocol file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar, Final, TypedDict

from scoring.notation import parse_rule_change
from scoring.voting import Threshold


class Kind(StrEnum):
    # -- the game's life -------------------------------------------------------------------------
    GAME_CREATED = "game_created"
    """{convention, seats: 3|4, overrides: {option: value}, stake: "p/q"|null, dealer: ref|null,
    scorekeeper: player} — the creator keeps the score for named players."""
    PLAYER_JOINED = "player_joined"  # {player}
    PLAYER_LEFT = "player_left"  # {name}
    GAME_STARTED = "game_started"
    """{players: [player…] in seat order, first_dealer: seat, convention, overrides, rules: {every
    option: value}, rules_version, stake} — the rules frozen for the whole game."""
    GAME_ENDED = "game_ended"  # {reason: "end_rule" | "agreed" | "arbiter" | "cancelled"}

    # -- records (each one becomes a record of the replay) ------------------------------------
    DEAL = "deal"
    """{line, seat?: the writer's seat, before?: seq, vote?: seq} — `before`: a late deal inserted
    before that record by the vote `vote` (Кодекс 4.2.10); a line `option name=value` (with `vote`,
    no author) is a rule changed mid-game by that vote."""
    LAST_ROUND = "last_round"  # {line: "last-round"}
    PENALTY = "penalty"  # {line: "adjust …", vote: seq, target: seq} — a record penalty (4.2.7)

    # -- corrections of records ---------------------------------------------------------------
    DEAL_UNDONE = "deal_undone"  # {target: seq of the record, line} — pencil rule
    DEAL_EDITED = "deal_edited"
    """{target, line, old, vote?: seq, warning?: bool} — the pencil rule (no vote), or a passed
    correction vote; `warning`: the writer's first corrected error (4.2.7, no penalty)."""

    # -- votes: the opening event's seq is the vote's id ------------------------------------
    END_PROPOSED = "end_proposed"  # {threshold: "all", deadline: iso}
    CORRECTION_PROPOSED = "correction_proposed"
    """{target: seq, line, old, threshold: "majority"|"all", deadline, pencil: bool} — /dispute;
    `pencil`: proposed as free (a log may hold it; a /dispute is never under the pencil rule now,
    corrections.md 4.2.8, so the bot writes false)."""
    LATE_DEAL_PROPOSED = "late_deal_proposed"  # {line, before: seq, threshold: "all", deadline}
    ARBITER_PROPOSED = "arbiter_proposed"  # {arbiter: player, threshold: "all", deadline}
    RULE_CHANGE_PROPOSED = "rule_change_proposed"
    """{line: "option name=value", old: the value in force then, threshold: "all", deadline} — /rule
    (conventions.md §1.4); once passed, the line follows as a `deal` {line, vote} at the log's end."""
    VOTE_CAST = "vote_cast"  # {vote: seq, yes: bool, username} — a later cast replaces his
    VOTE_REFERRED = "vote_referred"
    """{vote, reason: "tie" | "timeout"} — the vote waits for the arbiter's decision."""
    VOTE_CLOSED = "vote_closed"
    """{vote: seq, passed: bool, reason: "certain" | "timeout" | "arbiter" | "cancelled" |
    "conflict"}; what a passed vote changes follows as its own events (game_ended, deal_edited
    and penalty, deal, arbiter_named). "conflict": it passed but the log had moved on (the
    record was changed meanwhile, or the engine refuses the result), so nothing changed."""
    VOTE_POSTED = "vote_posted"
    """{vote, message_id} — the chat message showing the vote (technical: to edit it later)."""
    ARBITER_NAMED = "arbiter_named"  # {arbiter: player, vote?: seq}
    SEAT_LINKED = "seat_linked"
    """{seat, player} — an `@username` seat linked to its Telegram account the first time it acted
    in the chat (notation.md "Players"): the player as he is from then on (user id; the account's
    first name unless the seat was named or the name is taken); seat -1 is the arbiter's."""

    # -- settling up: what the game's end left owed, and the marks that pay it off -------------
    DEBT_OPENED = "debt_opened"
    """{debtor: player, creditor: player, debtor_seat, creditor_seat, amount, money: bool} — one
    transfer of the settlement at the game's end (its seq is the debt's id); `amount` is money
    ("12.50") when the game had a stake, else whists ("p/q")."""
    DEBT_MARKED = "debt_marked"
    """{debt: seq, side: "paid" | "received"} — the debtor says he paid, or the creditor says he
    received it (which closes the debt)."""


RECORD_KINDS: Final = frozenset({Kind.DEAL, Kind.LAST_ROUND, Kind.PENALTY})
VOTE_KINDS: Final = frozenset(
    {
        Kind.END_PROPOSED,
        Kind.CORRECTION_PROPOSED,
        Kind.LATE_DEAL_PROPOSED,
        Kind.ARBITER_PROPOSED,
        Kind.RULE_CHANGE_PROPOSED,
    }
)
RECORD_VOTE_KINDS: Final = frozenset({Kind.CORRECTION_PROPOSED, Kind.LATE_DEAL_PROPOSED})


class PlayerPayload(TypedDict):
    name: str
    user_id: int | None
    username: str | None


Payload = dict[str, Any]

SCHEMA_VERSION: Final = 1
"""The payloads' JSON shape (the events table's `schema_version` column). Version 1 is the shape
the service wrote before the typed log; the typed events read and write exactly it, so no stored
event is rewritten. A later version adds a branch to `decode`, never changes this one."""


class EndReason(StrEnum):
    END_RULE = "end_rule"  # the convention's end rule is met
    AGREED = "agreed"  # every player agreed to end early
    ARBITER = "arbiter"  # the arbiter accepted an early end
    CANCELLED = "cancelled"  # the scorekeeper cancelled a forming game


class ReferReason(StrEnum):
    """Why a vote waits for the arbiter."""

    TIE = "tie"
    TIMEOUT = "timeout"


class DebtSide(StrEnum):
    """Who marked a debt: the debtor ("I paid") or the creditor ("received", which closes it)."""

    PAID = "paid"
    RECEIVED = "received"


class CloseReason(StrEnum):
    """How a vote closed."""

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
    def of(cls, payload: Mapping[str, Any]) -> Player:
        return cls(payload["name"], payload.get("user_id"), payload.get("username"))


# -- the typed events: one frozen dataclass per kind --------------------------------------------
# Field names are the JSON keys. `OMIT` names optional keys left out of the JSON when empty (None,
# or False), as version 1 wrote them; `KIND` is the event's kind.


@dataclass(frozen=True, slots=True)
class Event:
    KIND: ClassVar[Kind]
    OMIT: ClassVar[frozenset[str]] = frozenset()


@dataclass(frozen=True, slots=True)
class GameCreated(Event):
    KIND = Kind.GAME_CREATED
    convention: str
    seats: int
    overrides: Mapping[str, str]
    stake: str | None
    dealer: str | None
    scorekeeper: Player | None


@dataclass(frozen=True, slots=True)
class PlayerJoined(Event):
    KIND = Kind.PLAYER_JOINED
    player: Player


@dataclass(frozen=True, slots=True)
class PlayerLeft(Event):
    KIND = Kind.PLAYER_LEFT
    name: str


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    KIND = Kind.GAME_STARTED
    players: tuple[Player, ...]
    first_dealer: int
    convention: str
    overrides: Mapping[str, str]
    rules: Mapping[str, str]
    rules_version: int
    stake: str | None


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    KIND = Kind.GAME_ENDED
    reason: EndReason


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """A deal (`before`: a late deal inserted before that record by the vote `vote`)."""

    KIND = Kind.DEAL
    OMIT = frozenset({"seat", "before", "vote"})
    line: str
    before: int | None = None
    vote: int | None = None
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class RuleChanged(Event):
    """A rule changed mid-game by the vote `vote` (conventions.md §1.4). Stored as a `deal` whose
    line is the engine's `option name=value` — the decoder knows it by the engine's parse."""

    KIND = Kind.DEAL
    option: str
    value: str
    vote: int | None = None

    @property
    def line(self) -> str:
        return f"option {self.option}={self.value}"


@dataclass(frozen=True, slots=True)
class LastRoundMarked(Event):
    KIND = Kind.LAST_ROUND
    line: str


@dataclass(frozen=True, slots=True)
class Penalized(Event):
    """A record penalty (Кодекс 4.2.7) drawn by the correction vote `vote` of record `target`."""

    KIND = Kind.PENALTY
    line: str
    vote: int
    target: int


@dataclass(frozen=True, slots=True)
class DealUndone(Event):
    KIND = Kind.DEAL_UNDONE
    target: int
    line: str


@dataclass(frozen=True, slots=True)
class DealEdited(Event):
    KIND = Kind.DEAL_EDITED
    OMIT = frozenset({"vote", "warning"})
    target: int
    line: str
    old: str
    vote: int | None = None
    warning: bool = False


@dataclass(frozen=True, slots=True)
class EndProposed(Event):
    KIND = Kind.END_PROPOSED
    threshold: Threshold
    deadline: str  # ISO time


@dataclass(frozen=True, slots=True)
class CorrectionProposed(Event):
    """/dispute; `pencil`: proposed as free, no warning or penalty — a log may hold it, the bot
    writes false (corrections.md 4.2.8: a /dispute is never under the pencil rule)."""

    KIND = Kind.CORRECTION_PROPOSED
    target: int
    line: str
    old: str
    threshold: Threshold
    deadline: str
    pencil: bool


@dataclass(frozen=True, slots=True)
class LateDealProposed(Event):
    KIND = Kind.LATE_DEAL_PROPOSED
    line: str
    before: int
    threshold: Threshold
    deadline: str


@dataclass(frozen=True, slots=True)
class ArbiterProposed(Event):
    KIND = Kind.ARBITER_PROPOSED
    arbiter: Player
    threshold: Threshold
    deadline: str


@dataclass(frozen=True, slots=True)
class RuleChangeProposed(Event):
    KIND = Kind.RULE_CHANGE_PROPOSED
    line: str
    old: str
    threshold: Threshold
    deadline: str


Proposed = (
    EndProposed | CorrectionProposed | LateDealProposed | ArbiterProposed | RuleChangeProposed
)
"""An event that opens a vote; its seq is the vote's id."""
RecordVote = CorrectionProposed | LateDealProposed


@dataclass(frozen=True, slots=True)
class VoteCast(Event):
    KIND = Kind.VOTE_CAST
    vote: int
    yes: bool
    username: str | None


@dataclass(frozen=True, slots=True)
class VoteReferred(Event):
    KIND = Kind.VOTE_REFERRED
    vote: int
    reason: ReferReason


@dataclass(frozen=True, slots=True)
class VoteClosed(Event):
    KIND = Kind.VOTE_CLOSED
    OMIT = frozenset({"username"})
    vote: int
    passed: bool
    reason: CloseReason
    username: str | None = None


@dataclass(frozen=True, slots=True)
class VotePosted(Event):
    KIND = Kind.VOTE_POSTED
    vote: int
    message_id: int


@dataclass(frozen=True, slots=True)
class ArbiterNamed(Event):
    KIND = Kind.ARBITER_NAMED
    OMIT = frozenset({"vote"})
    arbiter: Player | None
    vote: int | None = None


ARBITER_SEAT: Final = -1  # `SeatLinked.seat` of the arbiter (not a player): linked like a seat


@dataclass(frozen=True, slots=True)
class SeatLinked(Event):
    KIND = Kind.SEAT_LINKED
    seat: int
    player: Player


@dataclass(frozen=True, slots=True)
class DebtOpened(Event):
    KIND = Kind.DEBT_OPENED
    debtor: Player
    creditor: Player
    debtor_seat: int
    creditor_seat: int
    amount: str  # money ("12.50") when `money`, else whists as a fraction ("45/2")
    money: bool


@dataclass(frozen=True, slots=True)
class DebtMarked(Event):
    KIND = Kind.DEBT_MARKED
    debt: int
    side: DebtSide


DEBT_KINDS: Final = frozenset({Kind.DEBT_OPENED, Kind.DEBT_MARKED})

_CLASSES: Final[dict[Kind, type[Event]]] = {
    cls.KIND: cls
    for cls in (
        GameCreated,
        PlayerJoined,
        PlayerLeft,
        GameStarted,
        GameEnded,
        Dealt,
        LastRoundMarked,
        Penalized,
        DealUndone,
        DealEdited,
        EndProposed,
        CorrectionProposed,
        LateDealProposed,
        ArbiterProposed,
        RuleChangeProposed,
        VoteCast,
        VoteReferred,
        VoteClosed,
        VotePosted,
        ArbiterNamed,
        SeatLinked,
        DebtOpened,
        DebtMarked,
    )
}
_ENUMS: Final[dict[str, type[StrEnum]]] = {"threshold": Threshold, "side": DebtSide}
_REASONS: Final[dict[Kind, type[StrEnum]]] = {
    Kind.GAME_ENDED: EndReason,
    Kind.VOTE_REFERRED: ReferReason,
    Kind.VOTE_CLOSED: CloseReason,
}
_PLAYERS: Final = frozenset({"player", "arbiter", "scorekeeper", "debtor", "creditor"})


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


def encode(event: Event) -> tuple[Kind, Payload]:
    """The event's kind and its JSON payload (version `SCHEMA_VERSION`)."""
    if isinstance(event, RuleChanged):
        payload: Payload = {"line": event.line}
        if event.vote is not None:
            payload["vote"] = event.vote
        return Kind.DEAL, payload
    payload = {}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name in event.OMIT and (value is None or value is False):
            continue
        payload[f.name] = _json(value)
    return event.KIND, payload


class UnknownSchema(ValueError):
    """An event written by a newer bot than this one (its schema_version is unknown)."""


def decode(kind: str, payload: Mapping[str, Any], schema_version: int = SCHEMA_VERSION) -> Event:
    """The typed event of a stored row. Every version ever written reads; keys a version did not
    write take their defaults (v1 votes without a threshold were unanimous)."""
    if schema_version != 1:
        raise UnknownSchema(f"event schema {schema_version} (this bot reads 1)")
    which = Kind(kind)
    if which is Kind.DEAL:
        change = parse_rule_change(str(payload["line"]))
        if change is not None:
            return RuleChanged(change.option, change.value, payload.get("vote"))
    cls = _CLASSES[which]
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in payload:
            if f.name == "threshold":
                values[f.name] = Threshold.ALL
            continue
        raw = payload[f.name]
        if f.name in _PLAYERS:
            values[f.name] = Player.of(raw) if raw else None
        elif f.name == "players":
            values[f.name] = tuple(Player.of(p) for p in raw)
        elif f.name == "reason":
            values[f.name] = _REASONS[which](raw)
        elif f.name in _ENUMS:
            values[f.name] = _ENUMS[f.name](raw)
        elif f.name in ("overrides", "rules"):
            values[f.name] = {str(k): str(v) for k, v in raw.items()}
        elif f.name in ("yes", "passed", "pencil", "warning", "money"):
            values[f.name] = bool(raw)
        else:
            values[f.name] = raw
    return cls(**values)
