"""conventions.md §2.2 "How the options meet": each ruling, with the minimal games of issue 9."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from scoring.deal import Column
from scoring.errors import IllegalDeal
from scoring.notation import parse_protocol
from scoring.replay import replay
from scoring.score import raspasy_multiplier
from scoring.settle import settle
from scoring.sheet import Reason, Sheet
from tests.scoring.engine import A, B, C, D, contract, make_game, misere, pas, play, raspasy, vist


def protocol_sheet(text: str) -> Sheet:
    protocol = parse_protocol(text)
    return replay(protocol.game(), [record for _, record in protocol.records])


def entries_of(sheet: Sheet, reason: Reason) -> list[tuple[int, Column, Fraction, int | None]]:
    return [
        (e.player, e.column, e.amount, e.target)
        for scored in sheet.records
        for e in scored.entries
        if e.reason is reason
    ]


# -- 1. whists-family raspasy has no progression -------------------------------------------------


@pytest.mark.parametrize(("convention", "price"), [("sochi", 1), ("leningrad", 2), ("russian", 1)])
def test_whists_family_raspasy_has_no_progression(convention: str, price: int) -> None:
    """§2.2: "`raspasy_progression` and `raspasy_cap` apply to the mountain family only" — two
    `рас 2 3 5` in a row under `raspasy=whists`: Anna writes 1 a trick (×price) each time."""
    sheet = protocol_sheet(
        f"# convention: {convention}\n# players: Anna Boris Clara\n"
        "# option: raspasy=whists\nрас 2 3 5\nрас 2 3 5\n"
    )
    assert sheet.totals.whists[A][B] == 2 * 3 * price  # sochi: 6, not 9
    assert sheet.totals.whists[A][C] == 2 * 5 * price  # sochi: 10, not 15
    assert [r.raspasy_step for r in sheet.records] == [1, 2]  # the series still counts


def test_whists_family_zero_bonus_is_never_multiplied() -> None:
    """§2.2: "the whists family's zero bonus is never multiplied" — the third raspasy in a row
    under Sochi's arithmetic progression still gives the base price (1) into the pool."""
    game = make_game("sochi", raspasy="whists")
    two_three_five = raspasy((A, 2), (B, 3), (C, 5))
    sheet = play(game, two_three_five, two_three_five, raspasy((A, 0), (B, 4), (C, 6)))
    assert sheet.records[-1].raspasy_step == 3
    assert entries_of(sheet, Reason.RASPASY_ZERO) == [(A, Column.POOL, Fraction(1), None)]


# -- 2. the Sochi cap where a preset lists none --------------------------------------------------


@pytest.mark.parametrize("convention", ["moscow", "odessa"])
def test_a_progression_switched_on_takes_the_sochi_cap_where_the_preset_lists_none(
    convention: str,
) -> None:
    """§2.1: "Options not listed for a preset take the Sochi value (so a moscow or odessa game that
    switches a raspasy progression on gets the Sochi cap 3)"."""
    game = make_game(
        convention, raspasy="mountain", raspasy_progression="arithmetic", raspasy_price=2
    )
    assert game.rules.raspasy_cap == 3
    assert [raspasy_multiplier(game.rules, k) for k in (1, 2, 3, 4, 5)] == [1, 2, 3, 3, 3]
    deal = raspasy((A, 1), (B, 4), (C, 5))
    sheet = play(game, deal, deal, deal, deal)
    start = game.rules.start_mountain
    assert sheet.totals.mountain[A] == start + 2 * (1 + 2 + 3 + 3)


# -- 3. Odessa's own rules stay on whatever the options say --------------------------------------


def test_odessa_mountain_floor_does_not_depend_on_made_lowers_mountain() -> None:
    """§2.2: "Odessa's own rules stay on in `odessa`, whatever the options say: the mountain never
    goes below 0 (what does not fit goes nowhere, «на стенку»)"."""
    game = make_game(
        "odessa", made_lowers_mountain="false", start_mountain=1, raspasy_zero="mountain_off"
    )
    sheet = play(game, raspasy((A, 0), (B, 4), (C, 6)))
    assert sheet.totals.mountain == (0, 1 + 8, 1 + 12)


