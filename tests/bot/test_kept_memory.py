"""What a kept game costs in memory: its running totals are held once (the Sheet's own pairs,
shared by every sheet of one replay, one Fraction for each value), and a settlement kept for a
sheet never keeps that sheet (a whole game) alive."""

from __future__ import annotations

import gc
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

import scoring.replay
from bot.core import base
from bot.core.base import settlement
from bot.core.state import GameState
from scoring.deal import Record
from scoring.replay import Replay
from scoring.sheet import Game
from tests.scoring.strategies import played_games


@settings(max_examples=60, deadline=None)
@given(played_games(), st.data())
def test_a_replays_running_totals_are_held_once(
    case: tuple[Game, list[Record]], data: st.DataObject
) -> None:
    game, records = case
    scoring.replay.as_fraction.cache_clear()  # (bounded, and never full within a short game)
    cut = data.draw(st.integers(0, len(records)))
    kept = Replay(game)
    earlier = kept.advance(records[:cut])
    later = kept.advance(records[cut:])
    for band, values in earlier.history.items():
        shared = later.history[band][: len(values)]
        assert all(a is b for a, b in zip(values, shared, strict=True))
    first: dict[Fraction, Fraction] = {}
    for values in later.history.values():
        for _, total in values:
            assert type(total) is Fraction
            assert first.setdefault(total, total) is total  # one object for each value


@settings(max_examples=20, deadline=None)
@given(played_games())
def test_a_kept_settlement_goes_with_its_sheet(case: tuple[Game, list[Record]]) -> None:
    game, records = case
    state = GameState(1, stake=game.stake)
    sheet = Replay(game).advance(records)
    first = settlement(state, sheet)
    assert settlement(state, sheet) is first  # the sender drawing it does not settle it again
    key = id(sheet)
    assert key in base._SETTLED
    del sheet
    gc.collect()
    assert key not in base._SETTLED
