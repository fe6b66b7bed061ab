"""Whole games: one per convention and table size, against numbers worked out by hand (issue 3).

Each game is a protocol file in tests/data/games/ (spec/notation.md "Protocol file"). The comment
above each test works the game out deal by deal from spec/conventions.md and spec/settlement.md —
every deal's entries, the running totals, help and overflow, then the settlement steps — without
the engine. The test parses the file, replays it and settles it, and compares the final pool,
mountain, whists, end of game and balances with those hand-worked numbers.

Notation in the comments: seats A, B, C, D (Anna, Boris, Clara, Dima); "dA" = Anna deals; XY = the
whists X writes on Y (W[X][Y]); pool and mountain totals are listed A/B/C(/D); T = the defending
side's tricks, u = the declarer's undertricks, p = the whist price.
"""

from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from scoring.notation import parse_protocol
from scoring.settle import Settlement, settle
from scoring.sheet import Sheet
from tests.scoring.test_replay_properties import check_invariants

GAMES = Path(__file__).parent.parent / "data" / "games"
F = Fraction


class Outcome(NamedTuple):
    """What a finished game's file comes to: its deals, totals, carried mountains and balances."""

    deals: int
    pool: tuple[Fraction | int, ...]
    mountain: tuple[Fraction | int, ...]
    whists: tuple[tuple[Fraction | int, ...], ...]
    mountains: tuple[Fraction | int, ...]
    balances: tuple[Fraction | int, ...]


def play(name: str) -> tuple[Sheet, Settlement]:
    """Parse tests/data/games/<name>.pref, replay its records and settle the final sheet."""
    protocol = parse_protocol((GAMES / f"{name}.pref").read_text(encoding="utf-8"))
    game = protocol.game()
    records = [record for _, record in protocol.records]
    sheet = check_invariants(game, records)  # every property of a random game holds here too
    return sheet, settle(game.rules, sheet.totals, protocol.stake)


def play_file(name: str) -> Outcome:
    """The outcome of a game file, which must be finished."""
    sheet, result = play(name)
    assert sheet.finished
    totals = sheet.totals
    return Outcome(
        sheet.deals, totals.pool, totals.mountain, totals.whists, result.mountains, result.balances
    )


def test_every_game_file_states_its_source_and_has_twenty_deals() -> None:
    """Issue 3: a whole game per convention and table size, at least 20 deals each."""
    files = sorted(GAMES.glob("*.pref"))
    assert [f.stem for f in files] == sorted(
        f"{convention}_{size}_players"
        for convention in ("sochi", "leningrad", "moscow", "odessa", "russian")
        for size in (3, 4)
    )
    for path in files:
        convention, size, _ = path.stem.split("_")
        text = path.read_text(encoding="utf-8")
        assert text.startswith(f"# source: hand-worked game for {convention}, {size} players\n")
        sheet, _ = play(path.stem)
        assert sheet.deals >= 20
        assert len(sheet.game.players) == int(size)


# -- Sochi ---------------------------------------------------------------------------------------


def test_whole_game_sochi_3_players() -> None:
    """conventions.md §1.1 (every deal kind, greedy whist, responsibility), §1.2 (raspasy
    progression 1-2-3-3 and the zero bonus), §1.3 (help, then the own mountain), §3; settlement.md.
    """
    # Sochi to 10: p = v (6→2, 7→4, 8→6, 9→8, 10→10); remise v a trick; consolation v a trick
    # from each defender; greedy whist; full responsibility (p a short trick); raspasy 1 a trick
    # ×1, ×2, ×3, ×3 …, zero tricks → pool += that price; help at 10 whists a pool point.
    #
    #  1 dA  A 6 =, B vist, C pass: T = 4.  A pool +2; BA 2×4 = 8.
    #        pool 2/0/0     mountain 0/0/0       BA 8
    #  2 dB  B 7 −1, C vist, A pass: T = 4, u = 1.  B mountain +4; greedy: CB 4×4 + 4 = 20,
    #        the passer A only his consolation, AB 4.
    #        pool 2/0/0     mountain 0/4/0       AB 4, CB 20
    #  3 dC  C 6 +1, A vist 3, B vist 0: the side took 3 < 4, so each answers for 2 against his own
    #        tricks: B is 2 short → B mountain +2×2 = 4.  C pool +2; AC 3×2 = 6; BC 0.
    #        pool 2/0/2     mountain 0/8/0       AC 6
    #  4 dA  B 6 +2, C vist, A pass: T = 2, the lone whister C is 4 − 2 = 2 short → C mountain
    #        +2×2 = 4.  B pool +2; CB 2×2 = 4.
    #        pool 2/2/2     mountain 0/8/4       CB 24
    #  5 dB  raspasy #1, 1 a trick: A 3, B 5, C 2.
    #        pool 2/2/2     mountain 3/13/6
    #  6 dC  raspasy #2, 2 a trick: A 0 → pool +2; B 4 → +8; C 6 → +12.
    #        pool 4/2/2     mountain 3/21/18
    #  7 dA  raspasy #3, 3 a trick: A 2 → +6; B 2 → +6; C 6 → +18.
    #        pool 4/2/2     mountain 9/27/36
    #  8 dB  raspasy #4, capped at 3 a trick: A 1 → +3; B 9 → +27; C 0 → pool +3.
    #        pool 4/2/5     mountain 12/54/36
    #  9 dC  A 9 −2, B vist 1, C vist 2: A mountain +2×8 = 16; BA 1×8 + 2×8 = 24;
    #        CA 2×8 + 2×8 = 32.
    #        pool 4/2/5     mountain 28/54/36    BA 32, CA 32
    # 10 dA  C misère with 2 tricks: C mountain +2×10 = 20.
    #        pool 4/2/5     mountain 28/54/56
    # 11 dB  A 6 «без трёх»: A mountain +3×2 = 6, no whists.
    #        pool 4/2/5     mountain 34/54/56
    # 12 dC  B 7 −2, A vist, C pass: T = 5, u = 2.  B mountain +2×4 = 8; AB 5×4 + 2×4 = 28;
    #        CB 2×4 = 8.
    #        pool 4/2/5     mountain 34/62/56    AB 32, CB 32
    # 13 dA  A 7, B pass, C half-whist: counted made, A pool +4; C writes for 1 trick: CA 4.
    #        pool 8/2/5     mountain 34/62/56    CA 36
    # 14 dB  raspasy #1 (deal 9 ended the series): A 5, B 1, C 4.
    #        pool 8/2/5     mountain 39/63/60
    # 15 dC  B 6, C pass, A half-whist: B pool +2; A writes for 2 tricks: AB 2×2 = 4.
    #        pool 8/4/5     mountain 39/63/60    AB 36
    # 16 dA  C 6 −1, A vist, B pass: T = 5.  C mountain +2; AC 5×2 + 2 = 12; BC 2.
    #        pool 8/4/5     mountain 39/63/62    AC 18, BC 2
    # 17 dB  A 10 −1, B vist, C pass: T = 1.  A mountain +10; BA 1×10 + 10 = 20; CA 10.
    #        pool 8/4/5     mountain 49/63/62    BA 52, CA 46
    # 18 dC  B clean misère: pool +10, B has room for 6 → B 10, closed.  The other 4 help
    #        (§1.3): the largest open pool is A's 8 → A +2 (closed), BA +20; then C's 5 → C +2,
    #        BC +20.
    #        pool 10/10/7   mountain 49/63/62    BA 72, BC 22
    # 19 dA  C 6, pass-pass: C pool +2.
    #        pool 10/10/9   mountain 49/63/62
    # 20 dB  raspasy #1: A 2, B 3, C 5.
    #        pool 10/10/9   mountain 51/66/67
    # 21 dC  C 7 −1, A vist 2, B vist 2: C mountain +4; AC 2×4 + 4 = 12; BC 2×4 + 4 = 12.
    #        pool 10/10/9   mountain 51/66/71    AC 30, BC 34
    # 22 dA  A 8 +2, B vist 0, C vist 0.  A's 6 pool points: his pool is closed, so he helps C
    #        (9 → 10), AC +10; no pool is open for the other 5 → A mountain −5.  The side took
    #        0 of 1: on an eight the second whister clockwise from A, C, answers → C mountain +6.
    #        pool 10/10/10  mountain 46/66/77    AC 40.  Every pool is closed: the game is over.
    #
    # Whists: AB 36, AC 40, BA 72, BC 34, CA 46, CB 32.
    # Settlement: every pool at the target, nothing carried.  Amnesty −46 → 0/20/31.
    # Mountain → whists, M × 10/3 from each other player: on B 200/3, on C 310/3.
    # Pairs: A–B 36 + 200/3 − 72 = +92/3 to A;  A–C 40 + 310/3 − 46 = +292/3 to A;
    #        B–C 34 + 310/3 − (32 + 200/3) = +116/3 to B.
    # Balances: A 92/3 + 292/3 = 128;  B −92/3 + 116/3 = 8;  C −292/3 − 116/3 = −136.
    # Closed form (average mountain 63): A 170 + (76 − 118) = 128; B −30 + (106 − 68) = 8;
    # C −140 + (78 − 74) = −136.
    assert play_file("sochi_3_players") == Outcome(
        22,
        (10, 10, 10),
        (46, 66, 77),
        ((0, 36, 40), (72, 0, 34), (46, 32, 0)),
        (0, 20, 31),
        (F(128), F(8), F(-136)),
    )


