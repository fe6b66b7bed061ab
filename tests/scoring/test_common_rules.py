"""conventions.md §1: the common ground of every convention."""

from fractions import Fraction

import pytest

from scoring.deal import GAME_VALUE, OBLIGATION, obligation, remise_price, whist_price
from scoring.errors import IllegalDeal
from scoring.rules import PRESETS, rules_for
from tests.scoring.engine import (
    A,
    B,
    C,
    D,
    contract,
    half,
    make_game,
    misere,
    pas,
    play,
    raspasy,
    vist,
)


def test_section_1_game_values_and_obligations() -> None:
    """§1 table: value 2/4/6/8/10 and obligation 4/2/1/1/1 for 6–10."""
    assert GAME_VALUE == {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
    assert OBLIGATION == {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}


def test_unchecked_ten_has_no_obligation() -> None:
    assert obligation(rules_for("sochi", 3, {"ten_whisted": "false"}), 10) == 0
    assert obligation(rules_for("sochi", 3), 10) == 1


def test_both_defenders_pass_counts_the_game_made_and_nothing_else() -> None:
    """§1.1.1 пас-пас: pool += v, nothing else."""
    sheet = play(make_game("sochi"), contract(C, 7, 0, pas(A), pas(B)))
    assert sheet.totals.pool == (0, 0, 4)
    assert sheet.totals.mountain == (0, 0, 0)
    assert all(w == 0 for row in sheet.totals.whists for w in row)


@pytest.mark.parametrize(("level", "tricks"), [(6, 2), (7, 1)])
def test_half_whist_writes_half_the_obligation(level: int, tricks: int) -> None:
    """§1.1.2: the half-whister writes p × obligation/2 (6 → 2 tricks, 7 → 1); the passer nothing."""
    game = make_game("sochi")
    sheet = play(game, contract(C, level, 0, pas(A), half(B)))
    assert sheet.totals.pool[C] == GAME_VALUE[level]
    assert sheet.totals.whists[B][C] == tricks * whist_price(game.rules, level)
    assert sheet.totals.whists[A][C] == 0


def test_one_whister_made_writes_all_the_sides_tricks() -> None:
    """§1.1.3: one whister, declarer made: whister writes p × T, the passer's tricks included."""
    sheet = play(make_game("sochi"), contract(C, 6, 0, vist(A), pas(B)))
    assert sheet.totals.whists[A][C] == 4 * 2
    assert sheet.totals.whists[B][C] == 0


def test_lone_whister_short_answers_for_the_whole_side_obligation() -> None:
    """§1.1.3 responsibility: a 10 made against a lone whister costs him p × r for the trick he owed."""
    sochi = play(make_game("sochi"), contract(C, 10, 0, vist(A), pas(B)))
    assert sochi.totals.mountain[A] == 10  # full: p = 10
    leningrad = play(make_game("leningrad"), contract(C, 10, 0, vist(A), pas(B)))
    assert leningrad.totals.mountain[A] == 10  # half of p = 20


def test_two_whisters_on_a_six_each_answer_for_his_half_once_the_side_is_short() -> None:
    """§1.1.3: 6: 3 + 0 → the second is 2 short; 4 + 0 → nobody pays."""
    short = play(make_game("sochi"), contract(C, 6, 1, vist(A, 3), vist(B, 0)))
    assert short.totals.mountain[:2] == (0, 2 * 2)
    made_by_side = play(make_game("sochi"), contract(C, 6, 0, vist(A, 4), vist(B, 0)))
    assert made_by_side.totals.mountain == (0, 0, 0)


def test_whist_requirement_each_charges_a_short_half_even_when_the_side_made_it() -> None:
    sheet = play(
        make_game("sochi", whist_requirement="each"), contract(C, 6, 0, vist(A, 4), vist(B, 0))
    )
    assert sheet.totals.mountain[B] == 2 * 2


def test_whist_requirement_together_charges_the_side_shortfall_to_the_second_whister() -> None:
    sheet = play(
        make_game("sochi", whist_requirement="together"), contract(C, 6, 1, vist(A, 3), vist(B, 0))
    )
    assert sheet.totals.mountain[:2] == (0, 1 * 2)


def test_two_whisters_on_an_eight_the_second_answers_for_the_side() -> None:
    """§1.1.3: two whisters on 8/9/10 — the second clockwise from the declarer answers."""
    sheet = play(make_game("sochi"), contract(A, 8, 2, vist(B, 0), vist(C, 0)))
    assert sheet.totals.mountain == (0, 0, 6)


def test_failed_declarer_means_no_responsibility() -> None:
    sheet = play(make_game("sochi"), contract(C, 6, -1, vist(A, 5), vist(B, 0)))
    assert sheet.totals.mountain[:2] == (0, 0)


def test_misere_clean_goes_to_the_pool_and_a_trick_to_the_mountain() -> None:
    """§1.1.4: t = 0 → pool 10; else mountain t × misere_price; no whists."""
    clean = play(make_game("leningrad"), misere(A, 0))
    assert clean.totals.pool[A] == 10
    failed = play(make_game("leningrad"), misere(A, 2))
    assert failed.totals.mountain[A] == 2 * 20
    assert all(w == 0 for row in failed.totals.whists for w in row)


def test_misere_consolation_option() -> None:
    sheet = play(make_game("moscow", misere_consolation=True), misere(A, 2))
    assert sheet.totals.whists[B][A] == sheet.totals.whists[C][A] == 2 * 10


def test_misere_consolation_is_written_by_a_three_player_dealer_who_defends() -> None:
    """With three players the dealer plays: he is a defender like the other."""
    sheet = play(make_game("sochi", misere_consolation=True), misere(B, 1))  # A deals
    assert sheet.totals.whists[A][B] == sheet.totals.whists[C][B] == 10


def test_misere_consolation_four_players_dealer_follows_consolation_dealer() -> None:
    on = play(make_game("sochi", size=4, misere_consolation=True), misere(B, 1))
    assert [on.totals.whists[s][B] for s in (A, C, D)] == [10, 10, 10]
    off = play(
        make_game("sochi", size=4, misere_consolation=True, consolation_dealer=False), misere(B, 1)
    )
    assert [off.totals.whists[s][B] for s in (A, C, D)] == [0, 10, 10]


def test_three_down_concession_costs_three_undertricks_and_no_whists() -> None:
    """§1.1.5: «без трёх»: mountain += 3 × remise_price."""
    game = make_game("leningrad")
    sheet = play(game, contract(A, 7, 0, three_down=True))
    assert sheet.totals.mountain[A] == 3 * remise_price(game.rules, 7) == 24


def test_three_down_where_the_convention_forbids_it_is_an_error() -> None:
    with pytest.raises(IllegalDeal) as err:
        play(make_game("russian"), contract(A, 7, 0, three_down=True))
    assert err.value.code == "three-down-not-allowed"


def test_four_player_dealer_writes_consolation_too() -> None:
    """§1.1.3: in a 4-player game the dealer writes the consolation (Кодекс 3.8.1.2)."""
    sheet = play(make_game("sochi", size=4), contract(B, 6, -1, vist(C), pas(D), size=4, dealer=A))
    assert sheet.totals.whists[A][B] == 2
    assert sheet.totals.whists[D][B] == 2
    assert sheet.totals.whists[C][B] == 5 * 2 + 2


def test_four_player_dealer_in_play_is_an_error() -> None:
    with pytest.raises(IllegalDeal) as err:
        play(make_game("sochi", size=4), contract(A, 6, 0, vist(B), pas(C), size=4, dealer=A))
    assert err.value.code == "dealer-in-play"
    assert err.value.params["record"] == "0"


def test_dealer_rotates_clockwise_after_every_deal_raspasy_included() -> None:
    game = make_game("sochi", size=4)
    sheet = play(
        game,
        contract(B, 6, 0, pas(C), pas(D), size=4),
        raspasy((C, 2), (D, 3), (A, 5)),
    )
    assert [r.dealer for r in sheet.records] == [A, B]
    assert sheet.next_dealer == C


def test_raspasy_progression_sochi_1_2_3_3_and_reset() -> None:
    """§1.2: arithmetic progression capped at 3; any other deal resets the series."""
    deal = raspasy((A, 1), (B, 1), (C, 8))
    sheet = play(make_game("sochi"), deal, deal, deal, deal)
    assert [r.raspasy_step for r in sheet.records] == [1, 2, 3, 4]
    assert sheet.totals.mountain == (1 + 2 + 3 + 3, 9, 8 * 9)
    again = play(make_game("sochi"), deal, contract(A, 6, 0, pas(B), pas(C)), deal)
    assert again.totals.mountain[C] == 8 + 8


def test_raspasy_progression_leningrad_2_4_6_6() -> None:
    """§2: Leningrad raspasy 2 / arithmetic / 3 (2-4-6-6…)."""
    deal = raspasy((A, 1), (B, 1), (C, 8))
    sheet = play(make_game("leningrad"), deal, deal, deal, deal)
    assert sheet.totals.mountain[A] == 2 + 4 + 6 + 6


def test_raspasy_geometric_progression() -> None:
    deal = raspasy((A, 1), (B, 1), (C, 8))
    sheet = play(make_game("sochi", raspasy_progression="geometric"), deal, deal, deal, deal)
    assert sheet.totals.mountain[A] == 1 + 2 + 4 + 4


def test_raspasy_zero_bonus_pool_price_is_the_current_price() -> None:
    """§1.2 raspasy_zero = pool_price (Кодекс): pool += price_k."""
    deal = raspasy((A, 0), (B, 2), (C, 8))
    sheet = play(make_game("sochi"), deal, deal)
    assert sheet.totals.pool[A] == 1 + 2


def test_raspasy_zero_mountain_off() -> None:
    sheet = play(
        make_game("leningrad", raspasy_zero="mountain_off"), raspasy((A, 0), (B, 2), (C, 8))
    )
    assert sheet.totals.mountain[A] == -2


def test_raspasy_exit_is_a_warning_only() -> None:
    game = make_game("leningrad")
    deal = raspasy((A, 1), (B, 1), (C, 8))
    sheet = play(game, deal, deal, contract(A, 6, 0, pas(B), pas(C)))
    assert sheet.records[-1].warnings == ("raspasy-exit",)
    assert sheet.totals.pool[A] == 2


def test_help_gives_the_excess_to_the_largest_open_pool_for_ten_whists_a_point() -> None:
    """§1.3 overflow=help: excess into the largest open pool, 10 × pool_to_mountain whists a point."""
    game = make_game("sochi", pool_target=4)
    sheet = play(
        game,
        contract(A, 7, 0, pas(B), pas(C)),  # A 4: closed
        contract(B, 6, 0, pas(A), pas(C)),  # B 2
        contract(A, 7, 0, pas(B), pas(C)),  # A helps B with 2 (to 4), then C with 2
    )
    assert sheet.totals.pool == (4, 4, 2)
    assert sheet.totals.whists[A][B] == 20
    assert sheet.totals.whists[A][C] == 20
    assert sheet.closed_pools == frozenset({A, B})


def test_help_with_every_pool_closed_is_written_off_the_own_mountain() -> None:
    game = make_game("sochi", pool_target=2)
    sheet = play(
        game,
        contract(A, 6, 0, pas(B), pas(C)),
        contract(B, 6, 0, pas(A), pas(C)),
        contract(C, 7, 0, pas(A), pas(B)),  # C 2 closed, 2 left, nobody open → own mountain −2
    )
    assert sheet.totals.mountain[C] == -2
    assert sheet.finished


def test_own_mountain_overflow_leningrad_writes_the_excess_off_times_two() -> None:
    """§1.3 own_mountain (Кодекс 4.1.1): × pool_to_mountain, even below zero."""
    sheet = play(make_game("leningrad", pool_target=4), contract(A, 8, 0, pas(B), pas(C)))
    assert sheet.totals.pool[A] == 4
    assert sheet.totals.mountain[A] == -4


def test_a_deal_after_the_end_is_an_error_but_an_adjustment_is_not() -> None:
    from scoring.deal import Adjust, Column

    game = make_game("sochi", pool_target=2)
    end = [contract(s, 6, 0, pas((s + 1) % 3), pas((s + 2) % 3)) for s in (A, B, C)]
    with pytest.raises(IllegalDeal) as err:
        play(game, *end, contract(A, 6, 0, pas(B), pas(C)))
    assert err.value.code == "game-finished"
    sheet = play(game, *end, Adjust(A, Column.MOUNTAIN, Fraction(3)))
    assert sheet.totals.mountain[A] == 3


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_scores_a_made_six_into_the_declarers_pool(name: str) -> None:
    sheet = play(make_game(name), contract(A, 6, 0, vist(B), pas(C)))
    assert sheet.totals.pool[A] == 2
