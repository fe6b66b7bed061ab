"""What the picture reads of a sheet: `Drawn`, small enough to hand to another process.

The layout reads a few things of a `Sheet`: the game, the rules, each band's running totals, which
pools are closed, the strip's facts and the balances. `drawn(sheet)` takes exactly those, so that
the picture can be drawn where the sheet is not (`bot.sheet.painter`); everything else of the sheet
(its records, their entries) stays behind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from scoring.deal import Record
from scoring.entries import Reason
from scoring.rules import Rules
from scoring.settle import Settlement, settle
from scoring.sheet import Band, Game, Sheet

History = Mapping[Band, tuple[tuple[int, Fraction], ...]]
"""Each band's running totals, as `Sheet.history` has them: (index in the records, total)."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """A sheet as the picture sees it."""

    game: Game
    rules: Rules  # in force now (`Sheet.rules`)
    history: History
    closed_pools: frozenset[int]
    settlement: Settlement
    finished: bool
    next_dealer: int
    last_round_announced: bool
    last_deal: tuple[int, Record] | None  # the last numbered record, with its number
    helped: bool  # some pool or mountain points were given by another player (the legend)

    @property
    def deals(self) -> int:
        """How many deals (`Sheet.deals`): the last one's number."""
        return self.last_deal[0] if self.last_deal else 0


def extends(old: Sequence[tuple[int, Fraction]], new: Sequence[tuple[int, Fraction]]) -> bool:
    """`new` is a band's `old` totals with totals added: the replay extends a band's tuple and
    shares its entries, so the entry at old's last place being old's own says the two agree
    before it."""
    return 0 < len(old) < len(new) and new[len(old) - 1] is old[-1]


def helped(sheet: Sheet) -> bool:
    """Whether the sheet has a help entry: the replay says so, a sheet made otherwise is read."""
    if sheet.helped is not None:
        return sheet.helped
    return any(e.reason is Reason.HELP for r in sheet.records for e in r.entries)


def drawn(sheet: Sheet, settlement: Settlement | None = None) -> Drawn:
    """What the picture of `sheet` reads; without `settlement` the balances are computed with
    `scoring.settle.settle`."""
    if settlement is None:
        settlement = settle(sheet.rules, sheet.totals, sheet.game.stake)
    last = next(((s.number, s.record) for s in reversed(sheet.records) if s.number), None)
    return Drawn(
        game=sheet.game,
        rules=sheet.rules,
        history=dict(sheet.history),  # a copy: the bands' tuples are what a later sheet extends
        closed_pools=sheet.closed_pools,
        settlement=settlement,
        finished=sheet.finished,
        next_dealer=sheet.next_dealer,
        last_round_announced=sheet.last_round_announced,
        last_deal=last,
        helped=helped(sheet),
    )
