"""The score sheet as values, each entry with its reason; the replay rebuilds it from the log."""

from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from scoring.deal import Column, Record
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


class Reason(StrEnum):
    """Why an entry exists; the locales name each one (`reason-<value>`)."""

    GAME = "game"  # a made game into the pool
    GAME_OFF_MOUNTAIN = "game-off-mountain"  # a made game off the own mountain (Odessa, Rostov)
    REMISE = "remise"  # the declarer's undertricks
    MISERE = "misere"  # tricks of a failed misère
    THREE_DOWN = "three-down"  # «без трёх»
    TRICKS = "tricks"  # whists for the defence's tricks
    CONSOLATION = "consolation"
    PASSER_CONSOLATION = "passer-consolation"  # Odessa: the passer's consolation, by the whister
    HALF_WHIST = "half-whist"
    RESPONSIBILITY = "responsibility"  # a whister short of the obligation
    GENTLEMAN = "gentleman"  # the halves of a gentleman split
    RASPASY = "raspasy"
    RASPASY_ZERO = "raspasy-zero"
    RASPASY_DEALER = "raspasy-dealer"  # the 4-player dealer's pool point (Moscow)
    PRIKUP = "prikup"  # Odessa quick tricks in the prikup
    HELP = "help"  # pool or mountain points another player (`source`) gave this one
    HELP_WHISTS = "help-whists"  # the whists the helper writes for it
    OVERFLOW = "overflow"  # pool points past the target written off the own mountain
    CLOSE_MOUNTAIN = "close-mountain"  # Odessa: first closed mountain
    CLOSE_POOL = "close-pool"  # Odessa: first closed pool
    ADJUST = "adjust"


@dataclass(frozen=True, slots=True)
class Entry:
    """`player` writes `amount` into his `column`; whists, and only whists, on a `target`."""

    player: int
    column: Column
    amount: Fraction
    reason: Reason
    target: int | None = None
    source: int | None = None  # help only: who gave it


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
