"""Entries: the lines a deal writes on the sheet, each with the reason it exists."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from scoring.deal import Column


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