def test_outside_odessa_a_mountain_may_go_below_zero() -> None:
    """§2.2: "Outside Odessa a mountain may go below 0 (`raspasy_zero=mountain_off`,
    `overflow=own_mountain`, help off one's own mountain …)"."""
    game = make_game(
        "sochi",
        start_mountain=1,
        raspasy_zero="mountain_off",
        raspasy_price=2,
        raspasy_progression="none",
        made_lowers_mountain="true",
    )
    sheet = play(game, raspasy((A, 0), (B, 4), (C, 6)))
    assert sheet.totals.mountain[A] == -1
    overflowing = make_game("leningrad", pool_target=2)  # own_mountain ×2
    sheet = play(overflowing, contract(A, 7, 0, pas(B), pas(C)))
    assert sheet.totals.mountain[A] == -2 * 2


def test_made_lowers_mountain_stops_at_zero_everywhere_and_helps_with_the_rest() -> None:
    """§2.2: "with one exception: the write-off of `made_lowers_mountain`, wherever it is set,
    stops at 0 and sends the rest as mountain help (§6)"; "Mountain help always pays 10 whists a
    point"."""
    game = make_game("sochi", made_lowers_mountain="true", start_mountain=1)
    sheet = play(game, contract(A, 7, 0, pas(B), pas(C)))  # value 4: 1 off, 3 help Boris (1)…
    assert sheet.totals.mountain == (0, 0, 0)
    assert entries_of(sheet, Reason.HELP_WHISTS) == [
        (A, Column.WHISTS, Fraction(10), B),
        (A, Column.WHISTS, Fraction(10), C),
    ]


@pytest.mark.parametrize("zero", ["pool_price", "pool_1"])
@pytest.mark.parametrize("overflow", ["help", "own_mountain", "keep"])
def test_odessa_zero_fall_backs_apply_on_top_of_every_raspasy_zero_value_and_before_overflow(
    zero: str, overflow: str
) -> None:
    """§2.2: "the raspasy zero fall-backs of §6 (pool closed → off the mountain, down to 0;
    mountain closed too → nowhere) come on top of any `raspasy_zero` value and before the overflow
    rule"."""
    game = make_game(
        "odessa", pool_target=2, raspasy_zero=zero, overflow=overflow, close_pool_bonus=0
    )
    bonus = 2 if zero == "pool_price" else 1
    closed = contract(A, 6, 0, pas(B), pas(C))  # pool 2 (closed), mountain 20 → 18
    sheet = play(game, closed, raspasy((A, 0), (B, 4), (C, 6)))
    assert sheet.totals.pool == (2, 0, 0)
    assert sheet.totals.mountain == (18 - bonus, 20 + 8, 20 + 12)
    assert sheet.totals.whists[A] == (0, 0, 0)  # no help, no bonus


def test_odessa_zero_with_pool_and_mountain_closed_goes_nowhere() -> None:
    """§6 and §2.2: "mountain closed too → nowhere"."""
    game = make_game(
        "odessa", pool_target=2, start_mountain=2, close_pool_bonus=0, close_mountain_bonus=0
    )
    sheet = play(game, contract(A, 6, 0, pas(B), pas(C)), raspasy((A, 0), (B, 4), (C, 6)))
    assert (sheet.totals.pool[A], sheet.totals.mountain[A]) == (2, 0)
    assert entries_of(sheet, Reason.RASPASY_ZERO) == []
    assert sheet.totals.whists[A][B] == sheet.totals.whists[A][C] == 0