def test_whole_game_sochi_4_players() -> None:
    """conventions.md §1.1 (the 4-player dealer's consolation), §1.2 (the dealer takes no tricks,
    progression 1-2-3-3), §1.3 (help: a tie goes to the first clockwise, then the own mountain),
    §3; settlement.md (N = 4: 2.5 whists a mountain point)."""
    # Sochi to 10 with four players: the dealer sits out; prices as in the 3-player game; on a
    # failed contract the dealer writes his consolation too (v a trick).
    #
    #  1 dA  B 6 =, C vist, D pass: T = 4.  B pool +2; CB 8.
    #        pool 0/2/0/0     mountain 0/0/0/0      CB 8
    #  2 dB  C 7 −1, D vist, A pass: u = 1.  C mountain +4; DC 4×4 + 4 = 20; AC 4; the dealer
    #        B's consolation BC 4.
    #        pool 0/2/0/0     mountain 0/0/4/0      AC 4, BC 4, DC 20
    #  3 dC  D 6 +1, A vist 3, B vist 0: the side is short, B 2 short → B mountain +4.
    #        D pool +2; AD 6.
    #        pool 0/2/0/2     mountain 0/4/4/0      AD 6
    #  4 dD  A 8 −1, B vist 1, C vist 2: A mountain +6; BA 6 + 6 = 12; CA 12 + 6 = 18; the
    #        dealer D: DA 6.
    #        pool 0/2/0/2     mountain 6/4/4/0      BA 12, CA 18, DA 6
    #  5 dA  raspasy #1 of B, C, D, 1 a trick: B 3, C 7, D 0 → D pool +1.
    #        pool 0/2/0/3     mountain 6/7/11/0
    #  6 dB  raspasy #2, 2 a trick: A 0 → pool +2; C 4 → +8; D 6 → +12.
    #        pool 2/2/0/3     mountain 6/7/19/12
    #  7 dC  raspasy #3, 3 a trick: A 4 → +12; B 0 → pool +3; D 6 → +18.
    #        pool 2/5/0/3     mountain 18/7/19/30
    #  8 dD  raspasy #4, 3 a trick: A 3 → +9; B 3 → +9; C 4 → +12.
    #        pool 2/5/0/3     mountain 27/16/31/30
    #  9 dA  C misère with 1 trick: C mountain +10.
    #        pool 2/5/0/3     mountain 27/16/41/30
    # 10 dB  D 7, A pass, C half-whist: D pool +4; CD 4.
    #        pool 2/5/0/7     mountain 27/16/41/30  CD 4
    # 11 dC  A 6 «без трёх»: A mountain +6.
    #        pool 2/5/0/7     mountain 33/16/41/30
    # 12 dD  B 6, C pass, A half-whist: B pool +2; AB 4.
    #        pool 2/7/0/7     mountain 33/16/41/30  AB 4
    # 13 dA  C 10 =, D vist, B pass: C pool +10, closed; T = 0, D is 1 short → D mountain +10.
    #        pool 2/7/10/7    mountain 33/16/41/40
    # 14 dB  A clean misère: A 2 + 8 → 10, closed; 2 left to help: the open pools B 7 and D 7 tie,
    #        B is the first clockwise from A → B +2; AB +20.
    #        pool 10/9/10/7   mountain 33/16/41/40  AB 24
    # 15 dC  B 7 −2, A vist, D pass: T = 5, u = 2.  B mountain +8; AB 5×4 + 8 = 28; DB 8; the
    #        dealer C: CB 8.
    #        pool 10/9/10/7   mountain 33/24/41/40  AB 52, CB 16, DB 8
    # 16 dD  raspasy #1, 1 a trick: A 2, B 5, C 3.
    #        pool 10/9/10/7   mountain 35/29/44/40
    # 17 dA  raspasy #2, 2 a trick: B 4 → +8; C 3 → +6; D 3 → +6.
    #        pool 10/9/10/7   mountain 35/37/50/46
    # 18 dB  D 9 −1, A vist 1, C vist 1: D mountain +8; AD 8 + 8 = 16; CD 16; the dealer B: BD 8.
    #        pool 10/9/10/7   mountain 35/37/50/54  AD 22, BD 8, CD 20
    # 19 dC  A 6, pass-pass: A is closed, 2 points help: B (9, the largest) +1 → closed, AB +10;
    #        then D +1, AD +10.
    #        pool 10/10/10/8  mountain 35/37/50/54  AB 62, AD 32
    # 20 dD  B 8 −1, C vist, A pass: T = 3, u = 1.  B mountain +6; CB 3×6 + 6 = 24; AB 6; the
    #        dealer D: DB 6.
    #        pool 10/10/10/8  mountain 35/43/50/54  AB 68, CB 40, DB 14
    # 21 dA  D misère with 2 tricks: D mountain +20.
    #        pool 10/10/10/8  mountain 35/43/50/74
    # 22 dB  C 7 =, D vist, A pass: T = 3, DC 3×4 = 12.  C is closed: help D (8) +2 → closed,
    #        CD +20; no pool is open for the other 2 → C mountain −2.  Every pool is closed.
    #        pool 10/10/10/10 mountain 35/43/48/74  CD 40, DC 32
    #
    # Whists: AB 68, AC 4, AD 32; BA 12, BC 4, BD 8; CA 18, CB 40, CD 40; DA 6, DB 14, DC 32.
    # Settlement: nothing carried.  Amnesty −35 → 0/8/13/39; M × 10/4 from each other player:
    # on B 20, on C 65/2, on D 195/2.
    # Pairs: A–B 68 + 20 − 12 = +76 to A;  A–C 4 + 65/2 − 18 = +37/2 to A;
    #        A–D 32 + 195/2 − 6 = +247/2 to A;  B–C 4 + 65/2 − (40 + 20) = −47/2 to B;
    #        B–D 8 + 195/2 − (14 + 20) = +143/2 to B;  C–D 40 + 195/2 − (32 + 65/2) = +73 to C.
    # Balances: A 76 + 37/2 + 247/2 = 218;  B −76 − 47/2 + 143/2 = −28;
    #           C −37/2 + 47/2 + 73 = 78;  D −247/2 − 143/2 − 73 = −268.
    # Closed form (average mountain 50): A 150 + 68, B 70 − 98, C 20 + 58, D −240 − 28.
    assert play_file("sochi_4_players") == Outcome(
        22,
        (10, 10, 10, 10),
        (35, 43, 48, 74),
        ((0, 68, 4, 32), (12, 0, 4, 8), (18, 40, 0, 40), (6, 14, 32, 0)),
        (0, 8, 13, 39),
        (F(218), F(-28), F(78), F(-268)),
    )


# -- Leningrad -----------------------------------------------------------------------------------


