"""The replay: the sheet as a fold of a game's records (spec/conventions.md §1.3). Stub until the engine lands."""

from __future__ import annotations

from collections.abc import Sequence

from scoring.deal import Record
from scoring.sheet import Game, Sheet


def replay(game: Game, records: Sequence[Record]) -> Sheet:
    """The sheet after these records; raises IllegalDeal for a record the game cannot take."""
    raise NotImplementedError
