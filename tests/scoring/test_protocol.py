"""Protocol files: a whole game as text (spec/notation.md "Protocol file")."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from scoring.deal import (
    Adjust,
    Column,
    Contract,
    Defender,
    Extras,
    LastRound,
    Misere,
    Raspasy,
    Role,
    Suit,
)
from scoring.errors import ProtocolError
from scoring.notation import Protocol, Table, format_protocol, parse_protocol, parse_record
from scoring.replay import replay
from scoring.rules import WhistSplit, rules_for
from scoring.sheet import Game

A, B, C, D = 0, 1, 2, 3
PROTOCOLS = Path(__file__).parent.parent / "data" / "protocols"
FILES = sorted(PROTOCOLS.glob("*.txt"))

SPEC_EXAMPLE = """\
# convention: sochi
# players: Anna Boris Clara
# pool: 10
Anna 6♠ = vist:Boris pass:Clara
рас Anna/2 Boris/3 Clara/5
Clara misere 0
"""


def test_notation_protocol_file_example() -> None:
    """notation.md "Protocol file": the example reads as a Sochi game to 10 with three records."""
    protocol = parse_protocol(SPEC_EXAMPLE)
    assert protocol == Protocol(
        convention="sochi",
        players=("Anna", "Boris", "Clara"),
        pool=10,
        stake=None,
        dealer=0,
        options={},
        records=(
            (
                4,
                Contract(A, 6, Suit.SPADES, 0, (Defender(B, Role.WHIST), Defender(C, Role.PASS))),
            ),
            (5, Raspasy(((A, 2), (B, 3), (C, 5)))),
            (6, Misere(C, 0)),
        ),
    )
    game = protocol.game()
    assert game.rules == rules_for("sochi", 3, {"pool_target": "10"})
    assert (game.players, game.first_dealer, game.stake) == (("Anna", "Boris", "Clara"), 0, None)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_protocol_files(path: Path) -> None:
    """Each file in tests/data/protocols: states its source, reads, replays, and writes back."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# source: ")
    protocol = parse_protocol(text)
    deal_lines = [
        number
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.strip().startswith("#")
    ]
    assert [number for number, _ in protocol.records] == deal_lines
    records = [record for _, record in protocol.records]
    game = protocol.game()
    replay(game, records)  # a legal game: the dealer tracked here is the replay's dealer
    again = parse_protocol(format_protocol(game, records))
    assert again.game() == game
    assert [record for _, record in again.records] == records


def test_files_exist() -> None:
    assert len(FILES) >= 4


# --- Header ---------------------------------------------------------------------------------


def test_header_sets_stake_dealer_and_options() -> None:
    protocol = parse_protocol(
        "# convention: Ленинградка\n"
        "# players: Anna Boris Clara Dima\n"
        "# stake: 0.5\n"
        "# dealer: C\n"
        "# option: whist_split = greedy\n"
        "# option: consolation=value\n"
    )
    assert protocol.convention == "leningrad"
    assert protocol.stake == Fraction(1, 2)
    assert protocol.dealer == C
    assert protocol.options == {"whist_split": "greedy", "consolation": "value"}
    assert protocol.pool is None
    game = protocol.game()
    assert game.rules.whist_split is WhistSplit.GREEDY
    assert game.rules.pool_target == 20
    assert game.first_dealer == C


def test_a_decimal_stake_is_exact() -> None:
    protocol = parse_protocol("# convention: sochi\n# players: A1 B1 C1\n# stake: 0.1\n")
    assert protocol.stake == Fraction(1, 10)


def test_pool_as_an_option_is_the_pool_header() -> None:
    protocol = parse_protocol(
        "# convention: sochi\n# players: A1 B1 C1\n# option: pool_target=30\n"
    )
    assert protocol.pool == 30
    assert protocol.options == {}


def test_unknown_keys_blank_lines_and_later_hash_lines_are_comments() -> None:
    text = (
        "\ufeff# source: a test\r\n"
        "# convention: sochi\r\n"
        "# exported: 2026-11-29\r\n"
        "\r\n"
        "# players: Anna Boris Clara\r\n"
        "# just a comment line\n"
        "Anna 6♠ = vist:Boris pass:Clara\n"
        "# pool: 99\n"
        "# convention: moscow\n"
        "\n"
        "   \n"
        "Boris 6♠ = pass:Anna pass:Clara\n"
    )
    protocol = parse_protocol(text)
    assert protocol.convention == "sochi"
    assert protocol.pool is None
    assert [number for number, _ in protocol.records] == [7, 12]


def test_a_file_without_deals_is_a_game_not_yet_played() -> None:
    protocol = parse_protocol("# convention: sochi\n# players: Anna Boris Clara\n")
    assert protocol.records == ()


# --- Dealer rotation -------------------------------------------------------------------------


def test_four_players_the_dealer_moves_after_every_deal_not_after_adjust_or_last_round() -> None:
    """notation.md "Players": the dealer rotates clockwise after every deal, raspasy included."""
    text = (
        "# convention: sochi\n"
        "# players: Anna Boris Clara Dima\n"
        "рас 2 3 5\n"  # Anna deals: Boris, Clara, Dima
        "adjust Anna pool +1\n"
        "last-round\n"
        "рас 2 3 5\n"  # Boris deals: Anna, Clara, Dima
        "Anna misere 0\n"  # Clara deals
        "рас 2 3 5\n"  # Dima deals: Anna, Boris, Clara
        "рас 2 3 5\n"  # Anna again
    )
    records = [record for _, record in parse_protocol(text).records]
    assert records[0] == Raspasy(((B, 2), (C, 3), (D, 5)))
    assert records[1] == Adjust(A, Column.POOL, Fraction(1))
    assert records[2] == LastRound()
    assert records[3] == Raspasy(((A, 2), (C, 3), (D, 5)))
    assert records[5] == Raspasy(((A, 2), (B, 3), (C, 5)))
    assert records[6] == Raspasy(((B, 2), (C, 3), (D, 5)))