def test_whole_game_leningrad_3_players() -> None:
    """conventions.md §1.1 (gentleman whist, half responsibility), §1.2 (raspasy 2-4-6-6, the zero
    bonus through the overflow rule), §1.3 (own_mountain ×2), §4; settlement.md."""
    # Leningrad to 10: v as everywhere; p = 2v (6→4, 7→8, 8→12, 9→16, 10→20); remise 2v a trick;
    # consolation 2v a trick; gentleman whist (a failed declarer against one whister: whister and
    # passer each write half of p×T + both consolations); half responsibility (p/2 = v a short
    # trick); raspasy 2 a trick ×1, ×2, ×3, ×3; misère 20 a trick; pool points past 10 come off
    # the own mountain ×2.
    #
    #  1 dA  A 6 =, B vist, C pass: T = 4.  A pool +2; BA 4×4 = 16.
    #        pool 2/0/0    mountain 0/0/0        BA 16
    #  2 dB  B 7 −1, C vist, A pass: T = 4, u = 1.  B mountain +8; gentleman: (8×4 + 8 + 8)/2 = 24
    #        each → CB 24, AB 24.
    #        pool 2/0/0    mountain 0/8/0        AB 24, CB 24
    #  3 dC  C 6 +1, A vist 3, B vist 0: the side is short, B 2 short → B mountain +2×2 = 4.
    #        C pool +2; AC 3×4 = 12.
    #        pool 2/0/2    mountain 0/12/0       AC 12
    #  4 dA  B 7 +2, C vist, A pass: T = 1 of 2, C 1 short → C mountain +4.  B pool +4;
    #        CB 1×8 = 8 (made: no split).
    #        pool 2/4/2    mountain 0/12/4       CB 32
    #  5 dB  raspasy #1, 2 a trick: A 3 → +6; B 5 → +10; C 2 → +4.
    #        pool 2/4/2    mountain 6/22/8
    #  6 dC  raspasy #2, 4 a trick: A 0 → pool +4; B 4 → +16; C 6 → +24.
    #        pool 6/4/2    mountain 6/38/32
    #  7 dA  raspasy #3, 6 a trick: A 2 → +12; B 2 → +12; C 6 → +36.
    #        pool 6/4/2    mountain 18/50/68
    #  8 dB  raspasy #4, capped at 6 a trick: A 1 → +6; B 9 → +54; C 0 → pool +6.
    #        pool 6/4/8    mountain 24/104/68
    #  9 dC  A 8 +1, B vist, C pass: T = 1, no shortfall; BA 12.  A pool 6 + 6: room 4 → 10,
    #        closed; the other 2 come off A's mountain ×2 = −4.
    #        pool 10/4/8   mountain 20/104/68    BA 28
    # 10 dA  C misère with 1 trick: C mountain +20.
    #        pool 10/4/8   mountain 20/104/88
    # 11 dB  B 6 «без трёх»: B mountain +3×4 = 12.
    #        pool 10/4/8   mountain 20/116/88
    # 12 dC  C 7 −1, A vist 2, B vist 2: C mountain +8; AC 2×8 + 8 = 24; BC 24.
    #        pool 10/4/8   mountain 20/116/96    AC 36, BC 24
    # 13 dA  B 6, C pass, A half-whist: B pool +2; AB 2×4 = 8.
    #        pool 10/6/8   mountain 20/116/96    AB 32
    # 14 dB  raspasy #1, 2 a trick: A 4 → +8; B 1 → +2; C 5 → +10.
    #        pool 10/6/8   mountain 28/118/106
    # 15 dC  raspasy #2, 4 a trick: A 0 → pool +4, but A is closed: −4×2 = −8 off his mountain;
    #        B 3 → +12; C 7 → +28.
    #        pool 10/6/8   mountain 20/130/134
    # 16 dA  C 6 −2, B vist, A pass: T = 6, u = 2.  C mountain +2×4 = 8; gentleman:
    #        (6×4 + 2×4 + 2×4)/2 = 20 each → BC 20, AC 20.
    #        pool 10/6/8   mountain 20/130/142   AC 56, BC 44
    # 17 dB  A 9 =, B vist 0, C vist 1: the side took its 1; CA 16.  A is closed: 8 over →
    #        −16 off his mountain.
    #        pool 10/6/8   mountain 4/130/142    CA 16
    # 18 dC  C 7, A pass, B half-whist: BC 1×8 = 8.  C pool 8 + 4: room 2 → 10, closed; 2 over →
    #        −4 off his mountain.
    #        pool 10/6/10  mountain 4/130/138    BC 52
    # 19 dA  A 10 =, B vist 0, C vist 0: A is closed, 10 over → −20.  The side took 0 of 1: the
    #        second whister clockwise from A, C, answers → C mountain +20/2 = 10.
    #        pool 10/6/10  mountain −16/130/148
    # 20 dB  C 6, pass-pass: C is closed, 2 over → −4.
    #        pool 10/6/10  mountain −16/130/144
    # 21 dC  B clean misère: B 6 + 10: room 4 → 10, closed; 6 over → −12.  Every pool is closed.
    #        pool 10/10/10 mountain −16/118/144
    #
    # Whists: AB 32, AC 56, BA 28, BC 52, CA 16, CB 32.
    # Settlement: nothing carried.  Amnesty +16 → 0/134/160; M × 10/3: on B 1340/3, on C 1600/3.
    # Pairs: A–B 32 + 1340/3 − 28 = +1352/3 to A;  A–C 56 + 1600/3 − 16 = +1720/3 to A;
    #        B–C 52 + 1600/3 − (32 + 1340/3) = +320/3 to B.
    # Balances: A 3072/3 = 1024;  B −1352/3 + 320/3 = −344;  C −1720/3 − 320/3 = −680.
    # Closed form (average mountain 82): A 980 + 44, B −360 + 16, C −620 − 60.
    assert play_file("leningrad_3_players") == Outcome(
        21,
        (10, 10, 10),
        (-16, 118, 144),
        ((0, 32, 56), (28, 0, 52), (16, 32, 0)),
        (0, 134, 160),
        (F(1024), F(-344), F(-680)),
    )


def test_whole_game_leningrad_4_players() -> None:
    """conventions.md §1.1 (gentleman whist with the 4-player dealer's consolation outside the
    split), §1.2, §1.3 (own_mountain ×2), §4; settlement.md."""
    # Leningrad to 10 with four players; prices as in the 3-player game.
    #
    #  1 dA  B 6 =, C vist, D pass: B pool +2; CB 4×4 = 16.
    #        pool 0/2/0/0     mountain 0/0/0/0        CB 16
    #  2 dB  C 7 −1, D vist, A pass: u = 1.  C mountain +8; gentleman (8×4 + 8 + 8)/2 = 24 →
    #        DC 24, AC 24; the dealer B's consolation stays outside: BC 8.
    #        pool 0/2/0/0     mountain 0/0/8/0        AC 24, BC 8, DC 24
    #  3 dC  D 6 +1, A vist 3, B vist 0: B 2 short → +4.  D pool +2; AD 12.
    #        pool 0/2/0/2     mountain 0/4/8/0        AD 12
    #  4 dD  A 8 −1, B vist 1, C vist 2: A mountain +12; BA 12 + 12 = 24; CA 24 + 12 = 36;
    #        the dealer: DA 12.
    #        pool 0/2/0/2     mountain 12/4/8/0       BA 24, CA 36, DA 12
    #  5 dA  raspasy #1, 2 a trick: B 3 → +6; C 7 → +14; D 0 → pool +2.
    #        pool 0/2/0/4     mountain 12/10/22/0
    #  6 dB  raspasy #2, 4 a trick: A 0 → pool +4; C 4 → +16; D 6 → +24.
    #        pool 4/2/0/4     mountain 12/10/38/24
    #  7 dC  raspasy #3, 6 a trick: A 4 → +24; B 0 → pool +6; D 6 → +36.
    #        pool 4/8/0/4     mountain 36/10/38/60
    #  8 dD  raspasy #4, 6 a trick: A 3 → +18; B 3 → +18; C 4 → +24.
    #        pool 4/8/0/4     mountain 54/28/62/60
    #  9 dA  C misère with 1 trick: C mountain +20.
    #        pool 4/8/0/4     mountain 54/28/82/60
    # 10 dB  D 7, A pass, C half-whist: D pool +4; CD 8.
    #        pool 4/8/0/8     mountain 54/28/82/60    CD 8
    # 11 dC  A 6 «без трёх»: A mountain +12.
    #        pool 4/8/0/8     mountain 66/28/82/60
    # 12 dD  B 6, C pass, A half-whist: B pool +2 → 10, closed; AB 8.
    #        pool 4/10/0/8    mountain 66/28/82/60    AB 8
    # 13 dA  C 10 =, D vist, B pass: C pool +10, closed; D 1 short → D mountain +20/2 = 10.
    #        pool 4/10/10/8   mountain 66/28/82/70
    # 14 dB  A clean misère: A 4 + 6 → 10, closed; 4 over → −8 off his mountain.
    #        pool 10/10/10/8  mountain 58/28/82/70
    # 15 dC  B 7 −2, A vist, D pass: T = 5, u = 2.  B mountain +16; gentleman
    #        (5×8 + 2×8 + 2×8)/2 = 36 → AB 36, DB 36; the dealer C: CB 2×8 = 16.
    #        pool 10/10/10/8  mountain 58/44/82/70    AB 44, CB 32, DB 36
    # 16 dD  raspasy #1, 2 a trick: A 2 → +4; B 5 → +10; C 3 → +6.
    #        pool 10/10/10/8  mountain 62/54/88/70
    # 17 dA  raspasy #2, 4 a trick: B 4 → +16; C 3 → +12; D 3 → +12.
    #        pool 10/10/10/8  mountain 62/70/100/82
    # 18 dB  D 9 −1, A vist 1, C vist 1: D mountain +16; AD 16 + 16 = 32; CD 32; the dealer:
    #        BD 16.
    #        pool 10/10/10/8  mountain 62/70/100/98   AD 44, BD 16, CD 40
    # 19 dC  A 6, pass-pass: A is closed, 2 over → −4.
    #        pool 10/10/10/8  mountain 58/70/100/98
    # 20 dD  B 8 +1, C vist, A pass: T = 1, no shortfall; CB 12.  B is closed: 6 over → −12.
    #        pool 10/10/10/8  mountain 58/58/100/98   CB 44
    # 21 dA  D misère with 2 tricks: D mountain +40.
    #        pool 10/10/10/8  mountain 58/58/100/138
    # 22 dB  C 7 =, D vist, A pass: T = 3, DC 24.  C is closed: 4 over → −8.
    #        pool 10/10/10/8  mountain 58/58/92/138   DC 48
    # 23 dC  D 6 =, A vist, B pass: T = 4, AD 16.  D pool 8 + 2 → 10: every pool is closed.
    #        pool 10/10/10/10 mountain 58/58/92/138   AD 60
    #
    # Whists: AB 44, AC 24, AD 60; BA 24, BC 8, BD 16; CA 36, CB 44, CD 40; DA 12, DB 36, DC 48.
    # Settlement: nothing carried.  Amnesty −58 → 0/0/34/80; M × 10/4: on C 85, on D 200.
    # Pairs: A–B 44 − 24 = +20 to A;  A–C 24 + 85 − 36 = +73 to A;  A–D 60 + 200 − 12 = +248 to A;
    #        B–C 8 + 85 − 44 = +49 to B;  B–D 16 + 200 − 36 = +180 to B;
    #        C–D 40 + 200 − (48 + 85) = +107 to C.
    # Balances: A 20 + 73 + 248 = 341;  B −20 + 49 + 180 = 209;  C −73 − 49 + 107 = −15;
    #           D −248 − 180 − 107 = −535.
    # Closed form (average mountain 173/2): A 285 + 56, B 285 − 76, C −55 + 40, D −515 − 20.
    assert play_file("leningrad_4_players") == Outcome(
        23,
        (10, 10, 10, 10),
        (58, 58, 92, 138),
        ((0, 44, 24, 60), (24, 0, 8, 16), (36, 44, 0, 40), (12, 36, 48, 0)),
        (0, 0, 34, 80),
        (F(341), F(209), F(-15), F(-535)),
    )


