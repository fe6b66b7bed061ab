"""The deal notation: what players type, what the bot prints (spec/notation.md)."""

from __future__ import annotations

from fractions import Fraction

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
    Record,
    Role,
    Suit,
)
from scoring.errors import ERROR_CODES, IllegalDeal, InvalidDeal, NotationError, OptionError
from scoring.notation import Table, format_record, parse_protocol, parse_record, resolve_player
from tests.scoring.engine import half, pas, vist

A, B, C, D = 0, 1, 2, 3
NAMES = ("Anna", "Boris", "Clara")
ABC = Table(NAMES)
CHAT = Table(NAMES, usernames=("anna_k", None, "@clara_s"), sender=B)
FOUR = ("Anna", "Boris", "Clara", "Dima")


def game(
    declarer: int,
    level: int,
    suit: Suit | None,
    result: int,
    *defenders: Defender,
    three_down: bool = False,
    **extras: object,
) -> Contract:
    return Contract(
        declarer,
        level,
        suit,
        result,
        tuple(defenders),
        three_down,
        Extras(**extras),  # type: ignore[arg-type]
    )


# --- notation.md "Contract deal": the examples table ---------------------------------------------

SPEC_CONTRACTS: list[tuple[str, Contract]] = [
    ("/deal 7♠ -1 vist:A pass:B", game(C, 7, Suit.SPADES, -1, vist(A), pas(B))),
    ("/deal C 6п = вист:A/2 вист:B/2", game(C, 6, Suit.SPADES, 0, vist(A, 2), vist(B, 2))),
    ("/deal Anna 8бк vist:B/1 vist:C/0", game(A, 8, Suit.NO_TRUMP, 1, vist(B, 1), vist(C, 0))),
    ("/deal 6♥ pass:A pass:B", game(C, 6, Suit.HEARTS, 0, pas(A), pas(B))),
    ("/deal 7♦ pass:A half:B", game(C, 7, Suit.DIAMONDS, 0, pas(A), half(B))),
    ("/deal C 6♠ уход", game(C, 6, Suit.SPADES, 0, three_down=True)),
]


@pytest.mark.parametrize(("line", "expected"), SPEC_CONTRACTS)
def test_notation_contract_examples(line: str, expected: Contract) -> None:
    """notation.md "Contract deal": every line of the examples table means what the table says."""
    assert parse_record(line, ABC) == expected


def test_notation_canonical_form_example() -> None:
    """notation.md "Canonical form": `Clara 7♠ -1 vist:Anna pass:Boris`."""
    record = parse_record("/deal 7♠ -1 vist:A pass:B", ABC)
    assert format_record(record, NAMES) == "Clara 7♠ -1 vist:Anna pass:Boris"
    assert format_record(record, NAMES, lang="ru") == "Clara 7♠ -1 вист:Anna пас:Boris"


@pytest.mark.parametrize(
    ("line", "tricks"),
    [
        ("C misere 0", 0),
        ("C мизер =", 0),
        ("C мизер", 0),
        ("C misere 2", 2),
        ("C мизер -2", 2),
        ("C мизер без 2", 2),
        ("C мизер без2", 2),
        ("мизер Clara 1", 1),
    ],
)
def test_notation_misere_examples(line: str, tricks: int) -> None:
    """notation.md "Misère": `0`, `=` or nothing is clean; `2`, `-2`, `без 2` are two tricks."""
    assert parse_record(line, ABC) == Misere(C, tricks)


@pytest.mark.parametrize(
    "line",
    [
        "/deal pass A/2 B/3 C/5",
        "/deal распасы A/2 B/3 C/5",
        "/deal рас 2 3 5",
        "рас Clara/5 Anna/2 Boris/3",
        "рас A=2 B=3 C=5",
    ],
)
def test_notation_raspasy_examples(line: str) -> None:
    """notation.md "Raspasy": named or in seat order, kept in seat order."""
    assert parse_record(line, ABC) == Raspasy(((A, 2), (B, 3), (C, 5)))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("adjust Anna pool -2", Adjust(A, Column.POOL, Fraction(-2))),
        ("adjust B mountain +10", Adjust(B, Column.MOUNTAIN, Fraction(10))),
        ("adjust C mountain 5", Adjust(C, Column.MOUNTAIN, Fraction(5))),
        ("adjust Anna whists:Boris +7/2", Adjust(A, Column.WHISTS, Fraction(7, 2), target=B)),
        ("adjust Anna whists:B -2.5", Adjust(A, Column.WHISTS, Fraction(-5, 2), target=B)),
        (
            'adjust Clara pool -4 note:"penalty 4.2.7"',
            Adjust(C, Column.POOL, Fraction(-4), note="penalty 4.2.7"),
        ),
    ],
)
def test_notation_adjust_examples(line: str, expected: Adjust) -> None:
    """notation.md "Adjustments": pool, mountain or whists on a target, ±N, fractions allowed."""
    assert parse_record(line, ABC) == expected


def test_last_round_is_a_line_or_the_command() -> None:
    """notation.md "Contract deal": `last-round` (or `/lastround`) marks the last round."""
    assert parse_record("last-round", ABC) == LastRound()
    assert parse_record("/lastround@prefbot", ABC) == LastRound()
    assert format_record(LastRound(), NAMES) == "last-round"


