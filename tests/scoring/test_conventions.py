"""Every cost table and worked example of conventions.md §3–7 and the seeds, named after its source."""

from fractions import Fraction

import pytest

from scoring.deal import GAME_VALUE, obligation, remise_price, whist_price
from scoring.score import responsibility_factor
from tests.scoring.engine import A, B, C, D, contract, make_game, misere, pas, play, raspasy, vist

# -- §3 Sochi (seed A) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "pool", "per_whist", "per_undertrick", "per_short"),
    [(6, 2, 2, 2, 2), (7, 4, 4, 4, 4), (8, 6, 6, 6, 6), (9, 8, 8, 8, 8), (10, 10, 10, 10, 10)],
)
def test_sochi_seed_a_cost_table(
    level: int, pool: int, per_whist: int, per_undertrick: int, per_short: int
) -> None:
    """§3 / seed A «Запись в пульку и в гору в сочинке»."""
    rules = make_game("sochi").rules
    assert GAME_VALUE[level] == pool
    assert whist_price(rules, level) == per_whist
    assert remise_price(rules, level) == per_undertrick
    assert whist_price(rules, level) * responsibility_factor(rules) == per_short


def test_sochi_seed_a_misere_10_in_pool_10_per_trick() -> None:
    assert play(make_game("sochi"), misere(A, 0)).totals.pool[A] == 10
    assert play(make_game("sochi"), misere(A, 1)).totals.mountain[A] == 10


def test_sochi_seed_a_consolation_example_8_and_6() -> None:
    """§3 seed check: a 6 down one, A 3 and B 2 tricks, both whisting → A 3×2 + 1×2 = 8, B 2×2 + 1×2 = 6."""
    sheet = play(make_game("sochi"), contract(C, 6, -1, vist(A, 3), vist(B, 2)))
    assert sheet.totals.whists[A][C] == 8
    assert sheet.totals.whists[B][C] == 6
    assert sheet.totals.mountain[C] == 2


def test_sochi_greedy_whist_the_passer_writes_only_his_consolation() -> None:
    """Seed A Sochi 3): «вист жлобский»."""
    sheet = play(make_game("sochi"), contract(C, 6, -1, vist(A), pas(B)))
    assert sheet.totals.whists[A][C] == 5 * 2 + 2
    assert sheet.totals.whists[B][C] == 2


# -- §4 Leningrad --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "pool", "per_whist", "per_undertrick", "per_short"),
    [(6, 2, 4, 4, 2), (7, 4, 8, 8, 4), (8, 6, 12, 12, 6), (9, 8, 16, 16, 8), (10, 10, 20, 20, 10)],
)
def test_leningrad_cost_table(
    level: int, pool: int, per_whist: int, per_undertrick: int, per_short: int
) -> None:
    """§4: 6 → 2 in pool, 4 per whist trick, 4 per undertrick, 2 per short trick; … 10 → 10/20/20/10."""
    rules = make_game("leningrad").rules
    assert GAME_VALUE[level] == pool
    assert whist_price(rules, level) == per_whist
    assert remise_price(rules, level) == per_undertrick
    assert whist_price(rules, level) * responsibility_factor(rules) == per_short


def test_leningrad_misere_20_per_trick() -> None:
    assert play(make_game("leningrad"), misere(A, 1)).totals.mountain[A] == 20


def test_leningrad_consolation_is_2v_and_the_dealer_writes_4_on_six_down_one() -> None:
    """§4: consolation per undertrick = 2v: the 4-player dealer's consolation on «6 без 1» is 4."""
    sheet = play(
        make_game("leningrad", size=4), contract(B, 6, -1, vist(C, 3), vist(D, 2), size=4)
    )
    assert sheet.totals.whists[A][B] == 4


def test_leningrad_gentleman_split_on_a_failed_declarer() -> None:
    """§4 gentleman: whister and passer each write half of tricks and both consolations."""
    sheet = play(make_game("leningrad"), contract(C, 7, -1, vist(A), pas(B)))
    total = 4 * 8 + 2 * 8
    assert sheet.totals.whists[A][C] == sheet.totals.whists[B][C] == Fraction(total, 2)