# -- Moscow = Rostov -----------------------------------------------------------------------------


def test_whole_game_moscow_3_players() -> None:
    """conventions.md §1.1 (gentleman whist, consolation 10, half responsibility), §1.2 (raspasy on
    whists: seed A's 2-3-5, 0-1-9, 1-1-8 and ties), §1.3 (help, from a raspasy pool point too),
    §5; settlement.md."""
    # Moscow to 10: p = v; remise v a trick; consolation 10 whists a trick; gentleman whist;
    # half responsibility (v/2 a short trick); misère 10 a trick; raspasy on whists: the fewest
    # tricks writes 5 a trick on each other player, two tied split the third's, a zero also
    # writes 1 into the pool; help at 10 whists a pool point.
    #
    #  1 dA  A 6 =, B vist, C pass: A pool +2; BA 2×4 = 8.
    #        pool 2/0/0   mountain 0/0/0     BA 8
    #  2 dB  B 6 −1, C vist, A pass (seed A): T = 5.  B mountain +2; gentleman
    #        (5×2 + 10 + 10)/2 = 15 each → CB 15, AB 15.
    #        pool 2/0/0   mountain 0/2/0     AB 15, CB 15
    #  3 dC  C 6 −1, A vist 3, B vist 2 (seed A): C mountain +2; AC 3×2 + 10 = 16;
    #        BC 2×2 + 10 = 14.
    #        pool 2/0/0   mountain 0/2/2     AC 16, BC 14
    #  4 dA  raspasy 2-3-5 (seed A): A writes 15 on B and 25 on C.
    #        pool 2/0/0   mountain 0/2/2     AB 30, AC 41
    #  5 dB  raspasy 0-1-9 (seed A): A writes 5 on B, 45 on C, and 1 into his pool.
    #        pool 3/0/0   mountain 0/2/2     AB 35, AC 86
    #  6 dC  raspasy 1-1-8 (seed A): A and B tie, each writes 5×8/2 = 20 on C.
    #        pool 3/0/0   mountain 0/2/2     AC 106, BC 34
    #  7 dA  raspasy 2-6-2: A and C tie, each writes 5×6/2 = 15 on B.
    #        pool 3/0/0   mountain 0/2/2     AB 50, CB 30
    #  8 dB  C 7, pass-pass: C pool +4.
    #        pool 3/0/4   mountain 0/2/2
    #  9 dC  B 7 +2, A vist, C pass: T = 1 of 2, A 1 short → A mountain +4/2 = 2.  B pool +4;
    #        AB 1×4 = 4.
    #        pool 3/4/4   mountain 2/2/2     AB 54
    # 10 dA  A 6 +1, B vist 3, C vist 0: the side is short, C 2 short → C mountain +2×2/2 = 2.
    #        A pool +2; BA 3×2 = 6.
    #        pool 5/4/4   mountain 2/2/4     BA 14
    # 11 dB  C misère with 1 trick: C mountain +10.
    #        pool 5/4/4   mountain 2/2/14
    # 12 dC  B 8 «без трёх»: B mountain +3×6 = 18.
    #        pool 5/4/4   mountain 2/20/14
    # 13 dA  A 7, B pass, C half-whist: A pool +4; CA 1×4 = 4.
    #        pool 9/4/4   mountain 2/20/14   CA 4
    # 14 dB  C 6, A pass, B half-whist: C pool +2; BC 2×2 = 4.
    #        pool 9/4/6   mountain 2/20/14   BC 38
    # 15 dC  B 9 −1, A vist 1, C vist 1: B mountain +8; AB 8 + 10 = 18; CB 18.
    #        pool 9/4/6   mountain 2/28/14   AB 72, CB 48
    # 16 dA  raspasy 3-4-3: A and C tie, each writes 5×4/2 = 10 on B.
    #        pool 9/4/6   mountain 2/28/14   AB 82, CB 58
    # 17 dB  B clean misère: B 4 + 6 → 10, closed; 4 to help: the largest open pool is A's 9 →
    #        A +1 (closed), BA +10; then C's 6 → C +3, BC +30.
    #        pool 10/10/9 mountain 2/28/14   BA 24, BC 68
    # 18 dC  A 8 −2, C vist, B pass: T = 4, u = 2.  A mountain +2×6 = 12; gentleman
    #        (4×6 + 2×10 + 2×10)/2 = 32 each → CA 32, BA 32.
    #        pool 10/10/9 mountain 14/28/14  BA 56, CA 36
    # 19 dA  raspasy 4-3-3: B and C tie, each writes 5×4/2 = 10 on A.
    #        pool 10/10/9 mountain 14/28/14  BA 66, CA 46
    # 20 dB  raspasy 3-0-7: B has the fewest: BA 15, BC 35; his zero writes 1 into his pool, which
    #        is closed → help C (9 → 10), BC +10.  Every pool is closed.
    #        pool 10/10/10 mountain 14/28/14 BA 81, BC 113
    #
    # Whists: AB 82, AC 106, BA 81, BC 113, CA 46, CB 58.
    # Settlement: nothing carried.  Amnesty −14 → 0/14/0; M × 10/3: on B 140/3.
    # Pairs: A–B 82 + 140/3 − 81 = +143/3 to A;  A–C 106 − 46 = +60 to A;
    #        B–C 113 − (58 + 140/3) = +25/3 to B.
    # Balances: A 143/3 + 180/3 = 323/3;  B −143/3 + 25/3 = −118/3;  C −180/3 − 25/3 = −205/3.
    # Closed form (average mountain 56/3): A 140/3 + 61, B −280/3 + 54, C 140/3 − 115.
    assert play_file("moscow_3_players") == Outcome(
        20,
        (10, 10, 10),
        (14, 28, 14),
        ((0, 82, 106), (81, 0, 113), (46, 58, 0)),
        (0, 14, 0),
        (F(323, 3), F(-118, 3), F(-205, 3)),
    )