# --- Words of the notation --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("contract", "level", "suit"),
    [
        ("7♠", 7, Suit.SPADES),
        ("7♠️", 7, Suit.SPADES),  # the emoji form phones send
        ("7s", 7, Suit.SPADES),
        ("7S", 7, Suit.SPADES),
        ("7п", 7, Suit.SPADES),
        ("7 пик", 7, Suit.SPADES),
        ("7 spades", 7, Suit.SPADES),
        ("7♣", 7, Suit.CLUBS),
        ("7c", 7, Suit.CLUBS),
        ("7т", 7, Suit.CLUBS),
        ("7 трефы", 7, Suit.CLUBS),
        ("7♦", 7, Suit.DIAMONDS),
        ("7d", 7, Suit.DIAMONDS),
        ("7б", 7, Suit.DIAMONDS),
        ("7 бубны", 7, Suit.DIAMONDS),
        ("7♥", 7, Suit.HEARTS),
        ("7h", 7, Suit.HEARTS),
        ("7ч", 7, Suit.HEARTS),
        ("7 hearts", 7, Suit.HEARTS),
        ("8бк", 8, Suit.NO_TRUMP),
        ("8nt", 8, Suit.NO_TRUMP),
        ("8NT", 8, Suit.NO_TRUMP),
        ("8 бк", 8, Suit.NO_TRUMP),
        ("тотус", 10, None),
        ("тотус бк", 10, Suit.NO_TRUMP),
        ("10♥", 10, Suit.HEARTS),
        ("9", 9, None),
    ],
)
def test_levels_and_suits_in_every_spelling(contract: str, level: int, suit: Suit | None) -> None:
    """notation.md: suit symbols, letters (Latin and Russian), words; `тотус` is 10; no suit."""
    record = parse_record(f"C {contract} = vist:A pass:B", ABC)
    assert record == game(C, level, suit, 0, vist(A), pas(B))


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ("=", 0),
        ("-0", 0),
        ("+0", 0),
        ("-1", -1),
        ("−1", -1),  # the Unicode minus
        ("без 2", -2),
        ("без2", -2),
        ("Без 3", -3),
        ("+1", 1),
    ],
)
def test_result_forms(result: str, expected: int) -> None:
    """notation.md RESULT: `=`, `-N`, `без N`, `без3`, `+N`; `-0` and `+0` mean made."""
    assert parse_record(f"C 7♠ {result} vist:A pass:B", ABC).result == expected  # type: ignore[union-attr]


def test_result_may_stick_to_the_contract() -> None:
    assert parse_record("C 7♠-1 vist:A pass:B", ABC) == game(
        C, 7, Suit.SPADES, -1, vist(A), pas(B)
    )
    assert parse_record("C 6п= pass:A pass:B", ABC) == game(C, 6, Suit.SPADES, 0, pas(A), pas(B))


@pytest.mark.parametrize(
    ("words", "roles"),
    [
        ("vist:A pass:B", (Role.WHIST, Role.PASS)),
        ("v:A p:B", (Role.WHIST, Role.PASS)),
        ("w:A P:B", (Role.WHIST, Role.PASS)),
        ("вист:A пас:B", (Role.WHIST, Role.PASS)),
        ("pass:A half:B", (Role.PASS, Role.HALF)),
        ("пас:A пол:B", (Role.PASS, Role.HALF)),
        ("пас:A полвиста:B", (Role.PASS, Role.HALF)),
        ("vist: A pass: B", (Role.WHIST, Role.PASS)),  # a space after the colon
    ],
)
def test_role_words(words: str, roles: tuple[Role, ...]) -> None:
    """notation.md DEFENDER: `vist v w вист` | `pass p пас` | `half пол полвиста`."""
    record = parse_record(f"C 7♠ = {words}", ABC)
    assert isinstance(record, Contract)
    assert record.roles == roles


def test_tricks_may_follow_a_slash_or_an_equals_sign() -> None:
    """notation.md: `ROLE:PLAYER[/TRICKS]`, `=` may replace `/`."""
    slash = parse_record("C 6♠ vist:A/2 vist:B/2", ABC)
    equals = parse_record("C 6♠ vist:A=2 vist:B=2", ABC)
    assert slash == equals == game(C, 6, Suit.SPADES, 0, vist(A, 2), vist(B, 2))


@pytest.mark.parametrize(
    ("extras", "expected"),
    [
        ("open", Extras(open=True)),
        ("светлую", Extras(open=True)),
        ("closed", Extras(open=False)),
        ("тёмную", Extras(open=False)),
        ("темную", Extras(open=False)),
        ("dealer:B", Extras(dealer=B)),
        ("prikup:2", Extras(prikup=2)),
        ('note:"first deal"', Extras(note="first deal")),
        ("note:«как   договорились»", Extras(note="как договорились")),
        ("note:short", Extras(note="short")),
        ("late", Extras(late=True)),
        ("late open dealer:Clara", Extras(dealer=C, open=True, late=True)),
    ],
)
def test_extras(extras: str, expected: Extras) -> None:
    """notation.md EXTRA: open/closed, dealer, prikup, note (whitespace collapsed), late."""
    record = parse_record(f"C 7♠ = vist:A pass:B {extras}", ABC)
    assert isinstance(record, Contract)
    assert record.extras == expected


def test_a_leading_deal_command_is_ignored() -> None:
    expected = game(C, 7, Suit.SPADES, -1, vist(A), pas(B))
    for line in (
        "/deal 7♠ -1 vist:A pass:B",
        "/deal@prefbot 7♠ -1 vist:A pass:B",
        "7♠ -1 vist:A pass:B",
    ):
        assert parse_record(line, ABC) == expected


def test_words_may_come_in_any_order_after_the_command() -> None:
    expected = game(C, 7, Suit.SPADES, -1, vist(A), pas(B))
    assert parse_record("vist:A pass:B 7♠ -1", ABC) == expected
    assert parse_record("7♠ vist:A -1 pass:B Clara", ABC) == expected


