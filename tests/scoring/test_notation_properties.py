"""Properties of the notation: every record prints to a line that reads back to it, and no input
makes the reader fail with anything but a ScoringError (spec/notation.md "Canonical form")."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.deal import (
    Adjust,
    Column,
    Contract,
    Deal,
    Defender,
    Extras,
    LastRound,
    Misere,
    Raspasy,
    Record,
    Role,
    RuleChange,
    Suit,
)
from scoring.errors import ProtocolError, ScoringError
from scoring.notation import Table, format_protocol, format_record, parse_protocol, parse_record
from scoring.rules import OPTION_NAMES, PRESETS, format_option, rules_for
from scoring.sheet import Game

MODEST = settings(max_examples=200, deadline=None)

# Names a table may hold, the awkward ones included: seat letters, words of the notation, digits,
# prefixes of one another, no letters at all. The printer falls back to seat letters where needed.
AWKWARD_NAMES = [
    "Anna",
    "Ann",
    "Boris",
    "Clara",
    "Dima",
    "Алёна",
    "Алена",
    "Борис",
    "A",
    "B",
    "c",
    "D",
    "pass",
    "мизер",
    "Рас",
    "7",
    "7♠",
    "vist",
    "me",
    "я",
    "open",
    "Пики",
    "без2",
    "-1",
    "!!",
    "@bob",
    "a:b",
    "x/y",
    "Анна Мария",
    'q"t',
]
# Names a protocol file can hold (one word, none of `: / = " , ;`, distinct).
FILE_NAMES = ["Anna", "Boris", "Clara", "Dima", "Алёна", "Борис", "Вера", "Ann", "Bo", "Eve"]


NOTES = st.text(max_size=20).map(lambda text: " ".join(text.split()))
BOOLS = st.booleans()
OPENED = st.sampled_from([None, True, False])
KINDS = st.sampled_from(["contract", "contract", "contract", "misere", "raspasy"])
SHAPES = st.sampled_from(
    ["whist-pass", "whist-whist", "pass-pass", "half", "three-down", "dealer-whist"]
)
LEVELS = st.integers(6, 10)
SUITS = st.none() | st.sampled_from(Suit)
TRICKS = st.integers(0, 10)
PRIKUP = st.integers(0, 3)
THREE = st.permutations([0, 1, 2])
SEATS = st.integers(0, 3)
SIX = st.integers(0, 5)
COLUMNS = st.sampled_from(Column)
NUMERATORS = st.integers(-(10**6), 10**6).filter(bool)
DENOMINATORS = st.integers(1, 1000)
NAMES = st.sampled_from(AWKWARD_NAMES) | st.text(min_size=1, max_size=6)


@dataclass(frozen=True)
class Case:
    table: Table
    record: Record


@st.composite
def deal_records(draw: st.DrawFn, size: int, dealer: int, named: bool | None = None) -> Deal:
    """A valid deal of a `size`-player game dealt by `dealer` (`dealer:X` written when `named`).

    Only module-level strategies are drawn from: building strategies per draw is slow.
    """
    active = [s for s in range(size) if size == 3 or s != dealer]
    if named is None:
        named = draw(BOOLS)
    extras_dealer = dealer if named else None
    note, opened, late = draw(NOTES), draw(OPENED), draw(BOOLS)
    kind = draw(KINDS)
    order = draw(THREE)
    if kind == "raspasy":
        first = draw(TRICKS)
        second = draw(TRICKS) % (11 - first)
        split = (first, second, 10 - first - second)
        extras = Extras(dealer=extras_dealer, note=note, late=late)
        return Raspasy(tuple((active[k], split[order[k]]) for k in range(3)), extras)
    declarer, one, other = (active[k] for k in order)
    if kind == "misere":
        extras = Extras(dealer=extras_dealer, open=opened, note=note, late=late)
        return Misere(declarer, draw(TRICKS), extras)
    shape = draw(SHAPES)
    if shape == "dealer-whist" and size == 3:
        shape = "whist-pass"
    level = draw(LEVELS)
    if shape == "half":
        level = 6 + level % 2
    suit = draw(SUITS)
    played = shape in ("whist-pass", "whist-whist", "dealer-whist")
    result = draw(TRICKS) - level if played else 0  # the declarer took 0–10 tricks
    defenders: tuple[Defender, ...] = ()
    if shape == "whist-pass":
        defenders = (Defender(one, Role.WHIST), Defender(other, Role.PASS))
    elif shape == "whist-whist":
        side = 10 - level - result
        mine = draw(TRICKS) % (side + 1)
        defenders = (Defender(one, Role.WHIST, mine), Defender(other, Role.WHIST, side - mine))
    elif shape == "pass-pass":
        defenders = (Defender(one, Role.PASS), Defender(other, Role.PASS))
    elif shape == "half":
        defenders = (Defender(one, Role.PASS), Defender(other, Role.HALF))
    elif shape == "dealer-whist":
        defenders = (Defender(dealer, Role.WHIST), Defender(one, Role.PASS))
    prikup = 0 if shape == "dealer-whist" else draw(PRIKUP)
    extras = Extras(dealer=extras_dealer, open=opened, prikup=prikup, note=note, late=late)
    ordered = tuple(sorted(defenders, key=lambda d: (d.player - declarer) % size))
    return Contract(declarer, level, suit, result, ordered, shape == "three-down", extras)


@st.composite
def other_records(draw: st.DrawFn, size: int) -> Record:
    """An adjustment, the last-round mark, or a rule change."""
    if draw(BOOLS):
        return LastRound()
    if draw(BOOLS):
        name = draw(st.sampled_from(OPTION_NAMES))
        value = format_option(getattr(draw(st.sampled_from(list(PRESETS.values()))), name))
        return RuleChange(name, value)
    player = draw(SEATS) % size
    column = draw(COLUMNS)
    target = None
    if column is Column.WHISTS:
        target = (player + 1 + draw(SEATS) % (size - 1)) % size
    amount = Fraction(draw(NUMERATORS), draw(DENOMINATORS))
    return Adjust(player, column, amount, target, draw(NOTES))


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """A table and a record valid at it."""
    size = 3 + draw(BOOLS)
    players = tuple(draw(NAMES) for _ in range(size))
    dealer = draw(SEATS) % size
    record = draw(other_records(size)) if draw(SIX) == 0 else draw(deal_records(size, dealer))
    table_dealer: int | None = dealer
    if isinstance(record, Contract | Misere | Raspasy) and record.extras.dealer is not None:
        table_dealer = None if draw(SIX) == 0 else draw(SEATS) % size  # `dealer:X` wins
    elif size == 3 or draw(BOOLS):
        table_dealer = dealer if draw(BOOLS) else None
    return Case(Table(players, dealer=table_dealer), record)


@MODEST
@pytest.mark.parametrize("lang", ["en", "ru"])
@given(case=cases())
def test_every_record_reads_back_from_its_canonical_line(lang: str, case: Case) -> None:
    line = format_record(case.record, case.table.players, lang=lang)
    assert parse_record(line, case.table) == case.record


# --- Garbage never breaks the reader ---------------------------------------------------------

VOCABULARY = [
    "/deal",
    "/deal@bot",
    "7♠",
    "6п",
    "8бк",
    "10nt",
    "тотус",
    "9",
    "5♠",
    "7x",
    "=",
    "-1",
    "+2",
    "−3",
    "без",
    "без2",
    "3",
    "0",
    "11",
    "99999999999999999999",
    "vist:A",
    "pass:B",
    "half:C",
    "вист:Anna",
    "пол:B/1",
    "v:A=2",
    "w:D/11",
    "p:",
    "vist:",
    "pass:me",
    "A",
    "B",
    "C",
    "D",
    "Anna",
    "an",
    "me",
    "я",
    "@anna",
    "мизер",
    "misere",
    "pass",
    "рас",
    "распасы",
    "A/2",
    "B/3",
    "C=5",
    "D/5",
    "Anna/x",
    "adjust",
    "pool",
    "mountain",
    "whists:B",
    "whists:",
    "+7/2",
    "1/0",
    "2.5",
    "open",
    "closed",
    "тёмную",
    "уход",
    "three_down",
    "dealer:B",
    "dealer:",
    "prikup:1",
    "prikup:9",
    'note:"x y"',
    "note:«a",
    'note:"a"b',
    '"',
    "\\",
    "late",
    "last-round",
    "/lastround",
    "пик",
    "nt",
    ":",
    "/",
    ",",
    "：",
    "♠️",
]
TABLES = st.sampled_from(
    [
        Table(("Anna", "Boris", "Clara")),
        Table(("Anna", "Andrei", "Boris"), usernames=("anna", None, "bob"), sender=1),
        Table(("Anna", "Boris", "Clara", "Dima"), dealer=3),
        Table(("Anna", "Boris", "Clara", "Dima")),
    ]
)
SEPARATORS = st.sampled_from([" ", " ", "  ", "\t", "\n", ",", ""])


WORDS = st.lists(st.sampled_from(VOCABULARY) | st.text(max_size=4), max_size=10)


@st.composite
def soups(draw: st.DrawFn) -> str:
    """Words of the notation (and bits of text) run together with assorted separators."""
    return "".join(word + draw(SEPARATORS) for word in draw(WORDS))


def read_or_refuse(text: str, table: Table) -> None:
    """Either a record whose canonical line reads back to it, or a ScoringError."""
    try:
        record = parse_record(text, table)
    except ScoringError as error:
        assert error.code
        return
    for lang in ("en", "ru"):
        assert parse_record(format_record(record, table.players, lang=lang), table) == record


@MODEST
@given(text=st.text(max_size=60), table=TABLES)
def test_random_text_is_read_or_refused_with_a_scoring_error(text: str, table: Table) -> None:
    read_or_refuse(text, table)


@MODEST
@given(text=soups(), table=TABLES)
def test_soups_of_notation_words_are_read_or_refused_with_a_scoring_error(
    text: str, table: Table
) -> None:
    read_or_refuse(text, table)


# --- Protocol files --------------------------------------------------------------------------


# settlement.md "Input strictness": a stake is a decimal (`0.5`, never `1/2`), in files too.
STAKES = st.none() | st.integers(0, 1000).map(lambda cents: Fraction(cents, 100))
CONVENTIONS = st.sampled_from(sorted(PRESETS))
OVERRIDES = st.dictionaries(
    st.sampled_from(["pool_target", "whist_split", "consolation", "raspasy_cap"]),
    st.sampled_from(["10", "30"]),
    max_size=2,
)
PLAYERS = {
    size: st.lists(st.sampled_from(FILE_NAMES), min_size=size, max_size=size, unique=True)
    for size in (3, 4)
}


@st.composite
def games_and_records(draw: st.DrawFn) -> tuple[Game, list[Record]]:
    """A game and up to 8 records, the dealer rotating as in a real game."""
    size = 3 + draw(BOOLS)
    players = tuple(draw(PLAYERS[size]))
    overrides = draw(OVERRIDES)
    if "whist_split" in overrides:
        overrides["whist_split"] = "gentleman"
    first = draw(SEATS) % size
    game = Game(rules_for(draw(CONVENTIONS), size, overrides), players, first, draw(STAKES))
    records: list[Record] = []
    dealer = first
    for _ in range(draw(SIX) + draw(SIX) % 4):
        if draw(SIX) == 0:
            records.append(draw(other_records(size)))
            continue
        named = draw(SIX) == 0
        if named:
            dealer = draw(SEATS) % size
        records.append(draw(deal_records(size, dealer, named=named)))
        dealer = (dealer + 1) % size
    return game, records


@MODEST
@given(game_and_records=games_and_records())
def test_every_game_reads_back_from_its_protocol_file(
    game_and_records: tuple[Game, list[Record]],
) -> None:
    game, records = game_and_records
    protocol = parse_protocol(format_protocol(game, records))
    assert protocol.game() == game
    assert [record for _, record in protocol.records] == records


@MODEST
@given(
    lines=st.lists(soups() | st.sampled_from(["# pool: x", "# option: a=b", "#", ""]), max_size=6)
)
def test_random_protocol_files_are_read_or_refused_with_a_protocol_error(lines: list[str]) -> None:
    text = "# convention: sochi\n# players: Anna Boris Clara Dima\n" + "\n".join(lines)
    try:
        parse_protocol(text)
    except ProtocolError as error:
        assert error.code
        assert 0 <= error.line <= len(text.splitlines())


# --- The forms people type (notation.md as revised) ------------------------------------------

BEZ_WORDS = {
    1: ["одной"],
    2: ["двух"],
    3: ["трёх", "трех"],
    4: ["четырёх", "четырех"],
    5: ["пяти"],
    6: ["шести"],
    7: ["семи"],
    8: ["восьми"],
    9: ["девяти"],
    10: ["десяти"],
}
# Every spelling of each seat letter (notation.md "Players").
LETTERS = [
    ["A", "a", "А", "а"],
    ["B", "b", "Б", "б", "В", "в"],
    ["C", "c", "С", "с"],
    ["D", "d", "Д", "д"],
]
PLACEHOLDERS = ("Xqa", "Xqb", "Xqc", "Xqd")  # names that print as themselves, then become letters
SPELLINGS = st.integers(0, 5)


@st.composite
def plain_contracts(draw: st.DrawFn, *, conceded: bool) -> Case:
    """A played contract that went down (one whister, one passer), or a concession."""
    size = 3 + draw(BOOLS)
    players = tuple(draw(NAMES) for _ in range(size))
    dealer = draw(SEATS) % size
    active = [s for s in range(size) if size == 3 or s != dealer]
    declarer, one, other = (active[k] for k in draw(THREE))
    level, suit = draw(LEVELS), draw(SUITS)
    table = Table(players, dealer=dealer)
    if conceded:
        return Case(table, Contract(declarer, level, suit, 0, (), True))
    down = 1 + draw(TRICKS) % level  # the declarer took 0 to level - 1 tricks
    defenders = sorted(
        (Defender(one, Role.WHIST), Defender(other, Role.PASS)),
        key=lambda d: (d.player - declarer) % size,
    )
    return Case(table, Contract(declarer, level, suit, -down, tuple(defenders)))


@MODEST
@given(case=plain_contracts(conceded=False), pick=SPELLINGS, lang=st.sampled_from(["en", "ru"]))
def test_a_result_in_russian_words_reads_as_its_number(case: Case, pick: int, lang: str) -> None:
    """notation.md RESULT: "`без одной` / `без двух` / … `без десяти` down N", in any deal."""
    record = case.record
    assert isinstance(record, Contract)
    words = BEZ_WORDS[-record.result]
    line = format_record(record, case.table.players, lang=lang)
    typed = line.replace(f" {record.result} ", f" без {words[pick % len(words)]} ", 1)
    assert typed != line
    assert parse_record(typed, case.table) == record


@MODEST
@given(case=cases(), picks=st.lists(SPELLINGS, min_size=4, max_size=4))
def test_every_seat_letter_spelling_reads_as_its_seat(case: Case, picks: list[int]) -> None:
    """notation.md "Players": "a single seat letter, always a seat: `A`–`D` (Latin, either case)
    or the Cyrillic `А`, `Б`/`В`, `С`, `Д`", whatever the players are called."""
    size = len(case.table.players)
    line = format_record(case.record, PLACEHOLDERS[:size])
    for seat in range(size):
        spellings = LETTERS[seat]
        line = line.replace(PLACEHOLDERS[seat], spellings[picks[seat] % len(spellings)])
    assert parse_record(line, case.table) == case.record


@MODEST
@given(case=plain_contracts(conceded=True))
def test_a_concession_reads_from_bez_tryokh_right_after_the_contract(case: Case) -> None:
    """notation.md RESULT: "The words `без трёх` right after the contract with no defenders are
    the concession (`уход`)"."""
    line = format_record(case.record, case.table.players, lang="ru")
    assert " = уход" in line
    assert parse_record(line.replace(" = уход", " без трёх", 1), case.table) == case.record