def test_whole_game_moscow_4_players() -> None:
    """conventions.md §1.1 (gentleman whist, the dealer's consolation 10 outside the split), §1.2
    (the 4-player dealer writes 1 into his pool on raspasy, seed A), §1.3 (help to several
    players, the dealer's point as help, then the own mountain), §5; settlement.md."""
    # Moscow to 10 with four players; prices as in the 3-player game; the dealer writes his
    # consolation 10 a trick on a failed contract and 1 into his pool on raspasy.
    #
    #  1 dA  B 6 =, C vist, D pass: B pool +2; CB 8.
    #        pool 0/2/0/0    mountain 0/0/0/0     CB 8
    #  2 dB  C 6 −1, D vist, A pass: T = 5.  C mountain +2; gentleman (5×2 + 10 + 10)/2 = 15 →
    #        DC 15, AC 15; the dealer B: BC 10.
    #        pool 0/2/0/0    mountain 0/0/2/0     AC 15, BC 10, DC 15
    #  3 dC  D 6 −1, A vist 3, B vist 2: D mountain +2; AD 3×2 + 10 = 16; BD 2×2 + 10 = 14;
    #        the dealer C: CD 10.
    #        pool 0/2/0/0    mountain 0/0/2/2     AD 16, BD 14, CD 10
    #  4 dD  raspasy A 2, B 3, C 5: A writes 15 on B, 25 on C; the dealer D: pool +1.
    #        pool 0/2/0/1    mountain 0/0/2/2     AB 15, AC 40
    #  5 dA  raspasy B 0, C 1, D 9: B writes 5 on C, 45 on D and 1 into his pool; the dealer A +1.
    #        pool 1/3/0/1    mountain 0/0/2/2     BC 15, BD 59
    #  6 dB  raspasy A 1, C 1, D 8: A and C tie, each writes 20 on D; the dealer B +1.
    #        pool 1/4/0/1    mountain 0/0/2/2     AD 36, CD 30
    #  7 dC  A 7 +1, B vist, D pass: T = 2, the side's obligation.  A pool +4; BA 2×4 = 8.
    #        pool 5/4/0/1    mountain 0/0/2/2     BA 8
    #  8 dD  B 7 +2, C vist, A pass: T = 1, C 1 short → C mountain +4/2 = 2.  B pool +4; CB 4.
    #        pool 5/8/0/1    mountain 0/0/4/2     CB 12
    #  9 dA  C 6 +1, D vist 3, B vist 0: the side is short, B 2 short → B mountain +2.
    #        C pool +2; DC 6.
    #        pool 5/8/2/1    mountain 0/2/4/2     DC 21
    # 10 dB  D misère with 1 trick: D mountain +10.
    #        pool 5/8/2/1    mountain 0/2/4/12
    # 11 dC  A 8 «без трёх»: A mountain +18.
    #        pool 5/8/2/1    mountain 18/2/4/12
    # 12 dD  C 7, A pass, B half-whist: C pool +4; BC 4.
    #        pool 5/8/6/1    mountain 18/2/4/12   BC 19
    # 13 dA  D 6, pass-pass: D pool +2.
    #        pool 5/8/6/3    mountain 18/2/4/12
    # 14 dB  C 9 −1, A vist 1, D vist 1: C mountain +8; AC 8 + 10 = 18; DC 18; the dealer B: BC 10.
    #        pool 5/8/6/3    mountain 18/2/12/12  AC 58, BC 29, DC 39
    # 15 dC  D 8 −2, B vist, A pass: T = 4, u = 2.  D mountain +12; gentleman
    #        (4×6 + 2×10 + 2×10)/2 = 32 → BD 32, AD 32; the dealer C: CD 2×10 = 20.
    #        pool 5/8/6/3    mountain 18/2/12/24  AD 68, BD 91, CD 50
    # 16 dD  raspasy A 3, B 4, C 3: A and C tie, each writes 10 on B; the dealer D +1.
    #        pool 5/8/6/4    mountain 18/2/12/24  AB 25, CB 22
    # 17 dA  B clean misère: B 8 + 2 → 10, closed; 8 to help, clockwise from B: C 6, D 4, A 5 →
    #        C (the largest) +4, closed, BC +40; then A (5 > 4) +4 → 9, BA +40.
    #        pool 9/10/10/4  mountain 18/2/12/24  BA 48, BC 69
    # 18 dB  A 6 =, C vist, D pass: T = 4, CA 4×2 = 8.  A pool 9 + 1 → 10, closed; 1 to help
    #        D (4 → 5), AD +10.  (My first hand figure was 4×4 = 16; a six at Moscow prices
    #        is 2 a trick — corrected after the replay disagreed.)
    #        pool 10/10/10/5 mountain 18/2/12/24  AD 78, CA 8
    # 19 dC  raspasy A 2, B 6, D 2: A and D tie, each writes 15 on B.  The dealer C's pool point:
    #        his pool is closed → help D (5 → 6), CD +10.
    #        pool 10/10/10/6 mountain 18/2/12/24  AB 40, CD 60, DB 15
    # 20 dD  C 7 −1, A vist, B pass: T = 4, u = 1.  C mountain +4; gentleman
    #        (4×4 + 10 + 10)/2 = 18 → AC 18, BC 18; the dealer D: DC 10.
    #        pool 10/10/10/6 mountain 18/2/16/24  AC 76, BC 87, DC 49
    # 21 dA  D 10 =, B vist, C pass: D pool 6 + 4 → 10, closed; no pool is open for the other 6 →
    #        D mountain −6.  T = 0: B 1 short → B mountain +10/2 = 5.  Every pool is closed.
    #        pool 10/10/10/10 mountain 18/7/16/18
    #
    # Whists: AB 40, AC 76, AD 78; BA 48, BC 87, BD 91; CA 8, CB 22, CD 60; DA 0, DB 15, DC 49.
    # Settlement: nothing carried.  Amnesty −7 → 11/0/9/11; M × 10/4: on A 55/2, on C 45/2,
    # on D 55/2.
    # Pairs: A–B 40 − (48 + 55/2) = −71/2 to A;  A–C 76 + 45/2 − (8 + 55/2) = +63 to A;
    #        A–D 78 + 55/2 − 55/2 = +78 to A;  B–C 87 + 45/2 − 22 = +175/2 to B;
    #        B–D 91 + 55/2 − 15 = +207/2 to B;  C–D 60 + 55/2 − (49 + 45/2) = +16 to C.
    # Balances: A −71/2 + 63 + 78 = 211/2;  B 71/2 + 175/2 + 207/2 = 453/2;
    #           C −63 − 175/2 + 16 = −269/2;  D −78 − 207/2 − 16 = −395/2.
    # Closed form (average mountain 59/4): A −65/2 + 138, B 155/2 + 149, C −25/2 − 122,
    # D −65/2 − 165.
    assert play_file("moscow_4_players") == Outcome(
        21,
        (10, 10, 10, 10),
        (18, 7, 16, 18),
        ((0, 40, 76, 78), (48, 0, 87, 91), (8, 22, 0, 60), (0, 15, 49, 0)),
        (11, 0, 9, 11),
        (F(211, 2), F(453, 2), F(-269, 2), F(-395, 2)),
    )


# -- Odessa finka --------------------------------------------------------------------------------


