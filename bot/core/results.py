"""What the service's commands return: values the handlers turn into text, photos and buttons."""

from fractions import Fraction
from typing import NamedTuple

from bot.core.events import CloseReason, EndReason, ReferReason
from bot.core.ledger import Debt
from bot.core.state import GameState, Player, Vote
from bot.domain import ChatSettings
from scoring.deal import Adjust
from scoring.settle import Settlement
from scoring.sheet import ScoredRecord, Sheet


class Arrival(NamedTuple):
    """What an update is read with: whether it was handled before, its chat's settings now."""

    seen: bool
    chat: ChatSettings


class Opened(NamedTuple):
    state: GameState
    started: bool  # all seats were given: the game is on
    locale: str | None = None  # the chat's language now (a new group takes the opener's)


class Joined(NamedTuple):
    state: GameState
    player: Player
    started: bool


class Left(NamedTuple):
    state: GameState
    player: Player


class Recorded(NamedTuple):
    """A record taken: a deal (`scored.number` ≥ 1) or the last-round mark (number 0)."""

    state: GameState
    scored: ScoredRecord
    sheet: Sheet
    settlement: Settlement


class Undone(NamedTuple):
    state: GameState
    number: int
    line: str
    sheet: Sheet
    settlement: Settlement


class Edited(NamedTuple):
    state: GameState
    number: int
    old: str
    scored: ScoredRecord
    sheet: Sheet
    settlement: Settlement


class Snapshot(NamedTuple):
    """A game as it stands, for /score, /sheet, /history, /rules (`sheet` None before the start)."""

    state: GameState
    sheet: Sheet | None
    settlement: Settlement | None


class Ended(NamedTuple):
    state: GameState
    reason: EndReason
    sheet: Sheet | None
    settlement: Settlement | None
    debts: tuple[Debt, ...] = ()  # the debts its end opened (one per transfer)


class Proposal(NamedTuple):
    """What a vote on a record would change: the record and every balance, before and after."""

    number: int  # the deal's number (a late deal: the number it would take)
    old: ScoredRecord | None  # None for a late deal
    new: ScoredRecord
    before: tuple[Fraction, ...]  # balances in whists, seat order
    after: tuple[Fraction, ...]
    writer: str | None = None  # who wrote the disputed record
    warning: bool = False  # if it passes: the writer's first corrected error, free (4.2.7)
    penalty: tuple[Adjust, ...] = ()  # if it passes: the penalty entries on the writer (4.2.7)


class Applied(NamedTuple):
    """What a passed vote on a record did: the record as it stands now, penalties, the sheet."""

    number: int
    old: str | None  # the line it replaced; None for an inserted late deal
    scored: ScoredRecord
    sheet: Sheet
    settlement: Settlement
    penalties: tuple[ScoredRecord, ...] = ()  # the penalty entries written on the writer
    warning: str | None = None  # the writer warned for his first corrected error
    writer: str | None = None


class VoteState(NamedTuple):
    """A vote after a command touched it; `passed` None while it is open (or with the arbiter)."""

    state: GameState
    vote: Vote
    voters: tuple[Player, ...]
    passed: bool | None
    reason: CloseReason | ReferReason | None = None  # why it closed, or went to the arbiter
    ended: Ended | None = None  # what a passed end vote did
    proposal: Proposal | None = None  # what a vote on a record would change
    applied: Applied | None = None  # what a passed vote on a record did
    chat_id: int | None = None  # set by the background closing of votes

    @property
    def referred(self) -> bool:
        return self.passed is None and self.vote.referred is not None


class Exported(NamedTuple):
    """/export: the protocol file (notation.md) and the JSON event log of a game."""

    state: GameState
    protocol: str
    events: str