def test_commas_separate_words_like_spaces() -> None:
    assert parse_record("C 7♠ -1, vist:A, pass:B", ABC) == game(
        C, 7, Suit.SPADES, -1, vist(A), pas(B)
    )


# --- Normalisation: equal deals compare equal --------------------------------------------------


S = Suit.SPADES
# Lines (split at " | ") that read as one record: notation.md TRICKS, "Players", four players.
SAME_RECORD: list[tuple[Table, str, Record]] = [
    # defenders are kept clockwise from the declarer, whatever the typing order
    (ABC, "B 7♠ -1 pass:A vist:C | B 7♠ -1 vist:C pass:A", game(B, 7, S, -1, vist(C), pas(A))),
    # one whister: the side's tricks follow from RESULT, and are dropped
    (
        ABC,
        "C 7♠ vist:A/3 pass:B/1 | C 7♠ -1 vist:A pass:B | C 7♠ -1 vist:A/4 pass:B",
        game(C, 7, S, -1, vist(A), pas(B)),
    ),
    # two whisters: a RESULT and one count give the other the rest; both counts give the RESULT
    (
        ABC,
        "C 6♠ -1 vist:A/3 vist:B | C 6♠ -1 vist:A vist:B/2 | C 6♠ vist:A/3 vist:B/2",
        game(C, 6, S, -1, vist(A, 3), vist(B, 2)),
    ),
    (ABC, "C 10 = vist:A vist:B", game(C, 10, None, 0, vist(A, 0), vist(B, 0))),
    # a deal not played has result zero and no tricks
    (ABC, "C 6♥ = pass:A pass:B | C 6♥ pass:A pass:B", game(C, 6, Suit.HEARTS, 0, pas(A), pas(B))),
    (ABC, "C 6♠ = уход", game(C, 6, S, 0, three_down=True)),
    # a lone `В` is seat B (notation.md "Players"), so Вера takes two letters
    (
        Table(("Алёна", "Борис", "Вера")),
        "Ве 7♠ -1 вист:Ал пас:Бо",
        game(2, 7, S, -1, vist(0), pas(1)),
    ),
    (CHAT, "я 7♠ -1 vist:A pass:C", game(B, 7, S, -1, pas(C), vist(A))),  # me: the sender
    # four players: the dealer sits out, the declarer is the active player left
    (Table(FOUR, dealer=A), "7♠ -1 vist:B pass:C", game(D, 7, S, -1, vist(B), pas(C))),
    (Table(FOUR), "D 7♠ -1 vist:B pass:C", game(D, 7, S, -1, vist(B), pas(C))),
    (Table(FOUR, dealer=B), "рас 2 3 5", Raspasy(((A, 2), (C, 3), (D, 5)))),
    # `dealer:X` says who dealt this deal
    (
        Table(FOUR, dealer=A),
        "рас 2 3 5 dealer:D",
        Raspasy(((A, 2), (B, 3), (C, 5)), Extras(dealer=D)),
    ),
    (Table(FOUR), "7♠ -1 vist:B pass:C dealer:A", game(D, 7, S, -1, vist(B), pas(C), dealer=A)),
    # conventions.md §6: the Odessa dealer may whist for a passer — `vist:DEALER pass:X`
    (Table(FOUR, dealer=D), "C 7♠ -1 vist:D pass:A", game(C, 7, S, -1, vist(D), pas(A))),
    (Table(NAMES, dealer=A), "A 7♠ -1 vist:B pass:C", game(A, 7, S, -1, vist(B), pas(C))),
]


@pytest.mark.parametrize(("table", "lines", "expected"), SAME_RECORD)
def test_lines_that_read_as_one_record(table: Table, lines: str, expected: Record) -> None:
    for line in lines.split(" | "):
        assert parse_record(line, table) == expected, line


def test_cyrillic_names_and_prefixes() -> None:
    table = Table(("Алёна", "Борис", "Вера"))
    assert resolve_player("алена", table) == 0
    assert resolve_player("Бор", table) == 1


# --- Players (notation.md "Players") -----------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "seat"),
    [
        ("A", A),
        ("B", B),
        ("C", C),
        ("Anna", A),
        ("anna", A),
        ("BORIS", B),
        ("@anna_k", A),
        ("@Clara_S", C),
        ("Cl", C),
        ("bor", B),
        ("me", B),
        ("я", B),
        ("Я", B),
    ],
)
def test_player_references(ref: str, seat: int) -> None:
    """Seat letter, exact name (any case), @username, unique prefix, me/я for the sender."""
    assert resolve_player(ref, CHAT) == seat


def test_seat_letter_comes_before_a_name() -> None:
    """notation.md "Players": "a single seat letter, always a seat: `A`–`D` (Latin, either case)"
    (it was upper case only; the revised spec reads `a` as seat A too)."""
    table = Table(("B", "A", "Clara"))
    assert resolve_player("A", table) == 0
    assert resolve_player("a", table) == 0


def test_an_exact_name_comes_before_a_prefix() -> None:
    table = Table(("Ann", "Anna", "Boris"))
    assert resolve_player("ann", table) == 0
    assert resolve_player("anna", table) == 1


def test_an_ambiguous_prefix_lists_the_players() -> None:
    table = Table(("Anna", "Andrei", "Boris"))
    with pytest.raises(InvalidDeal) as caught:
        parse_record("An 7♠ = vist:B pass:C", table)
    assert caught.value.code == "ambiguous-player"
    assert caught.value.span == "An"
    assert caught.value.params == {"players": "Anna, Andrei, Boris", "matches": "Anna, Andrei"}