@pytest.mark.parametrize(
    ("options", "dealer_writes"),
    [
        ({"whist_split": "gentleman"}, 5 * 4 + 2 * 4),
        ({"whist_split": "gentleman", "gentleman_scope": "always"}, 5 * 4 + 2 * 4),
        ({"passer_consolation_to_whister": "false"}, 5 * 4 + 4),
    ],
)
def test_odessa_dealer_whist_stays_greedy_and_passer_free_whatever_the_options(
    options: dict[str, str], dealer_writes: int
) -> None:
    """§2.2: "the dealer's whist (§6) is always greedy, and both active defenders write nothing,
    whatever `whist_split` says (`passer_consolation_to_whister` still decides whether the whister
    also writes the passer's consolation: 28 or 24 for «6 без 1»)"."""
    game = make_game("odessa", size=4, **options)
    sheet = play(game, contract(B, 6, -1, vist(A), pas(C), size=4))
    assert sheet.totals.whists[A][B] == dealer_writes
    assert sheet.totals.whists[C][B] == sheet.totals.whists[D][B] == 0


def test_the_dealer_whist_is_odessas_own_rule_and_nowhere_else() -> None:
    """§2.1 under the table: "Odessa's own rules (§6) are on only in `odessa`"."""
    from scoring.errors import IllegalDeal

    with pytest.raises(IllegalDeal) as err:
        play(make_game("sochi", size=4), contract(B, 6, -1, vist(A), pas(C), size=4))
    assert err.value.code == "dealer-in-play"


# -- 4. closing a mountain by any write-off counts ------------------------------------------------

ISSUE_9_ODESSA_GAME = (
    Path(__file__).parent.parent
    / "data"
    / "protocols"
    / "odessa_zero_fall_back_closes_the_mountain.txt"
).read_text(encoding="utf-8")


def test_closing_a_mountain_by_the_raspasy_zero_fall_back_counts_as_closing_it() -> None:
    """§2.2: "Closing a mountain by any write-off counts as closing it — the raspasy zero
    fall-back and `made_game=mountain_first` included". Issue 9: preset Odessa, 3 players — Anna
    gets the 80-whist mountain bonus on each opponent; balances 926.67 / −433.33 / −493.33."""
    sheet = protocol_sheet(ISSUE_9_ODESSA_GAME)
    assert sheet.totals.mountain[A] == 0
    assert entries_of(sheet, Reason.CLOSE_MOUNTAIN) == [
        (A, Column.WHISTS, Fraction(80), B),
        (A, Column.WHISTS, Fraction(80), C),
    ]
    balances = settle(sheet.rules, sheet.totals).balances
    assert balances == (Fraction(2780, 3), Fraction(-1300, 3), Fraction(-1480, 3))


def test_closing_a_mountain_by_mountain_first_counts_as_closing_it() -> None:
    """§2.2: "Closing a mountain by any write-off counts as closing it — … `made_game=mountain_first`
    included"; and "`made_game=mountain_first` writes off point for point, whatever
    `pool_to_mountain` is"."""
    game = make_game(
        "sochi",
        made_game="mountain_first",
        start_mountain=2,
        close_mountain_bonus=80,
        pool_to_mountain=2,
    )
    sheet = play(game, contract(A, 7, 0, pas(B), pas(C)))  # value 4: 2 off the mountain, 2 pool
    assert (sheet.totals.mountain[A], sheet.totals.pool[A]) == (0, 2)
    assert entries_of(sheet, Reason.CLOSE_MOUNTAIN) == [
        (A, Column.WHISTS, Fraction(80), B),
        (A, Column.WHISTS, Fraction(80), C),
    ]


def test_a_mountain_closed_by_someones_help_is_never_first() -> None:
    """§2.2: "only a player closed by someone's help is never "first" (§1.3)"."""
    game = make_game("odessa", start_mountain=2, close_mountain_bonus=80)
    sheet = play(game, misere(A, 0))  # 10 off: 2 off Anna, then help Boris 2 and Clara 2
    assert sheet.totals.mountain == (0, 0, 0)
    assert entries_of(sheet, Reason.CLOSE_MOUNTAIN) == [
        (A, Column.WHISTS, Fraction(80), B),
        (A, Column.WHISTS, Fraction(80), C),
    ]  # Anna's own closing only, once


# -- 5. a zero bonus that partly fits; mountain help pays 10 a point ------------------------------


