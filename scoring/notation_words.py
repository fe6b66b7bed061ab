"""The words of the deal notation: its vocabulary, the tokens of a line, and player references."""

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from scoring.deal import TRICKS, Column, Role, Suit
from scoring.errors import InvalidDeal

SEATS: Final = "ABCD"

# --- Vocabulary (keys are normalised: NFKC, case-folded, ё → е, dashes → "-") -------------------

ROLES: Final = {
    **dict.fromkeys(["vist", "whist", "v", "w", "вист"], Role.WHIST),
    **dict.fromkeys(["pass", "p", "пас"], Role.PASS),
    **dict.fromkeys(["half", "пол", "полвиста", "полвист"], Role.HALF),
}
_SUIT_LETTERS: Final = {
    **dict.fromkeys(["s", "п"], Suit.SPADES),
    **dict.fromkeys(["c", "т"], Suit.CLUBS),
    **dict.fromkeys(["d", "б"], Suit.DIAMONDS),
    **dict.fromkeys(["h", "ч"], Suit.HEARTS),
}
# Suits that may also stand as a word of their own after the level (`7 пик`, `7 ♠`, `8 nt`).
SUIT_WORDS: Final = {
    **dict.fromkeys(["♠", "♤", "пик", "пики", "spades", "spade"], Suit.SPADES),
    **dict.fromkeys(["♣", "♧", "треф", "трефы", "clubs", "club"], Suit.CLUBS),
    **dict.fromkeys(
        ["♦", "♢", "бубен", "бубей", "бубны", "буби", "diamonds", "diamond"], Suit.DIAMONDS
    ),
    **dict.fromkeys(["♥", "♡", "червей", "черви", "червы", "hearts", "heart"], Suit.HEARTS),
    **dict.fromkeys(["nt", "бк", "б/к", "notrump", "no-trump"], Suit.NO_TRUMP),
}
SUITS: Final = {**_SUIT_LETTERS, **SUIT_WORDS}
LEVEL_WORDS: Final = {"тотус": 10, "totus": 10}
MISERE: Final = frozenset({"misere", "misère", "мизер"})
RASPASY: Final = frozenset({"pass", "распасы", "распас", "рас", "raspasy"})
LAST_ROUND: Final = frozenset({"last-round", "last_round", "lastround", "/lastround"})
OPTION: Final = frozenset({"option", "правило"})
OPEN: Final = frozenset({"open", "светлую", "всветлую", "светлая", "открытую"})
CLOSED: Final = frozenset({"closed", "темную", "втемную", "темная", "закрытую"})
THREE_DOWN: Final = frozenset({"three_down", "three-down", "уход"})
BEZ: Final = "без"
# `без одной` … `без десяти` (notation.md RESULT); `без трёх` right after the contract concedes.
_BEZ_COUNTS: Final = "одной двух трех четырех пяти шести семи восьми девяти десяти"
BEZ_WORDS: Final = {word: n for n, word in enumerate(_BEZ_COUNTS.split(), 1)}
COLUMNS: Final = {"pool": Column.POOL, "mountain": Column.MOUNTAIN}
COLON_KEYS: Final = frozenset({*ROLES, "dealer", "prikup", "note", "whists"})
ME: Final = frozenset({"me", "я"})
# Words of their own the parser reads as vocabulary, never as a player (suits count only after a level).
VOCABULARY: Final = frozenset(
    {*ROLES, *LEVEL_WORDS, *MISERE, *RASPASY, *LAST_ROUND, *OPTION, *OPEN, *CLOSED}
    | {*THREE_DOWN, *COLUMNS, *BEZ_WORDS, BEZ, "adjust", "late", "="}
)
# A player whose name is one of these is printed as his seat letter where his name stands alone.
RESERVED: Final = VOCABULARY | frozenset(SUITS)
# The words that tell a line's language (for the example of an error).
_CYRILLIC: Final = re.compile("[а-я]")
RUSSIAN: Final = frozenset(w for w in RESERVED if _CYRILLIC.search(w))
ENGLISH: Final = frozenset(w for w in RESERVED if w.isascii() and w.isalpha() and len(w) > 1)

# A single letter is always a seat (notation.md "Players"): Latin A–D or Cyrillic А, Б/В, С, Д.
SEAT_LETTERS: Final = {"a": 0, "b": 1, "c": 2, "d": 3, "а": 0, "б": 1, "в": 1, "с": 2, "д": 3}