def test_whole_game_odessa_3_players() -> None:
    """conventions.md §6 (start mountain 20, a made game off the mountain, routed consolation,
    closing bonuses 120 and 80, pool help and mountain help, raspasy 2 a trick with the zero's
    fall-backs, the last round), seed B 4–5, 7–10, 12–13; settlement.md (unfinished pool ×1)."""
    # Odessa to 12 (pool header), three players: everyone starts with 20 in the mountain.  v as
    # everywhere, p = 2v, remise 2v a trick, misère 20 a trick; a made game: pool += v and
    # mountain −= v (never below 0); greedy, responsible whist (p a short trick); one whister
    # against a failed declarer writes p×T + 2×u×p (the passer's consolation too), the passer
    # nothing; two whisters each p×own + u×p; raspasy 2 a trick, a zero → 2 into the pool, with
    # the pool closed off the mountain, with both closed nowhere.  The first closed pool writes
    # 120 on each, the first closed mountain 80 on each; a closed pool's points help the largest
    # open pool and a closed mountain's the smallest open mountain, 10 whists a point.
    #
    #  1 dA  A 7 =, B vist, C pass: T = 3.  A pool +4, mountain −4; BA 3×8 = 24 (seed B 4).
    #        pool 4/0/0    mountain 16/20/20     BA 24
    #  2 dB  B 6 −1, C vist, A pass: T = 5, u = 1.  B mountain +4; CB 5×4 + 2×4 = 28, the passer
    #        A nothing (seed B 5, «6 без 1»).
    #        pool 4/0/0    mountain 16/24/20     CB 28
    #  3 dC  C 6 =, A vist 2, B vist 2: C pool +2, mountain −2; AC 8; BC 8.
    #        pool 4/0/2    mountain 16/24/18     AC 8, BC 8
    #  4 dA  raspasy 2 a trick: A 4 → +8; B 5 → +10; C 1 → +2.
    #        pool 4/0/2    mountain 24/34/20
    #  5 dB  raspasy: A 4 → +8; B 6 → +12; C 0 → pool +2.
    #        pool 4/0/4    mountain 32/46/20
    #  6 dC  C clean misère, a made game: C 4 + 8 → 12, the first closed pool → CA 120, CB 120;
    #        the other 2 help the largest open pool, A's 4 → A 6, CA +20.  C mountain −10.
    #        pool 6/0/12   mountain 32/46/10     CA 140, CB 148
    #  7 dA  B 7 −3, A vist, C pass: T = 6, u = 3.  B mountain +3×8 = 24; AB 6×8 + 2×3×8 = 96
    #        (seed B 5, «7 без 3»).
    #        pool 6/0/12   mountain 32/70/10     AB 96
    #  8 dB  C 8 +1, A vist, B pass: T = 1, no shortfall; AC 12.  C's 6 pool points help A's 6 →
    #        A 12, closed by help (never "first"), CA +60.  C mountain −6.
    #        pool 12/0/12  mountain 32/70/4      AC 20, CA 200
    #  9 dC  A 6 −1, B vist 3, C vist 2: A mountain +4; BA 3×4 + 4 = 16; CA 2×4 + 4 = 12.
    #        pool 12/0/12  mountain 36/70/4      BA 40, CA 212
    # 10 dA  C 7, A pass, B half-whist (made without play): C's 4 pool points help B (0 → 4),
    #        CB +40; C mountain 4 − 4 = 0, the first closed mountain → CA 80, CB 80.  B writes
    #        for 1 trick: BC 8.
    #        pool 12/4/12  mountain 36/70/0      BC 16, CA 292, CB 268
    # 11 dB  raspasy: A 3 → +6; B 6 → +12; C 1 → +2 (C's mountain is open again; no new bonus).
    #        pool 12/4/12  mountain 42/82/2
    # 12 dC  C 7 =, B vist, A pass: T = 3, BC 24.  C's 4 pool points help B (4 → 8), CB +40.
    #        C's mountain takes 2 (→ 0); the other 2 help the smallest open mountain, A's 42
    #        (B has 82) → A 40, CA +20.
    #        pool 12/8/12  mountain 40/82/0      BC 40, CA 312, CB 308
    # 13 dA  raspasy: A 4 → +8; B 6 → +12; C 0: pool and mountain closed → nothing («на стенку»).
    #        pool 12/8/12  mountain 48/94/0
    # 14 dB  A 9 −1, B vist, C pass: T = 2, u = 1.  A mountain +16; BA 2×16 + 2×16 = 64.
    #        pool 12/8/12  mountain 64/94/0      BA 104
    # 15 dC  B 6 +1, A vist, C pass: T = 3, A 1 short → A mountain +4.  B pool +2, mountain −2;
    #        AB 3×4 = 12.
    #        pool 12/10/12 mountain 68/92/0      AB 108
    # 16 dA  A misère with 2 tricks: A mountain +40.
    #        pool 12/10/12 mountain 108/92/0
    # 17 dB  raspasy: A 0 → his pool is closed: 2 off his mountain; B 4 → +8; C 6 → +12.
    #        pool 12/10/12 mountain 106/100/12
    # 18 dC  C 7 −1, A vist 3, B vist 1: C mountain +8; AC 3×8 + 8 = 32; BC 1×8 + 8 = 16.
    #        pool 12/10/12 mountain 106/100/20   AC 52, BC 56
    #    last-round: the last round is Anna's next deal and one deal by each other player.
    # 19 dA  B 6 −1, A vist, C pass: T = 5, u = 1.  B mountain +4; AB 5×4 + 2×4 = 28.
    #        pool 12/10/12 mountain 106/104/20   AB 136
    # 20 dB  A 6 −2, C vist, B pass: T = 6, u = 2.  A mountain +8; CA 6×4 + 2×2×4 = 40.
    #        pool 12/10/12 mountain 114/104/20   CA 352
    # 21 dC  raspasy: A 1 → +2; B 5 → +10; C 4 → +8.  The round is over and pools are closed:
    #        the game is over.
    #        pool 12/10/12 mountain 116/114/28
    #
    # Whists: AB 136, AC 52, BA 104, BC 56, CA 352, CB 308.
    # Settlement: B's 2 missing pool points → his mountain ×1: 114 + 2 = 116.  Mountains
    # 116/116/28, amnesty −28 → 88/88/0; M × 10/3: on A and on B 880/3.
    # Pairs: A–B 136 + 880/3 − (104 + 880/3) = +32 to A;  A–C 52 − (352 + 880/3) = −1780/3 to A;
    #        B–C 56 − (308 + 880/3) = −1636/3 to B.
    # Balances: A 96/3 − 1780/3 = −1684/3;  B −96/3 − 1636/3 = −1732/3;
    #           C 1780/3 + 1636/3 = 3416/3.
    # Closed form (average mountain 260/3): A −880/3 − 268, B −880/3 − 284, C 1760/3 + 552.
    assert play_file("odessa_3_players") == Outcome(
        21,
        (12, 10, 12),
        (116, 114, 28),
        ((0, 136, 52), (104, 0, 56), (352, 308, 0)),
        (88, 88, 0),
        (F(-1684, 3), F(-1732, 3), F(3416, 3)),
    )