@pytest.mark.parametrize(
    ("overflow", "pool", "mountain", "whists_on_boris"),
    [("help", (3, 1, 0), (0, 8, 12), 10), ("own_mountain", (3, 0, 0), (-1, 8, 12), 0)],
)
def test_a_zero_bonus_that_partly_fits_puts_what_fits_in_the_pool_and_the_rest_through_overflow(
    overflow: str, pool: tuple[int, ...], mountain: tuple[int, ...], whists_on_boris: int
) -> None:
    """§2.2: "A zero bonus that only partly fits an open pool: the part that fits goes into the
    pool, the rest follows the overflow rule like any pool entry"."""
    game = make_game(
        "sochi", pool_target=3, raspasy_price=2, raspasy_progression="none", overflow=overflow
    )
    six = contract(A, 6, 0, pas(B), pas(C))  # Anna's pool 2 of 3: the bonus 2 fits by 1
    sheet = play(game, six, raspasy((A, 0), (B, 4), (C, 6)))
    assert sheet.totals.pool == pool
    assert sheet.totals.mountain == mountain
    assert sheet.totals.whists[A][B] == whists_on_boris


@pytest.mark.parametrize("pool_to_mountain", ["1", "2"])
def test_mountain_help_pays_10_whists_a_point_whatever_pool_to_mountain_is(
    pool_to_mountain: str,
) -> None:
    """§2.2: "Mountain help always pays 10 whists a point (seed B 10: 20 whists for two points);
    `pool_to_mountain` scales pool help and settlement only"."""
    game = make_game(
        "odessa", start_mountain=2, close_mountain_bonus=0, pool_to_mountain=pool_to_mountain
    )
    sheet = play(game, contract(A, 7, 0, pas(B), pas(C)))  # value 4: 2 off, 2 help Boris
    assert sheet.totals.mountain == (0, 0, 2)
    assert sheet.totals.whists[A][B] == 20


def test_pool_help_pays_10_times_pool_to_mountain_whists_a_point() -> None:
    """§2.1 `overflow`: "help pays `10 × pool_to_mountain` whists a point"."""
    game = make_game("sochi", pool_target=2, pool_to_mountain=2)
    sheet = play(game, contract(A, 7, 0, pas(B), pas(C)))  # 2 fit, 2 help Boris
    assert sheet.totals.pool == (2, 2, 0)
    assert sheet.totals.whists[A][B] == 2 * 10 * 2


# -- 9. labels: who helped, and the routed consolation ------------------------------------------


def test_a_help_entry_is_written_on_the_helped_player_and_names_the_helper() -> None:
    """Issue 9 item 9: the help entry is written on the player who receives help, so its reason
    must say who helped («помощь от Саши»): the entry carries the helper as its `source`."""
    game = make_game("sochi", pool_target=2)
    sheet = play(game, contract(A, 7, 0, pas(B), pas(C)))
    (help_entry,) = [e for e in sheet.records[0].entries if e.reason is Reason.HELP]
    assert (help_entry.player, help_entry.source, help_entry.amount) == (B, A, 2)


def test_odessa_passer_consolation_routed_to_the_whister_has_its_own_reason() -> None:
    """§6: "the whister writes `p × T + 2 × u × p` (his own consolation and the passer's)" — the
    second consolation is labelled as the passer's, not as a second identical «консоляция»."""
    game = make_game("odessa")
    sheet = play(game, contract(C, 6, -1, vist(A), pas(B)))
    reasons = [(e.player, e.reason, e.amount) for e in sheet.records[0].entries if e.target]
    assert reasons == [
        (A, Reason.TRICKS, 20),
        (A, Reason.CONSOLATION, 4),
        (A, Reason.PASSER_CONSOLATION, 4),
    ]


