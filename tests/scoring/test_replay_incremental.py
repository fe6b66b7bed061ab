"""The resumable replay (issue 12): taking records in pieces, forking, and refused records give
exactly the sheet of one replay of every record, on random games with options changed mid-game."""

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.deal import Adjust, Column, Record
from scoring.errors import ScoringError
from scoring.replay import Replay, replay
from scoring.sheet import Game, Sheet
from tests.scoring.strategies import option_played_games, played_games


def full(game: Game, records: list[Record]) -> Sheet:
    """The reference: a fresh replay of every record, in one go."""
    return Replay(game).advance(records)


@settings(max_examples=120, deadline=None)
@given(option_played_games(), st.data())
def test_advancing_in_pieces_equals_one_replay(
    case: tuple[Game, list[Record]], data: st.DataObject
) -> None:
    game, records = case
    resumed = Replay(game)
    taken = 0
    while taken < len(records):
        step = data.draw(st.integers(1, len(records) - taken))
        sheet = resumed.advance(records[taken : taken + step])
        taken += step
        assert sheet == full(game, records[:taken])
        assert resumed.count == taken
    assert resumed.sheet() == replay(game, records)


@settings(max_examples=80, deadline=None)
@given(played_games(), st.data())
def test_a_fork_leaves_its_origin_as_it_was(
    case: tuple[Game, list[Record]], data: st.DataObject
) -> None:
    game, records = case
    cut = data.draw(st.integers(0, len(records)))
    origin = Replay(game)
    before = origin.advance(records[:cut])
    other = origin.fork()
    other.advance(records[cut:])
    assert origin.sheet() == before == full(game, records[:cut])
    assert other.sheet() == full(game, records)
    # the origin goes on another way: an adjust line instead of the rest
    fix = Adjust(0, Column.MOUNTAIN, 3)
    assert origin.advance([fix]) == full(game, [*records[:cut], fix])
    assert other.sheet() == full(game, records)


@settings(max_examples=80, deadline=None)
@given(played_games(), st.data())
def test_a_refused_record_changes_nothing(
    case: tuple[Game, list[Record]], data: st.DataObject
) -> None:
    game, records = case
    cut = data.draw(st.integers(0, len(records)))
    resumed = Replay(game)
    resumed.advance(records[:cut])
    bad = records[cut:] + records  # replayed again past the end, some deal is refused
    try:
        replay(game, [*records[:cut], *bad])
    except ScoringError as expected:
        try:
            resumed.advance(bad)
        except ScoringError as err:
            assert (err.code, err.params) == (expected.code, expected.params)
        else:
            raise AssertionError("the resumed replay took what the full one refused")
    else:
        resumed.advance(bad)
        resumed = Replay(game)
        resumed.advance(records[:cut])
    assert resumed.sheet() == full(game, records[:cut])


@settings(max_examples=80, deadline=None)
@given(option_played_games())
def test_the_sheet_knows_a_help_entry_as_the_records_show_it(
    case: tuple[Game, list[Record]],
) -> None:
    """What the picture's legend reads (`Sheet.helped`) is kept by the replay as it goes, so
    that no picture scans every entry of a long game; it says what the entries say."""
    game, records = case
    resumed = Replay(game)
    for record in records:
        sheet = resumed.advance([record])
        scanned = any(e.reason.value == "help" for r in sheet.records for e in r.entries)
        assert sheet.helped is scanned