SUIT_ALT: Final = "|".join(re.escape(s) for s in sorted(SUITS, key=len, reverse=True))
LEVEL_RE: Final = re.compile(
    rf"(?P<level>[0-9]+|тотус|totus)(?P<suit>{SUIT_ALT})?(?P<result>=|[+-][0-9]+)?"
)
_SIGNED_RE: Final = re.compile(r"(?P<sign>[+-])(?P<n>[0-9]+)")
NUMBER_RE: Final = re.compile(r"[0-9]+")
_TRICKS_CUT_RE: Final = re.compile("[/=]")
_BEZ_RE: Final = re.compile(r"без(?P<n>[0-9]+)")
_COMMAND_RE: Final = re.compile(r"/(?P<name>deal|lastround)(?:@\w+)?")
# The extra a word of its own is (`open`, `уход`, `late`), and the heads of `dealer:X` & co.
_EXTRA_WORDS: Final = {
    **dict.fromkeys(OPEN | CLOSED, "open"),
    **dict.fromkeys(THREE_DOWN, "three_down"),
    "late": "late",
}
_EXTRA_HEADS: Final = frozenset({"dealer", "prikup", "note"})
# What a line that starts with this word is: a kind of record (commands are matched apart).
_OPENS: Final = {
    **dict.fromkeys(LAST_ROUND, "last-round"),
    "adjust": "adjust",
    **dict.fromkeys(RASPASY, "raspasy"),
    **dict.fromkeys(OPTION, "option"),
}

# Opening quote → the characters that close it.
QUOTES: Final = {'"': '"', "“": "”“", "„": "“”", "«": "»", "”": "”"}
# A word: anything but whitespace and `,` `;`, where a quote runs to its closing quote (a `\`
# escapes a closing quote or a backslash) or to the end of the line; no quote is special in a
# pattern.
_QUOTED: Final = "|".join(rf"{o}(?:\\[\\{c}]|[^{c}])*(?:[{c}]|\Z)" for o, c in QUOTES.items())
_WORD_RE: Final = re.compile(rf"(?:{_QUOTED}|[^\s,;])+")
# A line needs the careful tokenizer (positions, quotes, `vist: A`) only when it holds one of these.
_CAREFUL_RE: Final = re.compile(r'[,;"“„«”]|:\s')
NAME_FORBIDDEN: Final = frozenset(':/="“”„«»\\,;')
_FOLD: Final = str.maketrans(
    {"ё": "е", "\u2212": "-", "\u2013": "-", "\u2014": "-", "\ufe0f": None, "\ufe0e": None}
)
BIG: Final = 10**6  # stands for any number too long to be a level or a count of tricks


@lru_cache(maxsize=8192)
def norm(text: str) -> str:
    """The key words are compared by: NFKC, case-folded, ё → е, Unicode dashes → "-"."""
    return unicodedata.normalize("NFKC", text).casefold().translate(_FOLD)


def small_int(digits: str) -> int:
    """An ASCII number; anything longer than four digits is just "too big"."""
    return int(digits) if len(digits) <= 4 else BIG


def after_colon(raw: str) -> str:
    """The text after a word's first colon, leading spaces dropped (`vist: A` → `A`)."""
    colon = raw.find(":")
    if colon < 0:  # a colon that only NFKC makes one (fullwidth `：`)
        colon = next(i for i, c in enumerate(raw) if ":" in norm(c))
    return raw[colon + 1 :].lstrip()


def split_tricks(text: str) -> tuple[str, int | None]:
    """`Anna/2` or `Anna=2` → ("Anna", 2); `Anna` → ("Anna", None); tricks not 0–10 are -1."""
    cut = _TRICKS_CUT_RE.search(text)
    if cut is None:
        return text, None
    tricks = norm(text[cut.end() :])
    valid = NUMBER_RE.fullmatch(tricks) and small_int(tricks) <= TRICKS
    return text[: cut.start()], int(tricks) if valid else -1


# --- Words, each classified once -------------------------------------------------------------


class Word:
    """One word of a line as typed (`raw`), its key, and what it can be in the notation."""

    def __init__(self, raw: str) -> None:
        key = norm(raw)
        self.raw = raw
        self.key = key
        # a contract word (`7♠`, `6п=`, `тотус`) and a result stuck to it (`7♠-1`)
        level = m["level"] if (m := LEVEL_RE.fullmatch(key)) else None
        self.level = None if level is None else LEVEL_WORDS.get(level) or small_int(level)
        self.suit = SUITS.get(m["suit"] or "") if m else None
        self.stuck = _signed(m["result"] or "") if m else None
        self.number = small_int(key) if NUMBER_RE.fullmatch(key) else None
        self.bez_n = small_int(m["n"]) if (m := _BEZ_RE.fullmatch(key)) else None  # `без3`
        self.bez_word = BEZ_WORDS.get(key)  # `одной` … `десяти`, after `без`
        # a standalone RESULT: `=`, `+N`, `-N`, `без3`
        self.result = _signed(key) if self.bez_n is None else -self.bez_n
        # a misère's TRICKS as one word: `N`, or a RESULT's tricks under it (`+N`: negative)
        self.misere_tricks = self.number if self.result is None else -self.result
        self.head: str | None = key.partition(":")[0] if ":" in key else None
        self.role = ROLES.get(self.head) if self.head is not None else None
        self.after = after_colon(raw) if self.head is not None else ""
        # a defender's reference and TRICKS after `/` or `=`: None when not given, -1 when not 0–10
        self.ref, self.tricks = split_tricks(self.after)
        self.extra = _EXTRA_WORDS.get(key) or (self.head if self.head in _EXTRA_HEADS else None)
        self.plain = not (":" in key or key in VOCABULARY or not any(c.isalpha() for c in key))
        # a raspasy `NAME/N`: the reference as typed and N as `tricks`
        self.pair, self.pair_tricks = split_tricks(raw)
        self.opens = _OPENS.get(key)
        if self.opens is None and (m := _COMMAND_RE.fullmatch(key)):
            self.opens = "command" if m["name"] == "deal" else "last-round"

    @property
    def russian(self) -> bool | None:
        """Whether this word is Russian notation (True), English (False), or tells nothing."""
        if m := LEVEL_RE.fullmatch(self.key):  # the level word or the suit, in either alphabet
            said = m["level"] if m["level"] in LEVEL_WORDS else m["suit"] or ""
            return True if _CYRILLIC.search(said) else False if said.isalpha() else None
        word = self.head if self.head is not None else self.key
        if word in RUSSIAN or self.bez_n is not None:
            return True
        return False if word in ENGLISH else None


