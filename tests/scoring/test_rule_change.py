"""conventions.md §1.4: a rule changed mid-game is a record like any other, from the next record on."""

from fractions import Fraction

import pytest

from scoring.deal import Adjust, Column, RuleChange
from scoring.errors import IllegalDeal, OptionError
from scoring.notation import Table, format_protocol, format_record, parse_protocol, parse_record
from scoring.settle import settle
from tests.scoring.engine import A, B, C, contract, make_game, pas, play, vist

TABLE = Table(("Anna", "Boris", "Clara"))


def test_a_rule_change_reads_and_prints_as_option_name_value() -> None:
    change = parse_record("option pool_target=30", TABLE)
    assert change == RuleChange("pool_target", "30")
    assert format_record(change, TABLE.players) == "option pool_target=30"
    assert parse_record("/deal правило whist_split=gentleman", TABLE) == RuleChange(
        "whist_split", "gentleman"
    )


def test_a_rule_change_value_is_exactly_as_written_in_the_spec() -> None:
    """conventions.md §2.1: "Values are exactly as written here … names lower-case. Any other name
    or value is an error" — `Gentleman` is refused (it was once read as `gentleman`)."""
    with pytest.raises(OptionError) as err:
        parse_record("/deal правило whist_split=Gentleman", TABLE)
    assert (err.value.code, err.value.params["option"]) == ("bad-option-value", "whist_split")


@pytest.mark.parametrize(
    "line", ["option colour=red", "option whist_split=kind", "option convention=x"]
)
def test_an_unknown_option_or_value_is_refused_with_an_example(line: str) -> None:
    with pytest.raises(OptionError) as err:
        parse_record(line, TABLE)
    assert err.value.example == "option pool_target=30"


def test_a_change_holds_from_the_next_record_and_the_sheet_reports_the_rules_now() -> None:
    game = make_game("sochi", pool_target=4)
    before = play(game, contract(A, 7, 0, pas(B), pas(C)))
    assert before.closed_pools == frozenset({A})
    sheet = play(game, RuleChange("pool_target", "10"), contract(A, 7, 0, pas(B), pas(C)))
    assert sheet.totals.pool[A] == 4
    assert sheet.rules.pool_target == 10
    assert sheet.game.rules.pool_target == 4  # the frozen start stays in the game
    assert sheet.records[0].number == 0  # not a deal: no number, no dealer rotation
    assert sheet.next_dealer == 1


def test_a_whist_split_change_scores_later_deals_under_the_new_rule() -> None:
    game = make_game("sochi")
    failed = contract(C, 6, -1, vist(A), pas(B))
    sheet = play(game, failed, RuleChange("whist_split", "gentleman"), failed)
    assert sheet.totals.whists[A][C] == (5 * 2 + 2) + 7  # greedy, then half of 5×2 + 2 + 2
    assert sheet.totals.whists[B][C] == 2 + 7


def test_settlement_uses_the_pool_target_in_force_at_the_end() -> None:
    game = make_game("sochi", pool_target=4)
    sheet = play(game, RuleChange("pool_target", "10"))
    settlement = settle(sheet.rules, sheet.totals)
    assert sum(settlement.balances) == 0
    assert settlement.mountains == (0, 0, 0)  # every pool is 10 short: the carry cancels out


def test_a_protocol_file_carries_a_mid_game_change_and_writes_it_back() -> None:
    text = (
        "# convention: sochi\n# players: Anna Boris Clara\n# pool: 10\n"
        "Anna 6♠ = vist:Boris pass:Clara\noption pool_target=20\nBoris 7♥ = pass:Clara pass:Anna\n"
    )
    protocol = parse_protocol(text)
    records = [r for _, r in protocol.records]
    assert records[1] == RuleChange("pool_target", "20")
    again = parse_protocol(format_protocol(protocol.game(), records))
    assert [r for _, r in again.records] == records
    assert [r.dealer for r in play(protocol.game(), *records).records] == [0, None, 1]


def test_notation_errors_an_option_line_after_the_game_has_ended_is_refused() -> None:
    """notation.md "Errors": "a deal or an `option` line after the game has ended" — refused like
    a deal after the end (Sochi to 2: three made sixes close every pool, the end rule is met)."""
    game = make_game("sochi", pool_target=2)
    sixes = [contract(s, 6, 0, pas((s + 1) % 3), pas((s + 2) % 3)) for s in (A, B, C)]
    assert play(game, *sixes).finished
    with pytest.raises(IllegalDeal) as err:
        play(game, *sixes, RuleChange("whist_split", "gentleman"))
    assert (err.value.code, err.value.params["record"]) == ("game-finished", "3")
    # An adjustment still may come after the end (notation.md "Adjustments").
    assert play(game, *sixes, Adjust(A, Column.POOL, Fraction(1))).totals.pool[A] == 3


def test_a_mid_game_start_mountain_moves_no_mountain_and_the_sheet_keeps_its_bands() -> None:
    """conventions.md §2.1 `start_mountain`: "everyone's mountain at the start" — changed mid-game
    it moves nothing; Anna's 6♠ down six then writes 6 × 4 = 24 on a mountain that started at 0,
    and the sheet keeps that band although its total equals the new option's value."""
    game = make_game("leningrad")
    sheet = play(
        game,
        RuleChange("start_mountain", "24"),
        contract(A, 6, -6, vist(B), pas(C)),
    )
    assert sheet.totals.mountain == (24, 0, 0)
    band = next(
        v for b, v in sheet.history.items() if b.player == A and b.column is Column.MOUNTAIN
    )
    assert band == ((1, Fraction(24)),)