def test_an_unknown_player_lists_the_players() -> None:
    with pytest.raises(InvalidDeal) as caught:
        parse_record("C 7♠ = vist:Zed pass:B", ABC)
    assert caught.value.code == "unknown-player"
    assert caught.value.span == "Zed"
    assert caught.value.params == {"players": "Anna, Boris, Clara"}


def test_me_is_an_error_in_a_file() -> None:
    with pytest.raises(InvalidDeal) as caught:
        parse_record("me 7♠ -1 vist:A pass:B", ABC)
    assert (caught.value.code, caught.value.span) == ("me-outside-chat", "me")


# --- Four players: the dealer sits out ----------------------------------------------------------


def test_four_players_without_a_known_dealer_need_the_declarer_named() -> None:
    table = Table(FOUR)
    assert parse_record("D 7♠ -1 vist:B pass:C", table) == game(
        D, 7, Suit.SPADES, -1, vist(B), pas(C)
    )
    with pytest.raises(InvalidDeal) as caught:
        parse_record("7♠ -1 vist:B pass:C", table)
    assert caught.value.code == "missing-declarer"
    with pytest.raises(InvalidDeal) as caught:
        parse_record("рас 2 3 5", table)
    assert caught.value.code == "missing-dealer"


@pytest.mark.parametrize(
    ("line", "span"),
    [
        ("D 7♠ -1 vist:A pass:B", "D"),
        ("C 7♠ -1 pass:D vist:A", "pass:D"),
        ("C 7♠ -1 vist:D vist:A", "vist:D"),
        ("C 7♠ = pass:D pass:A", "pass:D"),
        ("D misere 0", "D"),
        ("D 6♠ уход", "D"),
        ("рас A/2 B/3 D/5", "D/5"),
    ],
)
def test_four_players_dealer_in_play_is_illegal(line: str, span: str) -> None:
    with pytest.raises(IllegalDeal) as caught:
        parse_record(line, Table(FOUR, dealer=D))
    assert (caught.value.code, caught.value.span) == ("dealer-in-play", span)
    assert caught.value.params == {"dealer": "Dima"}


# --- Errors: one per code (notation.md "Errors") ----------------------------------------------

ERRORS: list[tuple[str, str, str]] = [
    ("", "empty-deal", ""),
    ("/deal", "empty-deal", "/deal"),
    ("C 7♠ -1 vsit:A pass:B", "unknown-word", "vsit:A"),
    ("C 7♠ -1 vist:A pass:B hello:1", "unknown-word", "hello:1"),
    ("C 7x -1 vist:A pass:B", "unknown-word", "7x"),
    ("C 7♠ -1 vist:Zed pass:B", "unknown-player", "Zed"),
    ("Zed 7♠ -1 vist:A pass:B", "unknown-player", "Zed"),
    ("C 7♠ -1 vist:A pass:A", "same-player-twice", "pass:A"),
    ("C 7♠ -1 vist:C pass:B", "declarer-defends", "vist:C"),
    ("C 5♠ -1 vist:A pass:B", "bad-level", "5♠"),
    ("C 11 -1 vist:A pass:B", "bad-level", "11"),
    ("C 6♠ vist:A/11 vist:B/0", "bad-tricks", "vist:A/11"),
    ("C 7♠ -8 vist:A pass:B", "bad-tricks", "-8"),
    ("C 7♠ +4 vist:A pass:B", "bad-tricks", "+4"),
    ("C 6♠ vist:A/6 vist:B/5", "tricks-not-ten", "vist:A/6 vist:B/5"),
    ("рас 2 3 4", "tricks-not-ten", "2 3 4"),
    ("рас 2 3", "bad-tricks", "2 3"),
    ("C 6♠ -1 vist:A/3 vist:B/3", "result-contradicts-tricks", "-1 vist:A/3 vist:B/3"),
    ("C 7♠ -1 vist:A/5 pass:B", "result-contradicts-tricks", "-1 vist:A/5"),
    ("C 7♠ vist:A pass:B", "missing-result", "7♠"),
    ("C 7♠ -1 vist:A", "missing-defenders", "C 7♠ -1 vist:A"),
    ("C 8♠ = pass:A half:B", "half-whist-on-high", "half:B"),
    ("C 7♠ = vist:A half:B", "half-beside-whist", "half:B"),
    ("C 7♠ = half:A half:B", "two-half-whists", "half:B"),
    ("C 6♥ -1 pass:A pass:B", "not-played-with-tricks", "-1"),
    ("C 7♦ = pass:A half:B/1", "not-played-with-tricks", "half:B/1"),
    ("C 6♠ без 3 уход", "not-played-with-tricks", "без 3"),
    ("C misere 11", "bad-misere-tricks", "11"),
    ("C misere +1", "bad-misere-tricks", "+1"),
    ("C 7♠ = vist:A pass:B prikup:4", "bad-prikup", "prikup:4"),
    ("C misere 0 prikup:1", "bad-prikup", "prikup:1"),
    ("adjust A pool 0", "bad-adjust", "0"),
    ("adjust A pool", "bad-adjust", "adjust A pool"),
    ("adjust A whists:A +2", "bad-adjust", "whists:A"),
    ("adjust A pool 1/0", "bad-adjust", "1/0"),
    ("me 7♠ -1 vist:A pass:B", "me-outside-chat", "me"),
    ("C vist:A pass:B", "missing-level", "C vist:A pass:B"),
    ("мизер 0", "missing-declarer", "мизер 0"),
    ("6♠ уход", "missing-declarer", "6♠ уход"),
    ("C 6♠ -1 vist:A vist:B", "missing-tricks", "vist:A vist:B"),
    ("C 6♠ = vist:A pass:B уход", "too-many-defenders", "vist:A"),
    ("C 7♠ = open closed vist:A pass:B", "repeated-word", "closed"),
    ("C 7♠ = -1 vist:A pass:B", "repeated-word", "-1"),
    ("C 7♠ 8♠ = vist:A pass:B", "repeated-word", "8♠"),
    ("C A 7♠ = vist:B pass:A", "repeated-word", "A"),
    ('C 7♠ -1 vist:A pass:B note:"late start', "unterminated-note", 'note:"late start'),
]