@pytest.mark.parametrize(("pool_to_mountain", "off"), [("1", 2), ("2", 4)])
def test_pool_help_with_every_pool_closed_comes_off_the_own_mountain_in_odessa_too(
    pool_to_mountain: str, off: int
) -> None:
    """§2.2: "Pool help with every pool closed is written off the helper's own mountain
    `× pool_to_mountain` (§1.3), in Odessa too (down to 0 there)"."""
    game = make_game(
        "odessa", pool_target=2, close_pool_bonus=0, pool_to_mountain=pool_to_mountain
    )
    sixes = [contract(s, 6, 0, pas((s + 1) % 3), pas((s + 2) % 3)) for s in (A, B, C)]
    sheet = play(game, *sixes, sixes[0])  # every pool closed, then Anna makes another six
    assert sheet.totals.pool == (2, 2, 2)
    assert sheet.totals.mountain[A] == 20 - 2 - 2 - off  # two made sixes, then the overflow
    floored = make_game("odessa", pool_target=2, close_pool_bonus=0, start_mountain=3)
    sheet = play(floored, *sixes, sixes[0])
    assert sheet.totals.mountain[A] == 0  # 3 − 2 by the first six, then 1 of the 2 overflow


def test_adjust_lines_are_written_as_they_stand() -> None:
    """§2.2: "`adjust` lines are written as they stand: no overflow, no bonus, no rotation, not a
    deal" — even Odessa's floor does not touch them."""
    from scoring.deal import Adjust

    game = make_game("odessa", pool_target=2)
    sheet = play(
        game,
        Adjust(A, Column.POOL, Fraction(5)),
        Adjust(B, Column.MOUNTAIN, Fraction(-25)),
    )
    assert sheet.totals.pool[A] == 5
    assert sheet.totals.mountain[B] == -5
    assert sheet.totals.whists == ((0, 0, 0), (0, 0, 0), (0, 0, 0))
    assert (sheet.deals, sheet.next_dealer) == (0, game.first_dealer)


# -- the dealer's whist exists only with 4 players ---------------------------------------------


@pytest.mark.parametrize(
    ("options", "line", "boris", "clara"),
    [
        # The issue's example. p = 2 × 2 = 4, u = 1, T = 10 − 5 = 5, consolation = p = 4: the two
        # write (4 × 5 + 4 + 4) / 2 = 14 each, not the dealer whist's greedy 28 and 0.
        ("whist_split=gentleman", "Anna 6♠ -1 vist:Boris pass:Clara dealer:Boris", 14, 14),
        # gentleman_scope=always on a made six: T = 4, (4 × 4) / 2 = 8 each.
        (
            "whist_split=gentleman\n# option: gentleman_scope=always",
            "Anna 6♠ = vist:Boris pass:Clara dealer:Boris",
            8,
            8,
        ),
        # The dealer passes and keeps his own consolation: Boris 4 × 5 + 4 = 24, Clara 4.
        (
            "passer_consolation_to_whister=false",
            "Anna 6♠ -1 vist:Boris pass:Clara dealer:Clara",
            24,
            4,
        ),
    ],
)
def test_conventions_2_2_three_player_odessa_dealer_is_an_ordinary_defender(
    options: str, line: str, boris: int, clara: int
) -> None:
    """§2.2: "The dealer's whist exists only with 4 players. With 3 players the dealer plays, and
    a defender who is the dealer is an ordinary defender: `whist_split`, `gentleman_scope` and the
    passer's own consolation apply"."""
    sheet = protocol_sheet(
        f"# convention: odessa\n# players: Anna Boris Clara\n# option: {options}\n{line}\n"
    )
    assert sheet.totals.whists[B][A] == boris
    assert sheet.totals.whists[C][A] == clara


def test_conventions_2_2_the_four_player_odessa_dealer_whist_stays_greedy() -> None:
    """§2.2 and §6: with 4 players the dealer's whist is still always greedy — Anna deals and
    whists for Boris's failed six: 4 × 5 + 4 + 4 = 28; the passers write nothing."""
    sheet = protocol_sheet(
        "# convention: odessa\n# players: Anna Boris Clara Dima\n"
        "# option: whist_split=gentleman\nBoris 6♠ -1 vist:Anna pass:Clara\n"
    )
    assert sheet.totals.whists[A][B] == 28
    assert sheet.totals.whists[C][B] == sheet.totals.whists[D][B] == 0


# -- Odessa's zero fall-back is for a pool already closed --------------------------------------


