"""What the picture reads of a sheet (`Drawn`): its game, rules, running totals, closed pools,
the strip's facts and the balances; nothing of its records' entries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from scoring.deal import Record
from scoring.entries import Reason
from scoring.rules import Rules
from scoring.settle import Settlement, settle
from scoring.sheet import Band, Game, Sheet

History = Mapping[Band, tuple[tuple[int, Fraction], ...]]  # as `Sheet.history`: (record, total)


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
        history=sheet.history,
        closed_pools=sheet.closed_pools,
        settlement=settlement,
        finished=sheet.finished,
        next_dealer=sheet.next_dealer,
        last_round_announced=sheet.last_round_announced,
        last_deal=last,
        helped=helped(sheet),
    )
