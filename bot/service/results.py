"""What the service's commands return: values the handlers turn into text, photos and buttons."""

from __future__ import annotations

from dataclasses import dataclass

from bot.service.state import GameState, Player, RecordItem, Vote
from scoring.settle import Settlement
from scoring.sheet import ScoredRecord, Sheet


@dataclass(frozen=True, slots=True)
class Opened:
    state: GameState
    started: bool  # all seats were given: the game is on


@dataclass(frozen=True, slots=True)
class Joined:
    state: GameState
    player: Player
    started: bool


@dataclass(frozen=True, slots=True)
class Left:
    state: GameState
    player: Player


@dataclass(frozen=True, slots=True)
class Recorded:
    """A record taken: a deal (`scored.number` ≥ 1) or the last-round mark (number 0)."""

    state: GameState
    item: RecordItem
    scored: ScoredRecord
    sheet: Sheet
    settlement: Settlement


@dataclass(frozen=True, slots=True)
class Undone:
    state: GameState
    number: int
    line: str
    sheet: Sheet
    settlement: Settlement


@dataclass(frozen=True, slots=True)
class Edited:
    state: GameState
    number: int
    old: str
    scored: ScoredRecord
    sheet: Sheet
    settlement: Settlement


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game as it stands, for /score, /sheet, /history, /rules (`sheet` None before the start)."""

    state: GameState
    sheet: Sheet | None
    settlement: Settlement | None


@dataclass(frozen=True, slots=True)
class Ended:
    state: GameState
    reason: str  # "end_rule" | "agreed" | "cancelled"
    sheet: Sheet | None
    settlement: Settlement | None


@dataclass(frozen=True, slots=True)
class VoteState:
    """A vote after a command touched it; `passed` None while it is open."""

    state: GameState
    vote: Vote
    voters: tuple[Player, ...]
    passed: bool | None
    reason: str | None = None  # why it closed: "certain" | "timeout"
    ended: Ended | None = None  # what a passed end vote did
