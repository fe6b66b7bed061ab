"""The values an option of spec/conventions.md §2.1 may take, one enum an option."""

from __future__ import annotations

from enum import StrEnum


class Responsibility(StrEnum):
    """How much a short whister writes into his mountain per trick he (or his side) owed."""

    FULL = "full"  # p × 1, «ответственный»
    HALF = "half"  # p × ½, «полуответственный»
    NONE = "none"


class ConsolationKind(StrEnum):
    """Consolation per undertrick; an integer option value means a fixed number of whists."""

    PRICE = "price"  # the whist price p
    VALUE = "value"  # the game value v
    NONE = "none"


class WhistSplit(StrEnum):
    """One whister and one passer against a failed declarer (§1.1.3)."""

    GREEDY = "greedy"  # «жлобский»: the whister writes the tricks, the passer only his consolation
    GENTLEMAN = "gentleman"  # «джентльменский»: the two split everything in half


class GentlemanScope(StrEnum):
    REMISE = "remise"  # split only when the declarer failed
    ALWAYS = "always"  # split on every one-whist deal


class WhistRequirement(StrEnum):
    """Two whisters on a six or a seven: who answers for the side's obligation."""

    SIDE_FIRST = "side_first"  # each for his half, once the side is short
    EACH = "each"  # each for his half, always
    TOGETHER = "together"  # the side's shortfall, charged to the second whister


class MadeGame(StrEnum):
    POOL = "pool"
    # Rostov: write off the own mountain first, the rest into the pool
    MOUNTAIN_FIRST = "mountain_first"


class RaspasyFamily(StrEnum):
    MOUNTAIN = "mountain"  # tricks into the own mountain
    WHISTS = "whists"  # Moscow: the player with the fewest tricks writes whists on the others


class Progression(StrEnum):
    NONE = "none"
    ARITHMETIC = "arithmetic"  # ×1, 2, 3 …
    GEOMETRIC = "geometric"  # ×1, 2, 4 …


class RaspasyZero(StrEnum):
    """The bonus of a player who took no trick on raspasy."""

    POOL_PRICE = "pool_price"  # pool += the current trick price (Кодекс)
    POOL_1 = "pool_1"  # pool += 1 (Moscow)
    MOUNTAIN_OFF = "mountain_off"  # mountain −= the current trick price
    NONE = "none"


class Overflow(StrEnum):
    """What happens to pool points past the target (§1.3)."""

    HELP = "help"
    OWN_MOUNTAIN = "own_mountain"
    KEEP = "keep"


class EndRule(StrEnum):
    ALL_CLOSED = "all_closed"
    POOL_SUM = "pool_sum"
    TIME_THEN_FIRST_CLOSED = "time_then_first_closed"


Consolation = ConsolationKind | int