def test_leningrad_consolation_value_option_halves_it() -> None:
    """§8: Leningrad consolation single (`consolation=value`)."""
    sheet = play(
        make_game("leningrad", consolation="value"), contract(C, 6, -1, vist(A, 3), vist(B, 2))
    )
    assert sheet.totals.whists[A][C] == 3 * 4 + 2


def test_gentleman_scope_always_splits_a_made_deal_too_but_not_the_shortfall() -> None:
    """§2.1 gentleman_scope=always: a short whister still answers alone."""
    sheet = play(
        make_game("leningrad", gentleman_scope="always"), contract(C, 6, 1, vist(A), pas(B))
    )
    assert sheet.totals.whists[A][C] == sheet.totals.whists[B][C] == Fraction(3 * 4, 2)
    assert sheet.totals.mountain[A] == 1 * 2
    assert sheet.totals.mountain[B] == 0


# -- §5 Moscow = Rostov (seed A) ----------------------------------------------------------------


def test_moscow_seed_a_consolation_16_and_14() -> None:
    """§5 / seed A «Пример консоляции в московской пульке»: A 3×2 + 10 = 16, B 2×2 + 10 = 14."""
    sheet = play(make_game("moscow"), contract(C, 6, -1, vist(A, 3), vist(B, 2)))
    assert (sheet.totals.whists[A][C], sheet.totals.whists[B][C]) == (16, 14)


def test_moscow_seed_a_gentleman_15_and_15() -> None:
    """§5 / seed A: 6♣, declarer 5 tricks (2 in mountain), whister 5, passer 0 → (5×2+10+10)/2 = 15 each."""
    sheet = play(make_game("moscow"), contract(C, 6, -1, vist(A), pas(B)))
    assert sheet.totals.mountain[C] == 2
    assert (sheet.totals.whists[A][C], sheet.totals.whists[B][C]) == (15, 15)


def test_moscow_seed_a_same_deal_greedy_20_and_10() -> None:
    """§5 / seed A «при жлобском висте»: whister 5×2 + 10 = 20, passer 10."""
    sheet = play(make_game("moscow", whist_split="greedy"), contract(C, 6, -1, vist(A), pas(B)))
    assert (sheet.totals.whists[A][C], sheet.totals.whists[B][C]) == (20, 10)


def test_moscow_is_half_responsible() -> None:
    """Seed A 1): «за подсад на висте в гору пишется половина стоимости игры»."""
    sheet = play(make_game("moscow"), contract(C, 7, 2, vist(A), pas(B)))  # the side took 1 of 2
    assert sheet.totals.mountain[A] == Fraction(4, 2)


@pytest.mark.parametrize(
    ("tricks", "whists", "pool"),
    [
        ((2, 3, 5), {(A, B): 15, (A, C): 25}, (0, 0, 0)),
        ((0, 1, 9), {(A, B): 5, (A, C): 45}, (1, 0, 0)),
        ((1, 1, 8), {(A, C): 20, (B, C): 20}, (0, 0, 0)),
        ((2, 2, 6), {(A, C): 15, (B, C): 15}, (0, 0, 0)),
    ],
    ids=["2-3-5", "0-1-9", "1-1-8", "2-2-6"],
)
def test_moscow_seed_a_raspasy_examples(
    tricks: tuple[int, int, int], whists: dict[tuple[int, int], int], pool: tuple[int, int, int]
) -> None:
    """§5 / seed A «Примеры записи за распасовку в московской пульке»: 5 whists a trick, the fewest writes."""
    sheet = play(make_game("moscow"), raspasy(*zip((A, B, C), tricks, strict=True)))
    written = {
        (w, t): sheet.totals.whists[w][t]
        for w in range(3)
        for t in range(3)
        if sheet.totals.whists[w][t]
    }
    assert written == whists
    assert sheet.totals.pool == pool
    assert sheet.totals.mountain == (0, 0, 0)


