"""notation.md "Protocol file": any game, scored by the engine, printed with `format_protocol` and
read back, replays to the same sheet and the same balances — every convention, 3 and 4 players,
preset or random options, mid-game `option` lines, extras, adjustments, the last round and
corrections (the record as corrected, its penalties, the superseded line as a comment)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings

from scoring.deal import Record
from scoring.notation import format_protocol, parse_protocol
from scoring.replay import replay, standing
from scoring.settle import settle
from scoring.sheet import Game
from tests.scoring.strategies import protocol_games

Case = tuple[Game, list[Record], dict[int, list[str]]]


@settings(max_examples=150, deadline=None)
@given(protocol_games())
def test_a_random_game_replays_to_the_same_sheet_after_a_protocol_round_trip(case: Case) -> None:
    game, records, comments = case
    sheet = replay(game, records)
    text = format_protocol(game, records, comments)
    protocol = parse_protocol(text)
    again_game = protocol.game()
    assert again_game == game
    again = replay(again_game, [record for _, record in protocol.records])
    assert again == sheet
    stake = game.stake if game.stake is not None else Fraction(1, 10)
    assert settle(again.rules, again.totals, stake) == settle(sheet.rules, sheet.totals, stake)
    assert format_protocol(again_game, [r for _, r in protocol.records], comments) == text


@settings(max_examples=100, deadline=None)
@given(protocol_games())
def test_the_standing_is_what_the_sheet_says(case: Case) -> None:
    """`scoring.replay.standing` (the offline report's fold) gives the sheet's rules, totals,
    deals and end, whatever the game."""
    game, records, _ = case
    sheet = replay(game, records)
    now = standing(game, records)
    assert (now.rules, now.totals, now.deals, now.finished) == (
        sheet.rules,
        sheet.totals,
        sheet.deals,
        sheet.finished,
    )