def _signed(text: str) -> int | None:
    """A RESULT `=`, `+N` or `-N` as tricks over the contract; None for anything else."""
    if text == "=":
        return 0
    m = _SIGNED_RE.fullmatch(text)
    return None if m is None else small_int(m["n"]) * (1 if m["sign"] == "+" else -1)


lex: Final = lru_cache(maxsize=16384)(Word)  # each distinct word is classified once


def words(text: str) -> tuple[list[Word], list[tuple[int, int]] | None]:
    """The words of a line and, when the careful tokenizer ran, their positions (else None)."""
    if _CAREFUL_RE.search(text) is None:
        return list(map(lex, text.split())), None
    spans = positions(text)
    return [lex(text[a:b]) for a, b in spans], spans


def positions(text: str) -> list[tuple[int, int]]:
    """Word spans: split by whitespace, `,` `;`; quotes and `vist: Anna` stay one word."""
    spans: list[tuple[int, int]] = []
    joins = False  # a head and its colon take the next word (unless it is a head)
    for word in _WORD_RE.finditer(text):
        raw = word.group()
        if joins and norm(raw).partition(":")[0] not in COLON_KEYS:
            spans[-1] = (spans[-1][0], word.end())
            joins = False
        else:
            spans.append(word.span())
            joins = raw.endswith(":") and raw.count(":") == 1 and norm(raw)[:-1] in COLON_KEYS
    return spans


def quoted(raw: str) -> tuple[str, int]:
    """The text in the quotes `raw` opens and where its closing quote stands (`len(raw)`: unclosed)."""
    closers = re.escape(QUOTES[raw[0]])  # `\` escapes a closing quote or a backslash
    body = re.compile(rf"(?:\\[\\{closers}]|[^{closers}])*").match(raw, 1)
    assert body is not None  # the pattern matches the empty text
    return re.sub(rf"\\([\\{closers}])", r"\1", body.group()), body.end()


# --- The table: its players, and every reference that names one -----------------------------


@lru_cache(maxsize=256)
def reference_index(
    players: tuple[str, ...], usernames: tuple[str | None, ...]
) -> dict[str, tuple[int, ...]]:
    """Every normalised reference to the seats it names, in notation.md "Players" order."""
    # (tier, reference, seat): seat letters, names, usernames, `@name`s, a name's prefixes
    refs = [(0, letter, seat) for letter, seat in SEAT_LETTERS.items() if seat < len(players)]
    for seat, name in enumerate(players):
        key = norm(name)
        refs += [(1, key, seat), (3, "@" + key, seat)] if key else []
        refs += [] if key.startswith("@") else [(4, key[:end], seat) for end in range(2, len(key))]
    for seat, user in enumerate(usernames):
        if handle := norm(user or "").lstrip("@"):
            refs.append((2, "@" + handle, seat))
    tiers: dict[str, int] = {}  # a reference names the seats of the first tier that has it
    index: dict[str, tuple[int, ...]] = {}
    for tier, key, seat in sorted(refs):
        if tiers.setdefault(key, tier) == tier:
            index[key] = (*index.get(key, ()), seat)
    return index


@dataclass(frozen=True, slots=True)
class Table:
    """The context a line is read in."""

    players: tuple[str, ...]
    usernames: tuple[str | None, ...] = ()
    dealer: int | None = None
    sender: int | None = None

    refs: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "refs", reference_index(self.players, self.usernames))

    def active(self, dealer: int | None) -> tuple[int, ...] | None:
        """The seats that play a deal dealt by `dealer`; None when that cannot be known."""
        if len(self.players) == 3:
            return (0, 1, 2)
        return None if dealer is None else tuple(s for s in range(4) if s != dealer)


def resolve(key: str, table: Table, where: str, example_line: Callable[[], str]) -> int:
    """The one seat a normalised reference names; else an error quoting `where` with an example."""
    seats = table.refs.get(key)
    if seats is not None and len(seats) == 1:
        return seats[0]
    if seats is None and key in ME:
        if table.sender is None:
            raise InvalidDeal("me-outside-chat", where, {}, example_line())
        return table.sender
    params = {"players": ", ".join(table.players)}
    if seats is not None:
        params["matches"] = ", ".join(table.players[s] for s in seats)
        raise InvalidDeal("ambiguous-player", where, params, example_line())
    raise InvalidDeal("unknown-player", where, params, example_line())