@pytest.mark.parametrize(("line", "code", "span"), ERRORS)
def test_each_error_names_its_code_and_the_part_at_fault(line: str, code: str, span: str) -> None:
    """notation.md "Errors": a code, the input at fault, and one correct example."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(line, ABC)
    assert (caught.value.code, caught.value.span) == (code, span)
    assert caught.value.code in ERROR_CODES
    parse_record(caught.value.example, ABC)  # the example is a correct line


def test_the_error_table_covers_every_syntax_code() -> None:
    syntax = {
        "empty-deal",
        "unknown-word",
        "unknown-player",
        "ambiguous-player",
        "same-player-twice",
        "declarer-defends",
        "bad-level",
        "bad-tricks",
        "tricks-not-ten",
        "result-contradicts-tricks",
        "missing-result",
        "missing-defenders",
        "half-whist-on-high",
        "half-beside-whist",
        "two-half-whists",
        "not-played-with-tricks",
        "bad-misere-tricks",
        "bad-prikup",
        "bad-adjust",
        "me-outside-chat",
        "unterminated-note",
    }
    tested = {code for _, code, _ in ERRORS} | {"ambiguous-player"}
    assert syntax <= tested


def test_the_example_of_an_error_uses_the_tables_own_players() -> None:
    table = Table(("Петя", "Вася", "Коля", "Миша"), dealer=0)
    with pytest.raises(NotationError) as caught:
        parse_record("Петя 7♠ -1 vist:Вася pass:Коля", table)
    assert caught.value.example == "Миша 7♠ -1 vist:Вася pass:Коля"
    parse_record(caught.value.example, table)


def test_an_error_span_is_the_text_as_typed() -> None:
    with pytest.raises(InvalidDeal) as caught:
        parse_record("C 7♠ БЕЗ 9 vist:A pass:B", ABC)
    assert (caught.value.code, caught.value.span) == ("bad-tricks", "БЕЗ 9")


# --- Canonical form ---------------------------------------------------------------------------

CANONICAL: list[tuple[Record, str, str]] = [
    (
        game(C, 6, Suit.SPADES, 0, vist(A, 2), vist(B, 2)),
        "Clara 6♠ = vist:Anna/2 vist:Boris/2",
        "Clara 6♠ = вист:Anna/2 вист:Boris/2",
    ),
    (
        game(A, 8, Suit.NO_TRUMP, 1, vist(B, 1), vist(C, 0)),
        "Anna 8NT +1 vist:Boris/1 vist:Clara/0",
        "Anna 8бк +1 вист:Boris/1 вист:Clara/0",
    ),
    (
        game(C, 7, Suit.DIAMONDS, 0, pas(A), half(B)),
        "Clara 7♦ = pass:Anna half:Boris",
        "Clara 7♦ = пас:Anna пол:Boris",
    ),
    (
        game(C, 9, None, 0, vist(A), pas(B)),
        "Clara 9 = vist:Anna pass:Boris",
        "Clara 9 = вист:Anna пас:Boris",
    ),
    (game(C, 6, Suit.SPADES, 0, three_down=True), "Clara 6♠ = three_down", "Clara 6♠ = уход"),
    (
        game(C, 7, Suit.SPADES, -2, vist(A), pas(B), dealer=B, prikup=1, open=True, note="x"),
        'Clara 7♠ -2 vist:Anna pass:Boris dealer:Boris prikup:1 open note:"x"',
        'Clara 7♠ -2 вист:Anna пас:Boris dealer:Boris prikup:1 светлую note:"x"',
    ),
    (
        game(C, 7, Suit.SPADES, 0, vist(A), pas(B), open=False, late=True),
        "Clara 7♠ = vist:Anna pass:Boris closed late",
        "Clara 7♠ = вист:Anna пас:Boris тёмную late",
    ),
    (Misere(C, 0), "Clara misere 0", "Clara мизер 0"),
    (Misere(A, 2, Extras(open=True)), "Anna misere 2 open", "Anna мизер 2 светлую"),
    (
        Raspasy(((A, 2), (B, 3), (C, 5))),
        "pass Anna/2 Boris/3 Clara/5",
        "рас Anna/2 Boris/3 Clara/5",
    ),
    (Adjust(A, Column.POOL, Fraction(-2)), "adjust Anna pool -2", None),
    (Adjust(B, Column.MOUNTAIN, Fraction(4)), "adjust Boris mountain +4", None),
    (
        Adjust(A, Column.WHISTS, Fraction(7, 2), target=C, note="arbiter"),
        'adjust Anna whists:Clara +7/2 note:"arbiter"',
        None,
    ),
]


@pytest.mark.parametrize(("record", "english", "russian"), CANONICAL)
def test_canonical_lines(record: Record, english: str, russian: str | None) -> None:
    """notation.md "Canonical form": result always present, symbols, tricks when two whist."""
    assert format_record(record, NAMES) == english
    assert format_record(record, NAMES, lang="ru") == (russian or english)
    assert parse_record(english, ABC) == record
    assert parse_record(russian or english, ABC) == record


def test_a_note_with_quotes_and_backslashes_reads_back() -> None:
    record = Misere(C, 0, Extras(note='said "no" \\ twice'))
    line = format_record(record, NAMES)
    assert line == 'Clara misere 0 note:"said \\"no\\" \\\\ twice"'
    assert parse_record(line, ABC) == record


def test_a_name_that_reads_as_another_seat_is_printed_as_its_seat_letter() -> None:
    names = ("B", "A", "Clara")
    record = game(A, 7, Suit.SPADES, -1, vist(B), pas(C))
    line = format_record(record, names)
    assert line == "A 7♠ -1 vist:B pass:Clara"
    assert parse_record(line, Table(names)) == record


def test_a_name_that_is_a_word_of_the_notation_stands_alone_as_its_seat_letter() -> None:
    names = ("pass", "мизер", "7")
    record = game(A, 7, Suit.SPADES, -1, vist(B), pas(C))
    assert format_record(record, names) == "A 7♠ -1 vist:мизер pass:7"
    assert parse_record(format_record(record, names), Table(names)) == record
    raspasy = Raspasy(((A, 2), (B, 3), (C, 5)))
    assert format_record(raspasy, names) == "pass pass/2 мизер/3 7/5"
    assert parse_record(format_record(raspasy, names), Table(names)) == raspasy


def test_an_unknown_language_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="language"):
        format_record(LastRound(), NAMES, lang="de")


# --- notation.md as revised: players, Russian as people type it, extras, the option line ---------

RU = Table(("Саша", "Миша", "Лена"))


SEAT_LETTERS = [("A", A), ("a", A), ("B", B), ("b", B), ("C", C), ("c", C), ("D", D), ("d", D)]
SEAT_LETTERS += [("А", A), ("а", A), ("Б", B), ("б", B), ("В", B), ("в", B), ("С", C), ("с", C)]
SEAT_LETTERS += [("Д", D), ("д", D)]


@pytest.mark.parametrize(("letter", "seat"), SEAT_LETTERS)
def test_a_single_seat_letter_is_always_a_seat(letter: str, seat: int) -> None:
    """notation.md "Players": "a single seat letter, always a seat: `A`–`D` (Latin, either case)
    or the Cyrillic `А`, `Б`/`В`, `С`, `Д`"."""
    table = Table(("Дима", "Вера", "Алла", "Сеня"))  # each letter is also a name's first letter
    assert resolve_player(letter, table) == seat