def test_moscow_raspasy_zero_zero_ten_both_zero_players_split_and_get_a_pool_point() -> None:
    """§1.2: Moscow 0-0-10: both zero players tie for fewest and each also gets his pool point."""
    sheet = play(make_game("moscow"), raspasy((A, 0), (B, 0), (C, 10)))
    assert sheet.totals.whists[A][C] == sheet.totals.whists[B][C] == 25
    assert sheet.totals.pool == (1, 1, 0)


def test_moscow_raspasy_does_not_progress() -> None:
    """Seed A 5): «распасовка не прогрессирует»."""
    deal = raspasy((A, 2), (B, 3), (C, 5))
    sheet = play(make_game("moscow"), deal, deal, deal)
    assert sheet.totals.whists[A][C] == 3 * 25


def test_moscow_seed_a_four_players_the_dealer_writes_1_into_his_pool_on_raspasy() -> None:
    """Seed A 7): «при игре вчетвером сдатчик пишет единицу в пульку»."""
    sheet = play(make_game("moscow", size=4), raspasy((B, 2), (C, 3), (D, 5)))
    assert sheet.totals.pool == (1, 0, 0, 0)


def test_moscow_seed_a_closing_helps_the_largest_open_pool_2_points_and_20_whists() -> None:
    """§5 / seed A 8): a six with a closed pool → 2 points into that player's pool and 20 whists on him."""
    game = make_game("moscow", pool_target=4)
    sheet = play(
        game,
        contract(A, 7, 0, pas(B), pas(C)),  # A closes at 4
        contract(C, 6, 0, pas(A), pas(B)),  # C 2: the largest open pool
        contract(A, 6, 0, pas(B), pas(C)),  # A helps C
    )
    assert sheet.totals.pool == (4, 0, 4)
    assert sheet.totals.whists[A][C] == 20


def test_rostov_is_moscow() -> None:
    assert make_game("rostov").rules == make_game("moscow").rules


def test_rostov_made_game_mountain_first_option() -> None:
    """§8: Rostov's "won game writes off the mountain first" (`made_game=mountain_first`)."""
    sheet = play(
        make_game("moscow", made_game="mountain_first"),
        contract(A, 6, -1, vist(B, 5), vist(C, 0)),  # A's mountain 2
        contract(A, 7, 0, pas(B), pas(C)),  # 4: 2 off the mountain, 2 into the pool
    )
    assert sheet.totals.mountain[A] == 0
    assert sheet.totals.pool[A] == 2


# -- §6 Odessa finka (seed B) --------------------------------------------------------------------


def test_odessa_seed_b_everyone_starts_with_20_in_the_mountain() -> None:
    """Seed B 2."""
    sheet = play(make_game("odessa"))
    assert sheet.totals.mountain == (20, 20, 20)


def test_odessa_seed_b_made_seven_4_into_pool_4_off_mountain_and_24_whists_for_3_tricks() -> None:
    """Seed B 4: «сыгравший семерик записывает 4 в пулю и списывает 4 с горы … 3 взятки … 24 виста»."""
    sheet = play(make_game("odessa"), contract(C, 7, 0, vist(A), pas(B)))
    assert sheet.totals.pool[C] == 4
    assert sheet.totals.mountain[C] == 16
    assert sheet.totals.whists[A][C] == 24


def test_odessa_seed_b_six_down_one_whister_28_dealer_4_passer_0() -> None:
    """Seed B 5: «При "6 без 1" вистовавший записывает 28 вистов, сдавший 4 виста, пасовавший — ничего»."""
    sheet = play(make_game("odessa", size=4), contract(B, 6, -1, vist(C), pas(D), size=4))
    assert sheet.totals.whists[C][B] == 28
    assert sheet.totals.whists[A][B] == 4
    assert sheet.totals.whists[D][B] == 0