def test_whole_game_odessa_4_players() -> None:
    """conventions.md §6 (quick tricks in the prikup, dealer whist, the dealer's consolation u×p,
    closing bonuses 120 and 60, help with a tie, the last whister answers on a nine, pool points
    off the own mountain when no pool is open, the last round of four deals), seed B 5, 7–12;
    settlement.md."""
    # Odessa to 12 with four players; prices as in the 3-player game.  The dealer writes u×p on a
    # failed declarer (not when he whisted himself), quick tricks in the prikup at p each, and
    # the first closed mountain writes 60 on each other player.
    #
    #  1 dA  B 7 =, C vist, D pass, prikup 1: T = 3.  B pool +4, mountain −4; CB 3×8 = 24; the
    #        dealer A for one quick trick: AB 8.
    #        pool 0/4/0/0     mountain 20/16/20/20     AB 8, CB 24
    #  2 dB  C 6 −1, D vist, A pass: T = 5.  C mountain +4; DC 5×4 + 2×4 = 28; the dealer B 4;
    #        the passer A nothing (seed B 5).
    #        pool 0/4/0/0     mountain 20/16/24/20     BC 4, DC 28
    #  3 dC  D 8 −2, A vist, B pass: T = 4, u = 2.  D mountain +24; AD 4×12 + 2×2×12 = 96; the
    #        dealer C 2×12 = 24 (seed B 5, «8 без 2»).
    #        pool 0/4/0/0     mountain 20/16/24/44     AD 96, CD 24
    #  4 dD  A 6 =, B vist 2, C vist 2: A pool +2, mountain −2; BA 8; CA 8.
    #        pool 2/4/0/0     mountain 18/16/24/44     BA 8, CA 8
    #  5 dA  raspasy 2 a trick: B 4 → +8; C 6 → +12; D 0 → pool +2.
    #        pool 2/4/0/2     mountain 18/24/36/44
    #  6 dB  C 7 −1: A and D passed, the dealer B whists for A's hand: T = 4, u = 1.
    #        C mountain +8; BC 4×8 + 2×8 = 48; no dealer's consolation, A and D nothing.
    #        pool 2/4/0/2     mountain 18/24/44/44     BC 52
    #  7 dC  D 6 +1, A vist, B pass: T = 3, A 1 short → A mountain +4.  D pool +2, mountain −2;
    #        AD 3×4 = 12.
    #        pool 2/4/0/4     mountain 22/24/44/42     AD 108
    #  8 dD  A clean misère: A pool +10 → 12, the first closed pool → AB, AC, AD +120 each;
    #        A mountain −10.
    #        pool 12/4/0/4    mountain 12/24/44/42     AB 128, AC 120, AD 228
    #  9 dA  raspasy: B 3 → +6; C 3 → +6; D 4 → +8.
    #        pool 12/4/0/4    mountain 12/30/50/50
    # 10 dB  A 7, C pass, D half-whist: A's 4 pool points help: B 4 and D 4 tie, B is first
    #        clockwise from A → B 8, AB +40.  A mountain −4.  D writes for 1 trick: DA 8.
    #        pool 12/8/0/4    mountain 8/30/50/50      AB 168, DA 8
    # 11 dC  B 9 +1, D vist 0, A vist 0: B 8 + 4 → 12 (closed; the bonus is paid already); the
    #        other 4 help D (4; C has 0) → D 8, BD +40.  B mountain −8.  The side took 0 of 1:
    #        the second whister clockwise from B (C deals; D, then A) is A → A mountain +16.
    #        pool 12/12/0/8   mountain 24/22/50/50     BD 40
    # 12 dD  C 10 −1, A vist, B pass: T = 1, u = 1.  C mountain +20; AC 1×20 + 2×20 = 60; the
    #        dealer D 20.
    #        pool 12/12/0/8   mountain 24/22/70/50     AC 180, DC 48
    # 13 dA  D 7, pass-pass: D pool +4 → 12, closed; D mountain −4.
    #        pool 12/12/0/12  mountain 24/22/70/46
    # 14 dB  A 8 =, C vist, D pass: T = 2, CA 24.  A's 6 pool points help C (0 → 6), AC +60.
    #        A mountain −6.
    #        pool 12/12/6/12  mountain 18/22/70/46     AC 240, CA 32
    # 15 dC  raspasy: A 2 → +4; B 0 → his pool is closed: 2 off his mountain; D 8 → +16.
    #        pool 12/12/6/12  mountain 22/20/70/62
    # 16 dD  B 6 =, C vist, A pass, prikup 3: T = 4, CB 16; the dealer D for two aces 3×4 = 12.
    #        B's 2 pool points help C (6 → 8), BC +20.  B mountain −2.
    #        pool 12/12/8/12  mountain 22/18/70/62     BC 72, CB 40, DB 12
    # 17 dA  C misère with 1 trick: C mountain +20.
    #        pool 12/12/8/12  mountain 22/18/90/62
    # 18 dB  A 6, C pass, D half-whist: A's 2 pool points help C (8 → 10), AC +20.  A mountain
    #        −2.  D writes for 2 tricks: DA 8.
    #        pool 12/12/10/12 mountain 20/18/90/62     AC 260, DA 16
    # 19 dC  D 9 −2, A vist 1, B vist 2: D mountain +32; AD 16 + 32 = 48; BD 32 + 32 = 64; the
    #        dealer C 32.
    #        pool 12/12/10/12 mountain 20/18/90/94     AD 276, BD 104, CD 56
    # 20 dD  B clean misère: 10 pool points help C (10 → 12, closed by help), BC +20; no pool is
    #        open for the other 8 → off B's own mountain, 18 → 10.  Then the game's 10 off the
    #        mountain → 0: B closes the first mountain → BA, BC, BD +60 each.
    #        pool 12/12/12/12 mountain 20/0/90/94      BA 68, BC 152, BD 164
    #    last-round: the last round is Anna's next deal (21) to Dima's (24).
    # 21 dA  C 7 =, D vist, B pass, prikup 1: T = 3, DC 24; the dealer A 8.  No pool is open: C's
    #        4 pool points come off his mountain (90 → 86), then the game's 4 (→ 82).
    #        pool 12/12/12/12 mountain 20/0/82/94      AC 268, DC 72
    # 22 dB  raspasy: A 5 → +10; C 2 → +4; D 3 → +6.
    #        pool 12/12/12/12 mountain 30/0/86/100
    # 23 dC  B 6 −1, A vist, D pass: T = 5.  B mountain +4; AB 5×4 + 2×4 = 28; the dealer C 4.
    #        pool 12/12/12/12 mountain 30/4/86/100     AB 196, CB 44
    # 24 dD  A 7 −1, B vist 2, C vist 2: A mountain +8; BA 16 + 8 = 24; CA 24; the dealer D 8.
    #        The round is over and pools are closed: the game is over.
    #        pool 12/12/12/12 mountain 38/4/86/100     BA 92, CA 56, DA 24
    #
    # Whists: AB 196, AC 268, AD 276; BA 92, BC 152, BD 164; CA 56, CB 44, CD 56;
    # DA 24, DB 12, DC 72.
    # Settlement: nothing carried.  Amnesty −4 → 34/0/82/96; M × 10/4: on A 85, on C 205,
    # on D 240.
    # Pairs: A–B 196 − (92 + 85) = +19 to A;  A–C 268 + 205 − (56 + 85) = +332 to A;
    #        A–D 276 + 240 − (24 + 85) = +407 to A;  B–C 152 + 205 − 44 = +313 to B;
    #        B–D 164 + 240 − 12 = +392 to B;  C–D 56 + 240 − (72 + 205) = +19 to C.
    # Balances: A 19 + 332 + 407 = 758;  B −19 + 313 + 392 = 686;  C −332 − 313 + 19 = −626;
    #           D −407 − 392 − 19 = −818.
    # Closed form (average mountain 57): A 190 + 568, B 530 + 156, C −290 − 336, D −430 − 388.
    assert play_file("odessa_4_players") == Outcome(
        24,
        (12, 12, 12, 12),
        (38, 4, 86, 100),
        ((0, 196, 268, 276), (92, 0, 152, 164), (56, 44, 0, 56), (24, 12, 72, 0)),
        (34, 0, 82, 96),
        (F(758), F(686), F(-626), F(-818)),
    )


# -- Russian preferans ---------------------------------------------------------------------------


def test_whole_game_russian_3_players() -> None:
    """conventions.md §1.1, §1.2 (raspasy 1-2-3-3), §1.3 (overflow keep, end pool_sum), §7 and
    seed C (every game in full past the pulka; the end at the sum; ×2 both ways at the end);
    settlement.md E4."""
    # Russian to 12 (pool header), three players: Sochi's prices (p = v, remise v, consolation v,
    # greedy, full responsibility, raspasy 1 a trick ×1, ×2, ×3, ×3); every game is written into
    # the pool in full; the pulka ends when the pools sum to 3 × 12 = 36 or more; at the end each
    # pool point over 12 comes off the own mountain ×2 and each point short is added ×2.
    #
    #  1 dA  A 6 =, B vist, C pass: A pool +2; BA 8.
    #        pool 2/0/0    mountain 0/0/0      BA 8
    #  2 dB  B 7 −1, C vist, A pass: u = 1.  B mountain +4; CB 4×4 + 4 = 20; AB 4.
    #        pool 2/0/0    mountain 0/4/0      AB 4, CB 20
    #  3 dC  C 6 +1, A vist 3, B vist 0: B 2 short → +4.  C pool +2; AC 6.
    #        pool 2/0/2    mountain 0/8/0      AC 6
    #  4 dA  B 6 +2, C vist, A pass: T = 2, C 2 short → +4.  B pool +2; CB 4.
    #        pool 2/2/2    mountain 0/8/4      CB 24
    #  5 dB  raspasy #1, 1 a trick: A 3, B 5, C 2.
    #        pool 2/2/2    mountain 3/13/6
    #  6 dC  raspasy #2, 2 a trick: A 0 → pool +2; B 4 → +8; C 6 → +12.
    #        pool 4/2/2    mountain 3/21/18
    #  7 dA  raspasy #3, 3 a trick: A 2 → +6; B 2 → +6; C 6 → +18.
    #        pool 4/2/2    mountain 9/27/36
    #  8 dB  raspasy #4, 3 a trick: A 1 → +3; B 9 → +27; C 0 → pool +3.
    #        pool 4/2/5    mountain 12/54/36
    #  9 dC  A 9 −2, B vist 1, C vist 2: A mountain +16; BA 8 + 16 = 24; CA 16 + 16 = 32.
    #        pool 4/2/5    mountain 28/54/36   BA 32, CA 32
    # 10 dA  C misère with 2 tricks: C mountain +20.
    #        pool 4/2/5    mountain 28/54/56
    # 11 dB  B 7 −2, A vist, C pass: T = 5, u = 2.  B mountain +8; AB 5×4 + 8 = 28; CB 8.
    #        pool 4/2/5    mountain 28/62/56   AB 32, CB 32
    # 12 dC  A 7, B pass, C half-whist: A pool +4; CA 4.
    #        pool 8/2/5    mountain 28/62/56   CA 36
    # 13 dA  C 10 −1, A vist, B pass: T = 1.  C mountain +10; AC 1×10 + 10 = 20; BC 10.
    #        pool 8/2/5    mountain 28/62/66   AC 26, BC 10
    # 14 dB  B 6, C pass, A half-whist: B pool +2; AB 2×2 = 4.
    #        pool 8/4/5    mountain 28/62/66   AB 36
    # 15 dC  C clean misère: pool +10 → 15, past 12 and kept in full (sum 27).
    #        pool 8/4/15   mountain 28/62/66
    # 16 dA  raspasy #1, 1 a trick: A 4, B 1, C 5.
    #        pool 8/4/15   mountain 32/63/71
    # 17 dB  B 9 −1, C vist, A pass: T = 2, u = 1.  B mountain +8; CB 2×8 + 8 = 24; AB 8.
    #        pool 8/4/15   mountain 32/71/71   AB 44, CB 56
    # 18 dC  C 6, pass-pass: C pool +2 → 17 (sum 29).
    #        pool 8/4/17   mountain 32/71/71
    # 19 dA  A 6 −1, C vist, B pass: T = 5.  A mountain +2; CA 5×2 + 2 = 12; BA 2.
    #        pool 8/4/17   mountain 34/71/71   BA 34, CA 48
    # 20 dB  B 8 =, A vist, C pass: T = 2.  B pool +6 → 10; AB 2×6 = 12.  Sum 35 < 36.
    #        pool 8/10/17  mountain 34/71/71   AB 56
    # 21 dC  A 10 =, B vist 0, C vist 0: A pool +10 → 18.  The side took 0 of 1: the second
    #        whister clockwise from A, C, answers → C mountain +10.  Sum 45 ≥ 36: the end.
    #        pool 18/10/17 mountain 34/71/81
    #
    # Whists: AB 56, AC 26, BA 34, BC 10, CA 48, CB 56.
    # Settlement: pools → mountains ×2 (seed C): A is 6 over → 34 − 12 = 22; B is 2 short →
    # 71 + 4 = 75; C is 5 over → 81 − 10 = 71.  Amnesty −22 → 0/53/49; M × 10/3: on B 530/3,
    # on C 490/3.
    # Pairs: A–B 56 + 530/3 − 34 = +596/3 to A;  A–C 26 + 490/3 − 48 = +424/3 to A;
    #        B–C 10 + 490/3 − (56 + 530/3) = −178/3 to B.
    # Balances: A 596/3 + 424/3 = 340;  B −596/3 − 178/3 = −258;  C −424/3 + 178/3 = −82.
    # Closed form (average carried mountain 56): A 340 + 0, B −190 − 68, C −150 + 68.
    assert play_file("russian_3_players") == Outcome(
        21,
        (18, 10, 17),
        (34, 71, 81),
        ((0, 56, 26), (34, 0, 10), (48, 56, 0)),
        (0, 53, 49),
        (F(340), F(-258), F(-82)),
    )