def test_conventions_2_2_odessa_zero_fall_back_is_for_a_pool_already_closed() -> None:
    """§2.2: "A zero bonus that only partly fits a pool still open is split as for any convention
    (the part that fits into the pool, the rest by the overflow rule …), in Odessa too". The
    issue's example: Odessa, pool 4, `raspasy_price=3`."""
    sheet = protocol_sheet(
        "# convention: odessa\n# players: Anna Boris Clara\n# pool: 4\n"
        "# option: raspasy_price=3\n"
        "Anna 6♠ pass:Boris pass:Clara\n"  # pool 2; the made game lowers the mountain 20 → 18
        "рас 0 5 5\n"  # the bonus 3: 2 into Anna's pool (4 of 4), 1 helps Boris
    )
    assert sheet.totals.pool == (4, 1, 0)
    assert sheet.totals.mountain == (18, 20 + 5 * 3, 20 + 5 * 3)  # not 17: nothing off Anna's
    # Anna pays the help 1 × 10 whists, and closed her pool first: 120 on each.
    assert sheet.totals.whists[A] == (0, 120 + 10, 120)
    assert entries_of(sheet, Reason.HELP) == [(B, Column.POOL, Fraction(1), None)]
    # Settlement: pool carry ×1 → mountains 18, 35 + 3, 35 + 4; avg M = (18 + 38 + 39) / 3.
    # Anna −10 × (18 − 95/3) + 250 = 1160/3; Boris −10 × (38 − 95/3) − 130 = −580/3; Clara the same.
    balances = settle(sheet.rules, sheet.totals).balances
    assert balances == (Fraction(1160, 3), Fraction(-580, 3), Fraction(-580, 3))


@pytest.mark.parametrize(
    ("overflow", "pool", "mountain"), [("keep", 5, 18), ("own_mountain", 4, 17)]
)
def test_conventions_2_2_odessa_zero_part_that_does_not_fit_follows_every_overflow_rule(
    overflow: str, pool: int, mountain: int
) -> None:
    """§2.2: the rest "by the overflow rule: help, keep, …" — keep writes the whole 3 (pool 5);
    own_mountain writes the 1 off the own mountain × pool_to_mountain (18 → 17)."""
    sheet = protocol_sheet(
        "# convention: odessa\n# players: Anna Boris Clara\n# pool: 4\n"
        f"# option: raspasy_price=3\n# option: overflow={overflow}\n"
        "Anna 6♠ pass:Boris pass:Clara\nрас 0 5 5\n"
    )
    assert (sheet.totals.pool[A], sheet.totals.mountain[A]) == (pool, mountain)
    assert sheet.totals.pool[B] == 0


# -- prikup:N on a concession is scored ---------------------------------------------------------


def test_conventions_2_2_prikup_on_a_concession_is_scored() -> None:
    """§2.2: "`prikup:N` on a concession is scored: the declarer took the prikup before he
    conceded". The issue's example, 4-player Odessa (concessions allowed): Anna deals; Boris's
    6♠ «без трёх» writes 3 × 4 = 12 into his mountain, and Anna 2 × p = 2 × 4 = 8 whists on him."""
    sheet = protocol_sheet(
        "# convention: odessa\n# players: Anna Boris Clara Dima\n# option: three_down=true\n"
        "Boris 6♠ уход prikup:2\n"
    )
    assert sheet.totals.mountain == (20, 20 + 12, 20, 20)
    assert sheet.totals.whists[A][B] == 8
    assert entries_of(sheet, Reason.PRIKUP) == [(A, Column.WHISTS, Fraction(8), B)]
    assert sum(sum(row) for row in sheet.totals.whists) == 8  # nothing else is written


# -- "first to close" needs a deal's positive entry that reaches the mark ----------------------


def test_conventions_2_2_first_to_close_needs_a_positive_entry_not_an_adjusted_pool() -> None:
    """§2.2: "A 0-point entry (e.g. `made_game=mountain_first` writing the whole game off the
    mountain) pays no bonus; nor does a pool … that reached the mark through an `adjust` line".
    Anna's pool reaches 2 by hand; her six then writes its 2 off her mountain (10 → 8) and 0 into
    the pool: no 120."""
    sheet = protocol_sheet(
        "# convention: sochi\n# players: Anna Boris Clara\n# pool: 2\n"
        "# option: made_game=mountain_first\n# option: close_pool_bonus=120\n"
        "# option: start_mountain=10\n"
        "adjust Anna pool +2\nAnna 6♠ pass:Boris pass:Clara\n"
    )
    assert sheet.totals.pool == (2, 0, 0)
    assert sheet.totals.mountain == (8, 10, 10)
    assert entries_of(sheet, Reason.CLOSE_POOL) == []