def test_a_cyrillic_seat_letter_picks_the_seat_not_a_name_starting_with_it() -> None:
    """notation.md "Players": "a one-letter reference is never a name prefix" (issue 13: `С`
    recorded Саша's deal)."""
    table = Table(("Миша", "Лена", "Юра", "Саша"), dealer=3)
    assert parse_record("С 6п = вист:Миша пас:Лена", table) == game(
        C, 6, Suit.SPADES, 0, vist(A), pas(B)
    )


@pytest.mark.parametrize("ref", ["Л", "л", "E", "x", "Д"])
def test_a_single_letter_that_is_no_seat_is_never_a_name_prefix(ref: str) -> None:
    """notation.md "Players": "a one-letter reference is never a name prefix" (`Д` is no seat at
    three players)."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(f"Саша 7♠ -1 вист:Миша пас:{ref}", Table(("Саша", "Миша", "Лена")))
    assert (caught.value.code, caught.value.span) == ("unknown-player", ref)


def test_a_prefix_needs_two_letters_or_more() -> None:
    """notation.md "Players": "a unique case-insensitive prefix of two letters or more of a name
    (Cyrillic or Latin)"."""
    assert resolve_player("Ле", RU) == C
    assert resolve_player("мИ", RU) == B
    assert resolve_player("bo", ABC) == B


def test_a_one_letter_name_is_named_exactly() -> None:
    """notation.md "Players": "a name, case-insensitive, exactly" comes right after the seats."""
    assert resolve_player("x", Table(("Anna", "x", "Clara"))) == B


def test_at_name_in_a_protocol_file_is_the_player_with_that_name() -> None:
    """notation.md "Players": "in a protocol file, where there are no usernames, `@name` is the
    player with that name"."""
    assert parse_record("@Лена 7♠ -1 вист:@саша пас:Миша", RU) == game(
        C, 7, Suit.SPADES, -1, vist(A), pas(B)
    )
    assert resolve_player("@clara_s", CHAT) == C  # a username still comes first in a chat


def test_a_reference_read_as_a_seat_is_echoed_with_the_players_name() -> None:
    """notation.md "Players": "a reference read as a seat is echoed with the player's name"."""
    record = parse_record("в 7♠ -1 вист:а пас:С", RU)
    assert format_record(record, RU.players, lang="ru") == "Миша 7♠ -1 пас:Лена вист:Саша"


@pytest.mark.parametrize(
    ("words", "result"),
    [
        ("без одной", -1),
        ("без двух", -2),
        ("без трёх", -3),
        ("без трех", -3),
        ("Без Четырёх", -4),
        ("без четырех", -4),
        ("без пяти", -5),
        ("без шести", -6),
        ("без семи", -7),
    ],
)
def test_results_in_russian_words(words: str, result: int) -> None:
    """notation.md RESULT: "`без одной` / `без двух` / `без трёх` (`трех`) / `без четырёх`
    (`четырех`) / `без пяти` … `без десяти` down N"."""
    line = f"Саша 7♠ {words} вист:Миша пас:Лена"
    assert parse_record(line, RU) == game(A, 7, Suit.SPADES, result, vist(B), pas(C))