def test_whole_game_russian_4_players() -> None:
    """conventions.md §1.1 (the 4-player dealer's consolation), §1.2, §1.3 (keep, pool_sum with
    four players: 4 × 12), §7 and seed C; settlement.md (×2 both ways)."""
    # Russian to 12 with four players; prices as in the 3-player game; the pulka ends when the
    # pools sum to 4 × 12 = 48 or more.
    #
    #  1 dA  B 6 =, C vist, D pass: B pool +2; CB 8.
    #        pool 0/2/0/0     mountain 0/0/0/0      CB 8
    #  2 dB  C 7 −1, D vist, A pass: C mountain +4; DC 4×4 + 4 = 20; AC 4; the dealer: BC 4.
    #        pool 0/2/0/0     mountain 0/0/4/0      AC 4, BC 4, DC 20
    #  3 dC  D 6 +1, A vist 3, B vist 0: B 2 short → +4.  D pool +2; AD 6.
    #        pool 0/2/0/2     mountain 0/4/4/0      AD 6
    #  4 dD  A 8 −1, B vist 1, C vist 2: A mountain +6; BA 12; CA 18; the dealer: DA 6.
    #        pool 0/2/0/2     mountain 6/4/4/0      BA 12, CA 18, DA 6
    #  5 dA  raspasy #1, 1 a trick: B 3; C 7; D 0 → pool +1.
    #        pool 0/2/0/3     mountain 6/7/11/0
    #  6 dB  raspasy #2, 2 a trick: A 0 → pool +2; C 4 → +8; D 6 → +12.
    #        pool 2/2/0/3     mountain 6/7/19/12
    #  7 dC  raspasy #3, 3 a trick: A 4 → +12; B 0 → pool +3; D 6 → +18.
    #        pool 2/5/0/3     mountain 18/7/19/30
    #  8 dD  raspasy #4, 3 a trick: A 3 → +9; B 3 → +9; C 4 → +12.
    #        pool 2/5/0/3     mountain 27/16/31/30
    #  9 dA  C misère with 1 trick: C mountain +10.
    #        pool 2/5/0/3     mountain 27/16/41/30
    # 10 dB  D 7, A pass, C half-whist: D pool +4; CD 4.
    #        pool 2/5/0/7     mountain 27/16/41/30  CD 4
    # 11 dC  B 9 +1, D vist, A pass: T = 0, D 1 short → D mountain +8.  B pool +8 → 13, past 12
    #        and kept.
    #        pool 2/13/0/7    mountain 27/16/41/38
    # 12 dD  B 6, C pass, A half-whist: B pool +2 → 15; AB 4.
    #        pool 2/15/0/7    mountain 27/16/41/38  AB 4
    # 13 dA  C 10 =, D vist, B pass: C pool +10; D 1 short → D mountain +10.
    #        pool 2/15/10/7   mountain 27/16/41/48
    # 14 dB  A clean misère: A pool +10 → 12 (sum 44).
    #        pool 12/15/10/7  mountain 27/16/41/48
    # 15 dC  B 7 −2, A vist, D pass: T = 5, u = 2.  B mountain +8; AB 5×4 + 8 = 28; DB 8; the
    #        dealer: CB 8.
    #        pool 12/15/10/7  mountain 27/24/41/48  AB 32, CB 16, DB 8
    # 16 dD  raspasy #1, 1 a trick: A 2, B 5, C 3.
    #        pool 12/15/10/7  mountain 29/29/44/48
    # 17 dA  raspasy #2, 2 a trick: B 4 → +8; C 3 → +6; D 3 → +6.
    #        pool 12/15/10/7  mountain 29/37/50/54
    # 18 dB  D 9 −1, A vist 1, C vist 1: D mountain +8; AD 8 + 8 = 16; CD 16; the dealer: BD 8.
    #        pool 12/15/10/7  mountain 29/37/50/62  AD 22, BD 8, CD 20
    # 19 dC  A 6, pass-pass: A pool +2 → 14 (sum 46).
    #        pool 14/15/10/7  mountain 29/37/50/62
    # 20 dD  B 8 −1, C vist, A pass: T = 3, u = 1.  B mountain +6; CB 3×6 + 6 = 24; AB 6; the
    #        dealer: DB 6.
    #        pool 14/15/10/7  mountain 29/43/50/62  AB 38, CB 40, DB 14
    # 21 dA  D misère with 2 tricks: D mountain +20.
    #        pool 14/15/10/7  mountain 29/43/50/82
    # 22 dB  C 7 −1, D vist 3, A vist 1: C mountain +4; DC 3×4 + 4 = 16; AC 1×4 + 4 = 8; the
    #        dealer: BC 4.
    #        pool 14/15/10/7  mountain 29/43/54/82  AC 12, BC 8, DC 36
    # 23 dC  D 8 =, A vist, B pass: T = 2, AD 12.  D pool +6 → 13: sum 52 ≥ 48, the end.
    #        pool 14/15/10/13 mountain 29/43/54/82  AD 34
    #
    # Whists: AB 38, AC 12, AD 34; BA 12, BC 8, BD 8; CA 18, CB 40, CD 20; DA 6, DB 14, DC 36.
    # Settlement: pools → mountains ×2: A 29 − 2×2 = 25; B 43 − 3×2 = 37; C 54 + 2×2 = 58;
    # D 82 − 1×2 = 80.  Amnesty −25 → 0/12/33/55; M × 10/4: on B 30, on C 165/2, on D 275/2.
    # Pairs: A–B 38 + 30 − 12 = +56 to A;  A–C 12 + 165/2 − 18 = +153/2 to A;
    #        A–D 34 + 275/2 − 6 = +331/2 to A;  B–C 8 + 165/2 − (40 + 30) = +41/2 to B;
    #        B–D 8 + 275/2 − (14 + 30) = +203/2 to B;  C–D 20 + 275/2 − (36 + 165/2) = +39 to C.
    # Balances: A 56 + 153/2 + 331/2 = 298;  B −56 + 41/2 + 203/2 = 66;
    #           C −153/2 − 41/2 + 39 = −58;  D −331/2 − 203/2 − 39 = −306.
    # Closed form (average carried mountain 50): A 250 + 48, B 130 − 64, C −80 + 22, D −300 − 6.
    assert play_file("russian_4_players") == Outcome(
        23,
        (14, 15, 10, 13),
        (29, 43, 54, 82),
        ((0, 38, 12, 34), (12, 0, 8, 8), (18, 40, 0, 20), (6, 14, 36, 0)),
        (0, 12, 33, 55),
        (F(298), F(66), F(-58), F(-306)),
    )