def test_dealer_word_sets_this_deal_and_the_rotation_continues_from_it() -> None:
    text = (
        "# convention: sochi\n"
        "# players: Anna Boris Clara Dima\n"
        "# dealer: B\n"
        "рас 2 3 5 dealer:D\n"  # Dima deals instead of Boris
        "рас 2 3 5\n"  # then Anna
    )
    records = [record for _, record in parse_protocol(text).records]
    assert records == [
        Raspasy(((A, 2), (B, 3), (C, 5)), Extras(dealer=D)),
        Raspasy(((B, 2), (C, 3), (D, 5))),
    ]


def test_a_dealer_in_play_is_an_error_at_its_line() -> None:
    text = "# convention: sochi\n# players: Anna Boris Clara Dima\n\nAnna 6♠ = vist:B pass:C\n"
    with pytest.raises(ProtocolError) as caught:
        parse_protocol(text)
    assert (caught.value.code, caught.value.span, caught.value.line) == (
        "dealer-in-play",
        "Anna",
        4,
    )


# --- Errors ----------------------------------------------------------------------------------

GOOD = "# convention: sochi\n# players: Anna Boris Clara\n"


@pytest.mark.parametrize(
    ("text", "code", "span", "line"),
    [
        (GOOD + "Anna 6♠ = vist:Boris pass:Zed\n", "unknown-player", "Zed", 3),
        (GOOD + "\n\nAnna 5♠ = vist:Boris pass:Clara\n", "bad-level", "5♠", 5),
        (GOOD + "me 6♠ = vist:Boris pass:Clara\n", "me-outside-chat", "me", 3),
        ("# players: Anna Boris Clara\nAnna misere 0\n", "bad-header", "", 0),
        ("# convention: sochi\nAnna misere 0\n", "bad-players", "", 0),
        ("# convention: whist\n# players: Anna Boris Clara\n", "unknown-convention", "whist", 1),
        ("# convention: sochi\n# players: Anna Boris\n", "bad-players", "Anna Boris", 2),
        ("# convention: sochi\n# players: Anna Boris anna\n", "bad-players", "anna", 2),
        ("# convention: sochi\n# players: Anna Boris C:3\n", "bad-players", "C:3", 2),
        (GOOD + "# pool: ten\n", "bad-option-value", "ten", 3),
        (GOOD + "# pool: 10\n# pool: 20\n", "bad-header", "20", 4),
        (GOOD + "# stake: -1\n", "bad-header", "-1", 3),
        (GOOD + "# stake: 1/0\n", "bad-header", "1/0", 3),
        (GOOD + "# stake: 1/2\n", "bad-header", "1/2", 3),
        (GOOD + "# stake: +1\n", "bad-header", "+1", 3),
        (GOOD + "# option: Pool_Target=10\n", "unknown-option", "Pool_Target", 3),
        (GOOD + "# option: three_down=yes\n", "bad-option-value", "yes", 3),
        (GOOD + "# option: dealer_whist=true\n", "unknown-option", "dealer_whist", 3),
        (GOOD + "# dealer: Zed\n", "unknown-player", "Zed", 3),
        (GOOD + "# option: fast=yes\n", "unknown-option", "fast", 3),
        (GOOD + "# option: overflow=burn\n", "bad-option-value", "burn", 3),
        (GOOD + "# option: overflow\n", "bad-header", "overflow", 3),
        (
            GOOD + "# option: overflow=keep\n# option: overflow=help\n",
            "bad-header",
            "overflow=help",
            4,
        ),
    ],
)
def test_each_problem_names_its_line(text: str, code: str, span: str, line: int) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_protocol(text)
    assert (caught.value.code, caught.value.span, caught.value.line) == (code, span, line)


# --- Writing ---------------------------------------------------------------------------------


def test_format_protocol_writes_the_header_options_and_canonical_lines() -> None:
    rules = rules_for("odessa", 4, {"pool_target": "30", "whist_split": "gentleman"})
    game = Game(rules, ("Anna", "Boris", "Clara", "Dima"), first_dealer=D, stake=Fraction(1, 2))
    table = Table(game.players, dealer=D)
    records = [parse_record("Clara 7♠ -1 vist:Dima pass:Boris", table), LastRound()]
    text = format_protocol(game, records, comments={0: ["vote 3: accepted", "second line"]})
    assert text == (
        "# convention: odessa\n"
        "# players: Anna Boris Clara Dima\n"
        "# pool: 30\n"
        "# stake: 0.5\n"
        "# dealer: Dima\n"
        "# option: whist_split=gentleman\n"
        "Clara 7♠ -1 vist:Dima pass:Boris\n"
        "# vote 3: accepted\n"
        "# second line\n"
        "last-round\n"
    )
    protocol = parse_protocol(text)
    assert protocol.game() == game
    assert [record for _, record in protocol.records] == records


def test_format_protocol_names_an_unreadable_dealer_by_seat_letter() -> None:
    game = Game(rules_for("sochi", 3), ("B", "A", "Clara"), first_dealer=0)
    text = format_protocol(game, [])
    assert "# dealer: A\n" in text
    assert parse_protocol(text).game() == game


def test_format_protocol_refuses_names_a_file_cannot_hold() -> None:
    game = Game(rules_for("sochi", 3), ("Anna Maria", "Boris", "Clara"))
    with pytest.raises(ProtocolError) as caught:
        format_protocol(game, [])
    assert caught.value.code == "bad-players"