def test_bez_desyati_is_down_ten_and_refused_where_impossible() -> None:
    """notation.md RESULT: `без десяти` is down 10; a six cannot go down ten (bad-tricks)."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record("Саша 6♠ без десяти вист:Миша пас:Лена", RU)
    assert (caught.value.code, caught.value.span) == ("bad-tricks", "без десяти")
    assert parse_record("Саша 10 без девяти вист:Миша пас:Лена", RU) == game(
        A, 10, None, -9, vist(B), pas(C)
    )


@pytest.mark.parametrize("line", ["Саша 6♠ без трёх", "Саша 6 пик без трех", "6п без трёх Саша"])
def test_bez_tryokh_right_after_the_contract_with_no_defenders_is_the_concession(
    line: str,
) -> None:
    """notation.md RESULT: "The words `без трёх` right after the contract with no defenders are
    the concession (`уход`)"."""
    assert parse_record(line, RU) == parse_record("Саша 6♠ уход", RU)
    assert parse_record(line, RU) == game(A, 6, Suit.SPADES, 0, three_down=True)


def test_bez_tryokh_with_defenders_is_three_down() -> None:
    """notation.md RESULT: with defenders, `без трёх` is a result like any other."""
    assert parse_record("Саша 6♠ без трёх вист:Миша пас:Лена", RU) == game(
        A, 6, Suit.SPADES, -3, vist(B), pas(C)
    )


@pytest.mark.parametrize(
    ("line", "code", "span"),
    [
        ("Саша 6♠ без 3", "missing-defenders", "Саша 6♠ без 3"),
        ("Саша 6♠ -3", "missing-defenders", "Саша 6♠ -3"),
        ("Саша 6♠ без трёх уход", "repeated-word", "уход"),
        ("Саша 6♠ уход без трёх", "not-played-with-tricks", "без трёх"),
    ],
)
def test_a_numeric_result_with_no_defenders_stays_an_error(
    line: str, code: str, span: str
) -> None:
    """notation.md RESULT: "a numeric result with no defenders stays an error"; only the words
    right after the contract concede."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(line, RU)
    assert (caught.value.code, caught.value.span) == (code, span)


@pytest.mark.parametrize(
    ("line", "span", "fix"),
    [
        ("Саша 7♠ -1 вист Миша пас:Лена", "вист Миша", "вист:Миша"),
        ("Саша 7♠ -1 вист:Миша пас Лена", "пас Лена", "пас:Лена"),
        ("Саша 6♠ вист:Миша/2 вист Лена/2", "вист Лена/2", "вист:Лена/2"),
        ("Саша 7♠ -1 вист:Миша пол Л", "пол Л", "пол:Л"),
    ],
)
def test_a_role_word_without_its_colon_gets_a_hint(line: str, span: str, fix: str) -> None:
    """Issue 13 item 3: "a hint when a role word lacks its colon" — the part quoted, the right
    form (notation.md DEFENDER is `ROLE:PLAYER[/TRICKS]`) shown."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(line, RU)
    assert (caught.value.code, caught.value.span, caught.value.params) == (
        "missing-colon",
        span,
        {"fix": fix},
    )
    assert caught.value.example == "Лена 7♠ -1 вист:Саша пас:Миша"


def test_the_example_of_an_error_is_in_the_lines_language() -> None:
    """notation.md "Errors": "one message in the chat's language that … gives one correct
    example": built with the table's names, in the language of the line's words."""
    with pytest.raises(InvalidDeal) as russian:
        parse_record("Саша 7♠ без одной вист:Зед пас:Лена", RU)
    assert russian.value.example == "Лена 7♠ -1 вист:Саша пас:Миша"
    with pytest.raises(InvalidDeal) as english:
        parse_record("Саша 7♠ -1 vist:Зед pass:Лена", RU)
    assert english.value.example == "Лена 7♠ -1 vist:Саша pass:Миша"


@pytest.mark.parametrize(
    ("extras", "span"),
    [
        ("open closed", "closed"),
        ("светлую тёмную", "тёмную"),
        ("open open", "open"),
        ("dealer:A dealer:B", "dealer:B"),
        ('note:"a" note:"b"', 'note:"b"'),
        ("late late", "late"),
        ("prikup:1 prikup:2", "prikup:2"),
    ],
)
def test_an_extra_given_twice_on_one_deal_is_an_error(extras: str, span: str) -> None:
    """notation.md EXTRA: "`open`/`светлую`, `closed`/`тёмную` (… both on one deal is an
    error)"; "An extra given twice on one deal is an error"."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(f"C 7♠ = vist:A pass:B {extras}", ABC)
    assert (caught.value.code, caught.value.span) == ("repeated-word", span)


@pytest.mark.parametrize("prikup", ["prikup:0", "prikup:00", "prikup:4", "prikup:x"])
def test_prikup_takes_one_to_three(prikup: str) -> None:
    """notation.md EXTRA: "`prikup:N` (Odessa quick tricks, 1–3 …)" — `prikup:0` is refused."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(f"C 7♠ = vist:A pass:B {prikup}", ABC)
    assert (caught.value.code, caught.value.span) == ("bad-prikup", prikup)
    assert parse_record("C 7♠ = vist:A pass:B prikup:3", ABC).extras.prikup == 3  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "line", ["option pool_target = 30", "option pool_target", "option pool_target=30 x", "option"]
)
def test_an_option_line_is_option_name_equals_value(line: str) -> None:
    """notation.md: "A line `option NAME=VALUE` changes one rule"; anything else after `option`
    is an error with the right form as its example."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(line, ABC)
    assert (caught.value.code, caught.value.span) == ("bad-option-line", line)
    assert caught.value.example == "option pool_target=30"
    parse_record(caught.value.example, ABC)


@pytest.mark.parametrize(
    ("line", "code", "span"),
    [
        ("option Pool_Target=30", "unknown-option", "Pool_Target"),
        ("option dealer_rotation=1", "unknown-option", "dealer_rotation"),
        ("option whist_split=nice", "bad-option-value", "nice"),
        ("option convention=odessa", "unknown-option", "convention"),
    ],
)
def test_an_option_lines_name_and_value_are_those_of_the_option_header(
    line: str, code: str, span: str
) -> None:
    """notation.md: "names and values as in the `# option:` header, §2.1; an unknown name or
    value … is an error" — checked by scoring.rules.parse_option."""
    with pytest.raises(OptionError) as caught:
        parse_record(line, ABC)
    assert (caught.value.code, caught.value.span) == (code, span)