def test_conventions_2_2_first_to_close_is_not_paid_for_a_pool_closed_before_the_option() -> None:
    """§2.2: nor does a pool "that reached the mark … before the bonus option was set". Russian
    keeps every pool entry: Anna's pool closes at 2 (no bonus yet), the bonus is set, her next six
    takes it to 4 — no bonus; Boris's six then reaches the mark by a deal's entry: his 50 on each."""
    sheet = protocol_sheet(
        "# convention: russian\n# players: Anna Boris Clara\n# pool: 2\n"
        "Anna 6♠ pass:Boris pass:Clara\n"
        "option close_pool_bonus=50\n"
        "Anna 6♠ pass:Boris pass:Clara\n"
        "Boris 6♠ pass:Clara pass:Anna\n"
    )
    assert sheet.totals.pool == (4, 2, 0)
    assert entries_of(sheet, Reason.CLOSE_POOL) == [
        (B, Column.WHISTS, Fraction(50), C),
        (B, Column.WHISTS, Fraction(50), A),
    ]


def test_conventions_2_2_first_to_close_is_not_paid_for_a_mountain_closed_by_adjust() -> None:
    """§2.2: nor does a "mountain that reached the mark through an `adjust` line": Anna's Odessa
    mountain is set to 0 by hand; her made six has nothing left to write off (its 2 help the
    smallest open mountain, Boris's), and no 80 is paid."""
    sheet = protocol_sheet(
        "# convention: odessa\n# players: Anna Boris Clara\n"
        "adjust Anna mountain -20\nAnna 6♠ pass:Boris pass:Clara\n"
    )
    assert sheet.totals.mountain == (0, 18, 20)
    assert entries_of(sheet, Reason.CLOSE_MOUNTAIN) == []
    assert sheet.totals.whists[A] == (0, 2 * 10, 0)  # mountain help: 10 whists a point


@pytest.mark.parametrize(
    ("convention", "options", "players", "allowed"),
    [
        ("sochi", "prikup_bonus=true", "Anna Boris Clara Dima", True),
        ("odessa", "three_down=false", "Anna Boris Clara Dima", True),
        ("sochi", "three_down=true", "Anna Boris Clara Dima", False),  # prikup_bonus off
        ("odessa", "prikup_bonus=false", "Anna Boris Clara Dima", False),
        ("odessa", "three_down=true", "Anna Boris Clara", False),  # 3 players
    ],
)
def test_notation_prikup_is_allowed_wherever_prikup_bonus_is_on_with_four_players(
    convention: str, options: str, players: str, allowed: bool
) -> None:
    """notation.md: "`prikup:N` (quick tricks, 1–3: only in a 4-player game with `prikup_bonus`
    on …)"; errors: "`prikup` where `prikup_bonus` is off or with 3 players". Boris's made 7♠,
    dealt by Anna: she writes 1 × p = 4 whists on him (Sochi, p = v = 4) or 8 (Odessa, p = 2v)."""
    text = (
        f"# convention: {convention}\n# players: {players}\n# option: {options}\n"
        "Boris 7♠ = vist:Clara pass:Dima prikup:1\n"
        if players.count(" ") == 3
        else f"# convention: {convention}\n# players: {players}\n# option: {options}\n"
        "Boris 7♠ = vist:Clara pass:Anna dealer:Clara prikup:1\n"
    )
    if allowed:
        price = 4 if convention == "sochi" else 8
        assert protocol_sheet(text).totals.whists[A][B] == price
        return
    with pytest.raises(IllegalDeal) as err:
        protocol_sheet(text)
    assert (err.value.code, err.value.span) == ("prikup-not-allowed", "prikup:1")
