"""The score sheet as values, rebuilt from the log by `scoring.replay.replay` every time."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from scoring.deal import Column, Record
from scoring.entries import Entry
from scoring.rules import Rules


@dataclass(frozen=True, slots=True)
class Game:
    """What a game is before any deal: rules (frozen), players in seat order, first dealer, stake."""

    rules: Rules
    players: tuple[str, ...]
    first_dealer: int = 0
    stake: Fraction | None = None  # money per whist

    @property
    def size(self) -> int:
        return len(self.players)


@dataclass(frozen=True, slots=True)
class Band:
    """One column of the paper sheet: a player's pool, mountain, or whists on one target."""

    player: int
    column: Column
    target: int | None = None


@dataclass(frozen=True, slots=True)
class Totals:
    """The sheet's current numbers; `whists[a][b]` is what a wrote on b."""

    pool: tuple[Fraction, ...]
    mountain: tuple[Fraction, ...]
    whists: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True, slots=True)
class ScoredRecord:
    """One record of the log as the sheet took it: its number, dealer and every entry it wrote."""

    number: int  # deals are numbered 1, 2, …; adjustments and the last-round mark get 0
    record: Record
    dealer: int | None
    entries: tuple[Entry, ...]
    raspasy_step: int = 0  # k of the k-th raspasy in a row (0 when not raspasy)
    warnings: tuple[str, ...] = ()  # codes of advice that changes no score (raspasy exit)


@dataclass(frozen=True, slots=True, weakref_slot=True)  # (a settlement is kept by a weak one)
class Sheet:
    game: Game
    records: tuple[ScoredRecord, ...]
    totals: Totals
    # Running totals per band, one value per record that changed it: (index in `records`, total).
    history: dict[Band, tuple[tuple[int, Fraction], ...]] = field(default_factory=dict)
    next_dealer: int = 0
    closed_pools: frozenset[int] = frozenset()
    finished: bool = False
    last_round_announced: bool = False
    # the rules after mid-game changes (RuleChange); None: unchanged
    rules_now: Rules | None = None
    # Whether some pool or mountain points were given by another player (a help entry): the replay
    # knows it as it goes; None (a sheet made otherwise) is read from the records.
    helped: bool | None = None

    @property
    def rules(self) -> Rules:
        """The rules in force now: the game's, with every accepted mid-game change applied."""
        return self.rules_now or self.game.rules

    @property
    def deals(self) -> int:
        return next((scored.number for scored in reversed(self.records) if scored.number), 0)