@pytest.mark.parametrize(("level", "down"), [(8, 2), (7, 3)], ids=["8 без 2", "7 без 3"])
def test_odessa_seed_b_whister_96_dealer_24(level: int, down: int) -> None:
    """Seed B 5: «При ремизах "8 без 2" или "7 без 3" вистующий записывает 96 вистов, а сдавший — 24»."""
    sheet = play(make_game("odessa", size=4), contract(B, level, -down, vist(C), pas(D), size=4))
    assert sheet.totals.whists[C][B] == 96
    assert sheet.totals.whists[A][B] == 24
    assert sheet.totals.whists[D][B] == 0


def test_odessa_two_whisters_each_write_own_tricks_and_own_consolation() -> None:
    sheet = play(make_game("odessa"), contract(C, 6, -1, vist(A, 3), vist(B, 2)))
    assert (sheet.totals.whists[A][C], sheet.totals.whists[B][C]) == (3 * 4 + 4, 2 * 4 + 4)


def test_odessa_last_whister_responsible_on_eight() -> None:
    """Seed B 5: «На 8, 9 и 10 ответственный — последний вистующий»; the 10 is whisted."""
    sheet = play(make_game("odessa"), contract(A, 10, 0, vist(B, 0), vist(C, 0)))
    assert sheet.totals.mountain == (10, 20, 20 + 20)


def test_odessa_seed_b_raspasy_2_a_trick_without_progression_zero_into_pool() -> None:
    """Seed B 7: «Распасовка 2-2-2… без прогрессии. За 0 … записывает 2 в пулю»."""
    deal = raspasy((A, 0), (B, 4), (C, 6))
    sheet = play(make_game("odessa"), deal, deal)
    assert sheet.totals.mountain == (20, 20 + 16, 20 + 24)
    assert sheet.totals.pool == (4, 0, 0)


def test_odessa_seed_b_raspasy_zero_with_a_closed_pool_comes_off_the_mountain_then_nowhere() -> (
    None
):
    """Seed B 7: «При закрытой пуле — 2 с горы. При закрытой горе — "на стенку"»."""
    game = make_game("odessa", pool_target=2)
    zero = raspasy((A, 0), (B, 4), (C, 6))
    sheet = play(game, contract(A, 6, 0, pas(B), pas(C)), zero)
    assert sheet.totals.pool[A] == 2
    assert sheet.totals.mountain[A] == 20 - 2 - 2


def test_odessa_seed_b_first_closed_mountain_writes_80_each_with_three_players() -> None:
    """Seed B 8: «Первый закрывший гору записывает … по 80 вистов при игре втроем»."""
    game = make_game("odessa", start_mountain=4)
    sheet = play(game, contract(A, 7, 0, pas(B), pas(C)), contract(B, 7, 0, pas(A), pas(C)))
    assert sheet.totals.mountain[:2] == (0, 0)
    assert sheet.totals.whists[A][B] == sheet.totals.whists[A][C] == 80
    assert sheet.totals.whists[B][A] == 0  # paid once


def test_odessa_seed_b_first_closed_mountain_writes_60_each_with_four_players() -> None:
    game = make_game("odessa", size=4, start_mountain=4)
    sheet = play(game, contract(B, 7, 0, pas(C), pas(D), size=4))
    assert [sheet.totals.whists[B][t] for t in (A, C, D)] == [60, 60, 60]


def test_odessa_seed_b_first_closed_pool_writes_120_each() -> None:
    """Seed B 9: «Первый закрывший пулю (40 очков) записывает на остальных по 120 вистов»."""
    game = make_game("odessa", pool_target=4)
    sheet = play(game, contract(A, 7, 0, pas(B), pas(C)))
    assert sheet.totals.whists[A][B] == sheet.totals.whists[A][C] == 120