def test_at_name_reads_in_a_protocol_file() -> None:
    """notation.md "Players": "in a protocol file, where there are no usernames, `@name` is the
    player with that name" — read through scoring.notation as the CLI reads it."""
    text = (
        "# convention: sochi\n# players: Anna Boris Clara\n@Anna 7♠ -1 vist:@boris pass:@Clara\n"
    )
    ((_, record),) = parse_protocol(text).records
    assert record == game(A, 7, Suit.SPADES, -1, vist(B), pas(C))


@pytest.mark.parametrize(
    ("line", "span", "shown"),
    [
        # The quote swallows the rest of the line: all of it is the part at fault.
        (
            'C 7♠ -1 vist:A note:"late start pass:B',
            'note:"late start pass:B',
            'Clara 7♠ -1 vist:Anna pass:Boris note:"first deal"',
        ),
        ("C 7♠ -1 вист:A пас:B note:«опоздали", "note:«опоздали", None),
        ('рас 2 3 5 note:"x', 'note:"x', 'рас Anna/2 Boris/3 Clara/5 note:"первая раздача"'),
        ('Clara misere 0 note:"a\\"', 'note:"a\\"', 'Clara misere 0 note:"first deal"'),
        (
            'adjust A pool +2 note:"by hand',
            'note:"by hand',
            'adjust Anna pool -2 note:"first deal"',
        ),
    ],
)
def test_notation_errors_an_unterminated_note_is_an_error(
    line: str, span: str, shown: str | None
) -> None:
    """notation.md "Errors": "an unterminated `note:"…`" — the note and what it swallowed are
    quoted, and the example is a correct line of the same kind with a note."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record(line, ABC)
    assert (caught.value.code, caught.value.span) == ("unterminated-note", span)
    if shown is not None:
        assert caught.value.example == shown
    example = parse_record(caught.value.example, ABC)
    assert isinstance(example, Contract | Misere | Raspasy | Adjust)
    note = example.note if isinstance(example, Adjust) else example.extras.note
    assert note in ("first deal", "первая раздача")


def test_notation_a_closed_note_still_reads_whatever_its_quotes() -> None:
    for line in ('C misere 0 note:"a \\"b\\""', "C misere 0 note:«a b»", "C misere 0 note:x"):
        assert parse_record(line, ABC).extras.note in ('a "b"', "a b", "x")


@pytest.mark.parametrize(
    ("line", "canonical"),
    [
        ("уход 6 Clara", "Clara 6 = three_down"),
        ("-2 misere Clara", "Clara misere 2"),
        ("Clara/5 рас Anna/2 Boris/3", "pass Anna/2 Boris/3 Clara/5"),
        ("2 3 5 рас", "pass Anna/2 Boris/3 Clara/5"),
        ("Anna/2 Boris/3 Clara/5 pass dealer:Boris", "pass Anna/2 Boris/3 Clara/5 dealer:Boris"),
        ("vist:Boris Anna pass:Clara = 6♠", "Anna 6♠ = vist:Boris pass:Clara"),
    ],
)
def test_notation_word_order_tokens_in_any_order_where_the_meaning_is_clear(
    line: str, canonical: str
) -> None:
    """notation.md "Word order": "A deal's tokens may come in any order as long as the meaning is
    unambiguous …; the canonical printed form keeps the order above"."""
    record = parse_record(line, ABC)
    assert format_record(record, ABC.players) == canonical
    assert parse_record(canonical, ABC) == record


def test_notation_word_order_the_spec_examples() -> None:
    """notation.md "Word order": `уход 6 Clara`, `-2 misere Петя`, `пол:С PASS:Dmitry 7п Anna`
    (С read as a person: the seat letter C)."""
    petya = Table(("Петя", "Boris", "Clara"))
    assert format_record(parse_record("-2 misere Петя", petya), petya.players) == "Петя misere 2"
    four = Table(("Anna", "Boris", "Clara", "Dmitry"), dealer=1)
    record = parse_record("пол:С PASS:Dmitry 7п Anna", four)
    assert format_record(record, four.players) == "Anna 7♠ = half:Clara pass:Dmitry"


def test_notation_word_order_a_bare_pass_among_other_words_is_still_a_missing_colon() -> None:
    """`pass` is also a role word: it opens a raspasy from elsewhere only among tricks."""
    with pytest.raises(InvalidDeal) as caught:
        parse_record("Anna 6♠ = vist:Boris pass Clara", ABC)
    assert caught.value.code == "missing-colon"