def test_odessa_seed_b_help_from_a_closed_mountain_goes_to_the_smallest_open_mountain() -> None:
    """Seed B 10: a closed mountain's game points help the smallest open mountain, 20 whists per 2."""
    game = make_game("odessa", start_mountain=2, close_mountain_bonus=0)
    sheet = play(
        game,
        raspasy((A, 0), (B, 1), (C, 9)),  # B 2 + 2 = 4, C 2 + 18 = 20; A's zero: pool +2
        contract(A, 6, 0, pas(B), pas(C)),  # A's mountain 2 → 0
        contract(A, 7, 0, pas(B), pas(C)),  # 4 more: help B (4 → 0) for 40 whists
    )
    assert sheet.totals.mountain == (0, 0, 20)
    assert sheet.totals.whists[A][B] == 40


def test_odessa_seed_b_quick_tricks_in_the_prikup() -> None:
    """Seed B 11: the dealer writes on the declarer whists at the game's price per quick trick."""
    game = make_game("odessa", size=4)
    sheet = play(game, contract(B, 7, 0, vist(C), pas(D), size=4, prikup=3))
    assert sheet.totals.whists[A][B] == 3 * 8


def test_prikup_outside_odessa_is_an_error() -> None:
    from scoring.errors import IllegalDeal

    with pytest.raises(IllegalDeal) as err:
        play(make_game("sochi", size=4), contract(B, 7, 0, vist(C), pas(D), size=4, prikup=1))
    assert err.value.code == "prikup-not-allowed"


def test_odessa_dealer_whist_scores_the_dealer_as_the_lone_whister() -> None:
    """§6: `vist:DEALER pass:X` — the dealer whists, both active defenders write nothing."""
    game = make_game("odessa", size=4)
    sheet = play(game, contract(B, 6, -1, vist(A), pas(C), size=4))
    assert sheet.totals.whists[A][B] == 5 * 4 + 2 * 4
    assert sheet.totals.whists[C][B] == sheet.totals.whists[D][B] == 0


def test_odessa_seed_b_end_after_the_last_round_when_a_pool_is_closed() -> None:
    """Seed B 12: time over → last round from the first dealer; then the game ends with a closed pool."""
    from scoring.deal import LastRound

    game = make_game("odessa", pool_target=4)
    six = [contract(s, 6, 0, pas((s + 1) % 3), pas((s + 2) % 3)) for s in (A, B, C)]
    sheet = play(game, six[0], six[0], LastRound(), six[1])
    assert sheet.closed_pools == frozenset({A})
    assert not sheet.finished  # the last round starts with the first dealer's deal (the 4th)
    sheet = play(game, six[0], six[0], LastRound(), six[1], six[2], six[0])
    assert not sheet.finished
    sheet = play(game, six[0], six[0], LastRound(), six[1], six[2], six[0], six[1])
    assert sheet.finished


# -- §7 Russian preferans (seed C) ---------------------------------------------------------------


def test_russian_seed_c_48_48_48_an_eight_makes_54_and_ends_the_pulka() -> None:
    """Seed C: pools 48/48/48, one plays an eight → 54, the sum reaches 150, the game ends."""
    from scoring.deal import Adjust, Column

    game = make_game("russian")
    start = [Adjust(s, Column.POOL, Fraction(48)) for s in (A, B, C)]
    sheet = play(game, *start, contract(A, 8, 0, pas(B), pas(C)))
    assert sheet.totals.pool == (54, 48, 48)
    assert sheet.finished


def test_russian_records_every_game_in_full_past_50() -> None:
    from scoring.deal import Adjust, Column

    game = make_game("russian")
    sheet = play(game, Adjust(A, Column.POOL, Fraction(48)), contract(A, 9, 0, pas(B), pas(C)))
    assert sheet.totals.pool[A] == 56
    assert not sheet.finished


def test_russian_presets_pulka_50_and_penalties_on() -> None:
    rules = make_game("russian").rules
    assert (rules.pool_target, rules.pool_to_mountain, rules.record_penalties) == (50, 2, True)


def test_obligation_helper_follows_ten_whisted() -> None:
    assert obligation(make_game("odessa").rules, 10) == 1
