"""The deal notation: read what players type, print the canonical line (spec/notation.md).

`parse_record(text, table)` reads one line of the `/deal` command or of a protocol file into a
`Record` of scoring/deal.py; `format_record(record, players)` prints its canonical line, which
parses back to the same record. Records are normalised so that equal deals compare equal:

- a contract always carries its result; defenders are kept clockwise from the declarer; their
  tricks are kept only when both whist (then they and the declarer's tricks sum to 10); a deal not
  played (pass-pass, half-whist, `three_down`) has result 0 and no tricks; a concession has no
  defenders;
- raspasy tricks are (player, tricks) pairs of the active players in seat order;
- notes have their whitespace collapsed to single spaces.

What a line cannot know — the convention's options, whether the game has ended — is checked by the
replay. What it can know is checked here: syntax errors raise `InvalidDeal`, a 4-player dealer in
play (when the table says who deals) raises `IllegalDeal`. Every error carries the part of the
input at fault as typed (`span`: the offending token, or the player reference for player errors)
and one correct line of the same kind (`example`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Final, NamedTuple, NoReturn

from scoring.deal import (
    TRICKS,
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
    RuleChange,
    Suit,
)
from scoring.errors import IllegalDeal, InvalidDeal, OptionError
from scoring.rules import OPTION_NAMES, format_option, parse_option

__all__ = [
    "SEATS",
    "Table",
    "format_record",
    "parse_record",
    "resolve_player",
]

SEATS: Final = "ABCD"
LANGS: Final = ("en", "ru")


@dataclass(frozen=True, slots=True)
class Table:
    """The context a line is read in.

    `players` in seat order (3 or 4); `usernames` the Telegram @usernames per seat (optional);
    `dealer` who deals this deal (with 4 players the dealer sits out, so it tells the active
    players); `sender` the seat of the person typing, for `me`/`я` (None in files).
    """

    players: tuple[str, ...]
    usernames: tuple[str | None, ...] = ()
    dealer: int | None = None
    sender: int | None = None

    def __post_init__(self) -> None:
        size = len(self.players)
        if size not in (3, 4):
            raise ValueError("a table has 3 or 4 players")
        if len(self.usernames) > size:
            raise ValueError("more usernames than players")
        for seat in (self.dealer, self.sender):
            if seat is not None and not 0 <= seat < size:
                raise ValueError("a seat outside the table")

    def active(self, dealer: int | None) -> tuple[int, ...] | None:
        """The seats that play a deal dealt by `dealer`; None when that cannot be known."""
        size = len(self.players)
        if size == 3:
            return (0, 1, 2)
        if dealer is None:
            return None
        return tuple(s for s in range(size) if s != dealer)


# --- Vocabulary (keys are normalised: NFKC, case-folded, ё → е, dashes → "-") -------------------

_ROLES: Final = {
    "vist": Role.WHIST,
    "whist": Role.WHIST,
    "v": Role.WHIST,
    "w": Role.WHIST,
    "вист": Role.WHIST,
    "pass": Role.PASS,
    "p": Role.PASS,
    "пас": Role.PASS,
    "half": Role.HALF,
    "пол": Role.HALF,
    "полвиста": Role.HALF,
    "полвист": Role.HALF,
}
_SUIT_LETTERS: Final = {
    "s": Suit.SPADES,
    "п": Suit.SPADES,
    "c": Suit.CLUBS,
    "т": Suit.CLUBS,
    "d": Suit.DIAMONDS,
    "б": Suit.DIAMONDS,
    "h": Suit.HEARTS,
    "ч": Suit.HEARTS,
}
# Suits that may also stand as a word of their own after the level (`7 пик`, `7 ♠`, `8 nt`).
_SUIT_WORDS: Final = {
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
    "пик": Suit.SPADES,
    "пики": Suit.SPADES,
    "spades": Suit.SPADES,
    "spade": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
    "треф": Suit.CLUBS,
    "трефы": Suit.CLUBS,
    "clubs": Suit.CLUBS,
    "club": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
    "бубен": Suit.DIAMONDS,
    "бубей": Suit.DIAMONDS,
    "бубны": Suit.DIAMONDS,
    "буби": Suit.DIAMONDS,
    "diamonds": Suit.DIAMONDS,
    "diamond": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "червей": Suit.HEARTS,
    "черви": Suit.HEARTS,
    "червы": Suit.HEARTS,
    "hearts": Suit.HEARTS,
    "heart": Suit.HEARTS,
    "nt": Suit.NO_TRUMP,
    "бк": Suit.NO_TRUMP,
    "б/к": Suit.NO_TRUMP,
    "notrump": Suit.NO_TRUMP,
    "no-trump": Suit.NO_TRUMP,
}
_SUITS: Final = {**_SUIT_LETTERS, **_SUIT_WORDS}
_LEVEL_WORDS: Final = {"тотус": 10, "totus": 10}
_MISERE: Final = frozenset({"misere", "misère", "мизер"})
_RASPASY: Final = frozenset({"pass", "распасы", "распас", "рас", "raspasy"})
_ADJUST: Final = frozenset({"adjust"})
_LAST_ROUND: Final = frozenset({"last-round", "last_round", "lastround", "/lastround"})
_OPEN: Final = frozenset({"open", "светлую", "всветлую", "светлая", "открытую"})
_CLOSED: Final = frozenset({"closed", "темную", "втемную", "темная", "закрытую"})
_THREE_DOWN: Final = frozenset({"three_down", "three-down", "уход"})
_LATE: Final = frozenset({"late"})
_BEZ: Final = "без"
_COLUMNS: Final = {"pool": Column.POOL, "mountain": Column.MOUNTAIN}
_COLON_KEYS: Final = frozenset({*_ROLES, "dealer", "prikup", "note", "whists"})
_ME: Final = frozenset({"me", "я"})
# Words of their own the parser reads as vocabulary, never as a player (suits count only after a level).
_VOCABULARY: Final = frozenset(
    {
        *_ROLES,
        *_LEVEL_WORDS,
        *_MISERE,
        *_RASPASY,
        *_ADJUST,
        *_LAST_ROUND,
        *_OPEN,
        *_CLOSED,
        *_THREE_DOWN,
        *_LATE,
        *_COLUMNS,
        _BEZ,
        "=",
    }
)
# A player whose name is one of these is printed as his seat letter where his name stands alone.
_RESERVED: Final = _VOCABULARY | frozenset(_SUITS)

_SUIT_ALT: Final = "|".join(re.escape(s) for s in sorted(_SUITS, key=len, reverse=True))
_LEVEL_RE: Final = re.compile(
    rf"(?P<level>[0-9]+|тотус|totus)(?P<suit>{_SUIT_ALT})?(?P<result>=|[+-][0-9]+)?"
)
_LEADING_NUMBER_RE: Final = re.compile(r"[0-9]+")
_SIGNED_RE: Final = re.compile(r"(?P<sign>[+-])(?P<n>[0-9]+)")
_NUMBER_RE: Final = re.compile(r"[0-9]+")
_BEZ_RE: Final = re.compile(r"без(?P<n>[0-9]+)")
_AMOUNT_RE: Final = re.compile(r"[+-]?[0-9]{1,9}(?:/[0-9]{1,9}|\.[0-9]{1,9})?")
_COMMAND_RE: Final = re.compile(r"/deal(?:@\w+)?")
_LAST_ROUND_COMMAND_RE: Final = re.compile(r"/lastround(?:@\w+)?")

# Opening quote → the characters that close it.
_QUOTES: Final = {'"': '"', "“": "”“", "„": "“”", "«": "»", "”": "”"}
_BREAKS: Final = ",;"  # separate words like spaces (outside quotes)
_WORD_RE: Final = re.compile(r"[^\s,;]+")
_NAME_FORBIDDEN: Final = frozenset(':/="“”„«»\\,;')
_FOLD: Final = str.maketrans(
    {"ё": "е", "\u2212": "-", "\u2013": "-", "\u2014": "-", "\ufe0f": None, "\ufe0e": None}
)
_BIG: Final = 10**6  # stands for any number too long to be a level or a count of tricks


@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    """The key words are compared by: NFKC, case-folded, ё → е, Unicode dashes → "-"."""
    return unicodedata.normalize("NFKC", text).casefold().translate(_FOLD)


def _small_int(digits: str) -> int:
    """An ASCII number; anything longer than four digits is just "too big"."""
    return int(digits) if len(digits) <= 4 else _BIG


# --- Tokens ---------------------------------------------------------------------------------


class _Tok(NamedTuple):
    raw: str  # exactly as typed (a merged `vist: A` keeps its space)
    start: int
    end: int
    key: str


def _tokenize(text: str) -> list[_Tok]:
    """Words split by whitespace, `,` and `;`; a quoted part (`note:"a b"`) stays one word."""
    if not any(quote in text for quote in _QUOTES):
        words = [
            _Tok(m.group(), m.start(), m.end(), _norm(m.group())) for m in _WORD_RE.finditer(text)
        ]
        return _merge_colons(text, words)
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace() or text[i] in _BREAKS:
            i += 1
            continue
        start = i
        while i < n and not (text[i].isspace() or text[i] in _BREAKS):
            closers = _QUOTES.get(text[i])
            i += 1
            if closers is None:
                continue
            while i < n:
                char = text[i]
                if char == "\\" and i + 1 < n and (text[i + 1] == "\\" or text[i + 1] in closers):
                    i += 2
                elif char in closers:
                    i += 1
                    break
                else:
                    i += 1
        toks.append(_Tok(text[start:i], start, i, _norm(text[start:i])))
    return _merge_colons(text, toks)


def _merge_colons(text: str, toks: list[_Tok]) -> list[_Tok]:
    """`vist: Anna` (a space after the colon) is read as `vist:Anna`."""
    out: list[_Tok] = []
    j = 0
    while j < len(toks):
        tok = toks[j]
        if (
            tok.raw.endswith(":")
            and tok.raw.count(":") == 1
            and tok.key[:-1] in _COLON_KEYS
            and j + 1 < len(toks)
            and toks[j + 1].key.partition(":")[0] not in _COLON_KEYS
        ):
            nxt = toks[j + 1]
            raw = text[tok.start : nxt.end]
            out.append(_Tok(raw, tok.start, nxt.end, _norm(raw)))
            j += 2
        else:
            out.append(tok)
            j += 1
    return out


def _after_colon(tok: _Tok) -> str:
    """The text after a token's first colon, leading spaces dropped (`vist: A` → `A`)."""
    colon = tok.raw.find(":")
    if colon < 0:  # a colon that only NFKC makes one (fullwidth `：`)
        colon = next(i for i, c in enumerate(tok.raw) if ":" in _norm(c))
    return tok.raw[colon + 1 :].lstrip()


def _split_tricks(text: str) -> tuple[str, str | None]:
    """`Anna/2` or `Anna=2` → ("Anna", "2"); `Anna` → ("Anna", None)."""
    cuts = [k for k in (text.find("/"), text.find("=")) if k >= 0]
    if not cuts:
        return text, None
    cut = min(cuts)
    return text[:cut], text[cut + 1 :]


def _unquote(raw: str) -> str | None:
    """A note's text: quoted (`"a \\"b\\""`) or one bare word; None when text follows the quote."""
    if not raw or raw[0] not in _QUOTES:
        return raw
    closers = _QUOTES[raw[0]]
    out: list[str] = []
    i = 1
    while i < len(raw):
        char = raw[i]
        if char == "\\" and i + 1 < len(raw) and (raw[i + 1] == "\\" or raw[i + 1] in closers):
            out.append(raw[i + 1])
            i += 2
        elif char in closers:
            if i + 1 != len(raw):
                return None
            break
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _clean_note(text: str) -> str:
    return " ".join(text.split())


# --- Players --------------------------------------------------------------------------------


def _find(ref: str, table: Table) -> tuple[str, list[int]]:
    """Resolve without raising: ("ok", [seat]), ("ambiguous", seats), ("me", []) for `me` outside
    a chat, or ("unknown", [])."""
    players = table.players
    if len(ref) == 1 and ref in SEATS[: len(players)]:
        return "ok", [SEATS.index(ref)]
    key = _norm(ref)
    if not key:
        return "unknown", []
    exact = [s for s, name in enumerate(players) if _norm(name) == key]
    if exact:
        return ("ok" if len(exact) == 1 else "ambiguous"), exact
    if key.startswith("@"):
        handle = key[1:]
        found = [
            s
            for s, user in enumerate(table.usernames)
            if user and handle and _norm(user).lstrip("@") == handle
        ]
        if found:
            return ("ok" if len(found) == 1 else "ambiguous"), found
        return "unknown", []
    prefix = [s for s, name in enumerate(players) if _norm(name).startswith(key)]
    if prefix:
        return ("ok" if len(prefix) == 1 else "ambiguous"), prefix
    if key in _ME:
        return ("me", []) if table.sender is None else ("ok", [table.sender])
    return "unknown", []


def resolve_player(ref: str, table: Table, span: str | None = None) -> int:
    """The seat a player reference names (notation.md "Players"), in this order: an upper-case seat
    letter A–D; a name, case-insensitive; an @username; a unique case-insensitive prefix of a name;
    `me`/`я` for the sender. Raises InvalidDeal (unknown-player, ambiguous-player, me-outside-chat)
    whose span is `span` (default: the reference itself)."""
    where = ref if span is None else span
    status, seats = _find(ref, table)
    if status == "ok":
        return seats[0]
    example = _example("contract", table)
    if status == "me":
        raise InvalidDeal("me-outside-chat", where, {}, example)
    params = {"players": ", ".join(table.players)}
    if status == "ambiguous":
        params["matches"] = ", ".join(table.players[s] for s in seats)
        raise InvalidDeal("ambiguous-player", where, params, example)
    raise InvalidDeal("unknown-player", where, params, example)


# --- Examples -------------------------------------------------------------------------------


def _example(kind: str, table: Table, dealer: int | None = None) -> str:
    """One correct line of this kind for this table (its own names, its active players)."""
    active = table.active(dealer if dealer is not None else table.dealer) or (0, 1, 2)
    a, b, c = active
    extras = Extras()
    record: Record
    if kind == "misere":
        record = Misere(c, 0)
    elif kind == "raspasy":
        record = Raspasy(((a, 2), (b, 3), (c, 5)))
    elif kind == "adjust":
        record = Adjust(a, Column.POOL, Fraction(-2))
    elif kind == "adjust-whists":
        record = Adjust(a, Column.WHISTS, Fraction(10), target=b)
    elif kind == "last-round":
        record = LastRound()
    elif kind == "three-down":
        record = Contract(c, 6, Suit.SPADES, 0, (), three_down=True)
    elif kind == "two-whists":
        record = Contract(
            c, 6, Suit.SPADES, 0, (Defender(a, Role.WHIST, 2), Defender(b, Role.WHIST, 2))
        )
    elif kind == "half":
        record = Contract(c, 7, Suit.DIAMONDS, 0, (Defender(a, Role.PASS), Defender(b, Role.HALF)))
    else:
        if kind == "prikup":
            extras = Extras(prikup=1)
        record = Contract(
            c, 7, Suit.SPADES, -1, (Defender(a, Role.WHIST), Defender(b, Role.PASS)), extras=extras
        )
    return format_record(record, table.players)


# --- Parsing --------------------------------------------------------------------------------


@dataclass(slots=True)
class _Def:
    player: int
    role: Role
    tricks: int | None
    tok: _Tok


@dataclass(slots=True)
class _ExtrasDraft:
    dealer: int | None = None
    open: bool | None = None
    prikup: int = 0
    note: str = ""
    late: bool = False
    three_down: bool = False
    seen: dict[str, _Tok] = field(default_factory=dict)

    def freeze(self) -> Extras:
        return Extras(self.dealer, self.open, self.prikup, self.note, self.late)


@dataclass(slots=True)
class _ContractLine:
    """What a contract line said, as it is read."""

    declarer: int | None = None
    declarer_tok: _Tok | None = None
    level: int = 0
    level_tok: _Tok | None = None
    suit: Suit | None = None
    result: int = 0
    result_toks: tuple[_Tok, ...] = ()
    defenders: list[_Def] = field(default_factory=list)


_CONTRACT_EXTRAS: Final = frozenset({"dealer", "open", "prikup", "note", "late", "three_down"})
_MISERE_EXTRAS: Final = frozenset({"dealer", "open", "note", "late"})
_RASPASY_EXTRAS: Final = frozenset({"dealer", "note", "late"})


class _Reader:
    """One line being read: its tokens, the table, and the errors' spans and examples."""

    def __init__(self, text: str, toks: list[_Tok], table: Table) -> None:
        self.text = text
        self.toks = toks
        self.table = table
        self.size = len(table.players)
        self.dealer = table.dealer  # replaced by `dealer:X` once read

    # errors

    def span(self, *toks: _Tok) -> str:
        return self.text[min(t.start for t in toks) : max(t.end for t in toks)]

    def whole(self) -> str:
        return self.span(*self.toks)

    def example(self, kind: str) -> str:
        return _example(kind, self.table, self.dealer)

    def fail(
        self, code: str, span: str, kind: str = "contract", params: dict[str, str] | None = None
    ) -> NoReturn:
        raise InvalidDeal(code, span, params or {}, self.example(kind))

    def dealer_in_play(self, span: str, kind: str = "contract") -> NoReturn:
        assert self.dealer is not None
        raise IllegalDeal(
            "dealer-in-play",
            span,
            {"dealer": self.table.players[self.dealer]},
            self.example(kind),
        )

    # pieces

    def player(self, ref: str, tok: _Tok) -> int:
        return resolve_player(ref, self.table, ref if ref.strip() else tok.raw)

    def extra(self, tok: _Tok, draft: _ExtrasDraft, allowed: frozenset[str], kind: str) -> bool:
        """Read `tok` as an extra if it is one; False when it is not an extra at all."""
        key = tok.key
        head = key.partition(":")[0] if ":" in key else None
        if key in _OPEN or key in _CLOSED:
            name = "open"
        elif key in _THREE_DOWN:
            name = "three_down"
        elif key in _LATE:
            name = "late"
        elif head in ("dealer", "prikup", "note"):
            name = head
        else:
            return False
        if name not in allowed:
            self.fail("bad-prikup" if name == "prikup" else "unknown-word", tok.raw, kind)
        if name in draft.seen:
            self.fail("repeated-word", tok.raw, kind)
        draft.seen[name] = tok
        if name == "open":
            draft.open = key in _OPEN
        elif name == "three_down":
            draft.three_down = True
        elif name == "late":
            draft.late = True
        elif name == "dealer":
            ref = _after_colon(tok)
            draft.dealer = self.player(ref, tok)
            self.dealer = draft.dealer
        elif name == "prikup":
            value = _after_colon(tok)
            if not _NUMBER_RE.fullmatch(value) or _small_int(value) > 3:
                self.fail("bad-prikup", tok.raw, "prikup")
            draft.prikup = int(value)
        else:
            value = _after_colon(tok)
            note = _unquote(value)
            if note is None:
                self.fail("unknown-word", tok.raw, kind)
            draft.note = _clean_note(note)
        return True

    def result_at(self, i: int, key: str | None = None) -> tuple[int, int] | None:
        """A contract's RESULT at token i (or in `key`): (result, tokens used), or None."""
        key = self.toks[i].key if key is None else key
        if key == "=":
            return 0, 1
        if m := _SIGNED_RE.fullmatch(key):
            n = _small_int(m["n"])
            return (n if m["sign"] == "+" else -n), 1
        if m := _BEZ_RE.fullmatch(key):
            return -_small_int(m["n"]), 1
        if key == _BEZ and i + 1 < len(self.toks) and _NUMBER_RE.fullmatch(self.toks[i + 1].key):
            return -_small_int(self.toks[i + 1].key), 2
        return None

    def misere_tricks_at(self, i: int) -> tuple[int, int] | None:
        """A misère's TRICKS at token i: (tricks, tokens used), or None."""
        toks = self.toks
        key = toks[i].key
        used = 1
        if key == "=":
            return 0, 1
        if _NUMBER_RE.fullmatch(key):
            tricks = _small_int(key)
        elif m := _SIGNED_RE.fullmatch(key):
            tricks = _small_int(m["n"])
            if m["sign"] == "+" and tricks:
                self.fail("bad-misere-tricks", toks[i].raw, "misere")
        elif m := _BEZ_RE.fullmatch(key):
            tricks = _small_int(m["n"])
        elif key == _BEZ and i + 1 < len(toks) and _NUMBER_RE.fullmatch(toks[i + 1].key):
            tricks, used = _small_int(toks[i + 1].key), 2
        else:
            return None
        if tricks > TRICKS:
            self.fail("bad-misere-tricks", self.span(*toks[i : i + used]), "misere")
        return tricks, used

    # records

    def record(self) -> Record:
        first = self.toks[0].key
        if first in _LAST_ROUND or _LAST_ROUND_COMMAND_RE.fullmatch(first):
            if len(self.toks) > 1:
                self.fail("unknown-word", self.toks[1].raw, "last-round")
            return LastRound()
        if first in _ADJUST:
            return self.adjust()
        if first in _RASPASY:
            return self.raspasy()
        if any(t.key in _MISERE for t in self.toks):
            return self.misere()
        return self.contract()

    def contract(self) -> Contract:
        toks = self.toks
        draft = _ExtrasDraft()
        line = _ContractLine()
        i = 0
        while i < len(toks):
            tok = toks[i]
            key = tok.key
            if m := _LEVEL_RE.fullmatch(key):
                if line.level_tok is not None:
                    self.fail("repeated-word", tok.raw)
                word = m["level"]
                line.level = _LEVEL_WORDS[word] if word in _LEVEL_WORDS else _small_int(word)
                if not 6 <= line.level <= 10:
                    self.fail("bad-level", tok.raw)
                line.level_tok = tok
                line.suit = _SUITS[m["suit"]] if m["suit"] else None
                i += 1
                if m["result"]:
                    line.result, _ = self.result_at(i - 1, m["result"]) or (0, 1)
                    line.result_toks = (tok,)
                elif line.suit is None and i < len(toks) and toks[i].key in _SUIT_WORDS:
                    line.suit = _SUIT_WORDS[toks[i].key]
                    i += 1
                continue
            if found := self.result_at(i):
                value, used = found
                if line.result_toks:
                    self.fail("repeated-word", self.span(*toks[i : i + used]))
                line.result, line.result_toks = value, tuple(toks[i : i + used])
                i += used
                continue
            i += 1
            if ":" in key and key.partition(":")[0] in _ROLES:
                defender = self.defender(tok)
                if any(other.player == defender.player for other in line.defenders):
                    self.fail("same-player-twice", tok.raw)
                line.defenders.append(defender)
            elif not self.extra(tok, draft, _CONTRACT_EXTRAS, "contract"):
                seat = self.bare_player(tok, "contract")
                if line.declarer_tok is not None:
                    self.fail("repeated-word", tok.raw)
                line.declarer, line.declarer_tok = seat, tok
        return self.finish_contract(line, draft)

    def bare_player(self, tok: _Tok, kind: str) -> int:
        """A word of its own that is no vocabulary: the declarer, or a mistake."""
        key = tok.key
        if len(tok.raw) == 1 and tok.raw in SEATS[: self.size]:
            return SEATS.index(tok.raw)
        if digits := _LEADING_NUMBER_RE.match(key):
            out_of_range = not 6 <= _small_int(digits.group()) <= 10
            if (
                kind == "contract"
                and out_of_range
                and _LEVEL_RE.fullmatch("7" + key[digits.end() :])
            ):
                self.fail("bad-level", tok.raw, kind)
            self.fail("unknown-word", tok.raw, kind)
        if ":" in key or key in _VOCABULARY or not any(c.isalpha() for c in key):
            self.fail("unknown-word", tok.raw, kind)
        return self.player(tok.raw, tok)

    def defender(self, tok: _Tok) -> _Def:
        role = _ROLES[tok.key.partition(":")[0]]
        rest = _after_colon(tok)
        ref, tricks_raw = _split_tricks(rest)
        player = self.player(ref, tok)
        tricks: int | None = None
        if tricks_raw is not None:
            tricks_key = _norm(tricks_raw)
            if not _NUMBER_RE.fullmatch(tricks_key) or _small_int(tricks_key) > TRICKS:
                self.fail("bad-tricks", tok.raw, "two-whists")
            tricks = int(tricks_key)
        return _Def(player, role, tricks, tok)

    def finish_contract(self, line: _ContractLine, draft: _ExtrasDraft) -> Contract:
        size, dealer, defenders = self.size, self.dealer, line.defenders
        if line.level_tok is None:
            self.fail("missing-level", self.whole())
        level = line.level
        declarer, declarer_tok = line.declarer, line.declarer_tok
        four_with_dealer = size == 4 and dealer is not None
        for d in defenders:
            if d.player == declarer:
                self.fail("declarer-defends", d.tok.raw)
        if draft.three_down:
            if defenders:
                self.fail(
                    "too-many-defenders", defenders[0].tok.raw, "three-down", {"expected": "0"}
                )
            if line.result:
                self.fail("not-played-with-tricks", self.span(*line.result_toks), "three-down")
            if declarer is None or declarer_tok is None:
                self.fail("missing-declarer", self.whole(), "three-down")
            if four_with_dealer and declarer == dealer:
                self.dealer_in_play(declarer_tok.raw, "three-down")
            extras = draft.freeze()
            return Contract(declarer, level, line.suit, 0, (), three_down=True, extras=extras)
        if len(defenders) < 2:
            self.fail("missing-defenders", self.whole())
        if len(defenders) > 2:
            self.fail("too-many-defenders", defenders[2].tok.raw, params={"expected": "2"})
        first, second = defenders
        roles = (first.role, second.role)
        if roles == (Role.HALF, Role.HALF):
            self.fail("two-half-whists", second.tok.raw, "half")
        half = first if first.role is Role.HALF else second if second.role is Role.HALF else None
        if half is not None and Role.WHIST in roles:
            self.fail("half-beside-whist", half.tok.raw, "half")
        if half is not None and level >= 8:
            self.fail("half-whist-on-high", half.tok.raw, "half", {"level": str(level)})
        dealer_whists = False
        if four_with_dealer:
            if declarer == dealer and declarer_tok is not None:
                self.dealer_in_play(declarer_tok.raw)
            for d, other in ((first, second), (second, first)):
                if d.player == dealer:
                    if d.role is not Role.WHIST or other.role is not Role.PASS:
                        self.dealer_in_play(d.tok.raw)
                    dealer_whists = True
        if draft.prikup and dealer_whists:
            self.fail("bad-prikup", draft.seen["prikup"].raw, "prikup")
        if declarer is None:
            pool = set(self.table.active(dealer) or range(size))
            candidates = pool - {first.player, second.player}
            if len(candidates) != 1:
                self.fail("missing-declarer", self.whole())
            (declarer,) = candidates
        if Role.WHIST in roles and half is None:
            result, tricks = self.played(line)
        else:
            kind = "half" if half else "contract"
            with_tricks = [d.tok for d in defenders if d.tricks is not None]
            if with_tricks:
                self.fail("not-played-with-tricks", self.span(*with_tricks), kind)
            if line.result:
                self.fail("not-played-with-tricks", self.span(*line.result_toks), kind)
            result, tricks = 0, (None, None)
        kept = sorted(
            (Defender(d.player, d.role, t) for d, t in zip(defenders, tricks, strict=True)),
            key=lambda d: (d.player - declarer) % size,
        )
        return Contract(declarer, level, line.suit, result, tuple(kept), extras=draft.freeze())

    def played(self, line: _ContractLine) -> tuple[int, tuple[int | None, int | None]]:
        """A played deal's result and the tricks to keep (each whister's, when both whist)."""
        level, defenders = line.level, line.defenders
        two_whists = all(d.role is Role.WHIST for d in defenders)
        kind = "two-whists" if two_whists else "contract"
        given = [d for d in defenders if d.tricks is not None]
        given_sum = sum(d.tricks or 0 for d in given)
        if not line.result_toks:
            if len(given) < 2:
                assert line.level_tok is not None
                self.fail("missing-result", line.level_tok.raw, kind)
            if given_sum > TRICKS:
                self.fail("tricks-not-ten", self.span(*(d.tok for d in given)), kind)
            result = TRICKS - given_sum - level
        else:
            result = line.result
            if not 0 <= level + result <= TRICKS:
                self.fail("bad-tricks", self.span(*line.result_toks), kind)
            side = TRICKS - level - result
            if given_sum > side or (len(given) == 2 and given_sum != side):
                span = self.span(*line.result_toks, *(d.tok for d in given))
                self.fail("result-contradicts-tricks", span, kind)
            if two_whists and not given and side:
                self.fail("missing-tricks", self.span(*(d.tok for d in defenders)), kind)
        if not two_whists:
            return result, (None, None)
        side = TRICKS - level - result
        first, second = defenders
        if first.tricks is not None:
            return result, (first.tricks, side - first.tricks)
        if second.tricks is not None:
            return result, (side - second.tricks, second.tricks)
        return result, (0, 0)

    def misere(self) -> Misere:
        toks = self.toks
        draft = _ExtrasDraft()
        declarer: int | None = None
        declarer_tok: _Tok | None = None
        tricks: int | None = None
        seen_word = False
        i = 0
        while i < len(toks):
            tok = toks[i]
            if tok.key in _MISERE:
                if seen_word:
                    self.fail("repeated-word", tok.raw, "misere")
                seen_word = True
                i += 1
                continue
            if found := self.misere_tricks_at(i):
                value, used = found
                if tricks is not None:
                    self.fail("repeated-word", self.span(*toks[i : i + used]), "misere")
                tricks = value
                i += used
                continue
            i += 1
            if self.extra(tok, draft, _MISERE_EXTRAS, "misere"):
                continue
            seat = self.bare_player(tok, "misere")
            if declarer_tok is not None:
                self.fail("repeated-word", tok.raw, "misere")
            declarer, declarer_tok = seat, tok
        if declarer is None or declarer_tok is None:
            self.fail("missing-declarer", self.whole(), "misere")
        if self.size == 4 and self.dealer is not None and declarer == self.dealer:
            self.dealer_in_play(declarer_tok.raw, "misere")
        return Misere(declarer, tricks or 0, draft.freeze())

    def raspasy(self) -> Raspasy:
        toks = self.toks
        draft = _ExtrasDraft()
        named: list[tuple[int, int, _Tok]] = []
        bare: list[tuple[int, _Tok]] = []
        for tok in toks[1:]:
            if self.extra(tok, draft, _RASPASY_EXTRAS, "raspasy"):
                continue
            if _NUMBER_RE.fullmatch(tok.key):
                if named:
                    self.fail("unknown-word", tok.raw, "raspasy")
                bare.append((self.raspasy_tricks(tok.key, tok), tok))
                continue
            ref, tricks_raw = _split_tricks(tok.raw)
            if tricks_raw is None or bare or ":" in tok.key:
                self.fail("unknown-word", tok.raw, "raspasy")
            player = self.player(ref, tok)
            tricks = self.raspasy_tricks(_norm(tricks_raw), tok)
            if any(p == player for p, _, _ in named):
                self.fail("same-player-twice", tok.raw, "raspasy")
            named.append((player, tricks, tok))
        entries = [t for *_, t in named] or [t for _, t in bare]
        span = self.span(*entries) if entries else toks[0].raw
        active = self.table.active(self.dealer)
        if bare:
            if active is None:
                self.fail("missing-dealer", span, "raspasy")
            if len(bare) != len(active):
                self.fail("bad-tricks", span, "raspasy", {"expected": str(len(active))})
            pairs = list(zip(active, (t for t, _ in bare), strict=True))
        else:
            if len(named) != 3:
                self.fail("bad-tricks", span, "raspasy", {"expected": "3"})
            for player, _, tok in named:
                if active is not None and player not in active:
                    self.dealer_in_play(tok.raw, "raspasy")
            pairs = sorted((p, t) for p, t, _ in named)
        if sum(t for _, t in pairs) != TRICKS:
            self.fail("tricks-not-ten", span, "raspasy")
        return Raspasy(tuple(pairs), draft.freeze())

    def raspasy_tricks(self, key: str, tok: _Tok) -> int:
        if not _NUMBER_RE.fullmatch(key) or _small_int(key) > TRICKS:
            self.fail("bad-tricks", tok.raw, "raspasy")
        return int(key)

    def adjust(self) -> Adjust:
        toks = self.toks
        if len(toks) < 2:
            self.fail("bad-adjust", self.whole(), "adjust")
        player_tok = toks[1]
        player = self.player(player_tok.raw, player_tok)
        column: Column | None = None
        target: int | None = None
        amount: Fraction | None = None
        note: str | None = None
        kind = "adjust"
        for tok in toks[2:]:
            key = tok.key
            head = key.partition(":")[0] if ":" in key else None
            if key in _COLUMNS or head == "whists":
                if column is not None:
                    self.fail("repeated-word", tok.raw, kind)
                if head == "whists":
                    kind = "adjust-whists"
                    column = Column.WHISTS
                    ref = _after_colon(tok)
                    target = self.player(ref, tok)
                    if target == player:
                        self.fail("bad-adjust", tok.raw, kind)
                else:
                    column = _COLUMNS[key]
            elif _AMOUNT_RE.fullmatch(key):
                if amount is not None:
                    self.fail("repeated-word", tok.raw, kind)
                numerator, _, denominator = key.partition("/")
                if denominator and int(denominator) == 0:
                    self.fail("bad-adjust", tok.raw, kind)
                amount = Fraction(numerator) / Fraction(denominator or 1)
                if not amount:
                    self.fail("bad-adjust", tok.raw, kind)
            elif head == "note":
                if note is not None:
                    self.fail("repeated-word", tok.raw, kind)
                value = _after_colon(tok)
                note = _unquote(value)
                if note is None:
                    self.fail("unknown-word", tok.raw, kind)
                note = _clean_note(note)
            else:
                self.fail("unknown-word", tok.raw, kind)
        if column is None or amount is None:
            self.fail("bad-adjust", self.whole(), kind)
        return Adjust(player, column, amount, target, note or "")


_RULE_CHANGE_RE: Final = re.compile(
    r"\s*(?:/deal(?:@\w+)?\s+)?(?:option|правило)\s+(?P<name>[^\s=]+)\s*=\s*(?P<value>\S+)\s*",
    re.IGNORECASE,
)
RULE_CHANGE_EXAMPLE: Final = "option pool_target=30"


def parse_rule_change(text: str) -> RuleChange | None:
    """`option name=value` (conventions.md §1.4), the value checked and made canonical; None when
    the line is not a rule change. Raises OptionError for an unknown option or value."""
    match = _RULE_CHANGE_RE.fullmatch(text)
    if match is None:
        return None
    name = match["name"].lower()
    if name == "convention":
        raise OptionError(
            "unknown-option", name, {"valid": ", ".join(OPTION_NAMES)}, RULE_CHANGE_EXAMPLE
        )
    try:
        value = format_option(parse_option(name, match["value"]))
    except OptionError as error:
        error.example = RULE_CHANGE_EXAMPLE
        raise
    return RuleChange(name, value)


def parse_record(text: str, table: Table) -> Record:
    """One record from a deal line (with or without a leading `/deal`); raises NotationError."""
    change = parse_rule_change(text)
    if change is not None:
        return change
    toks = _tokenize(text)
    if toks and _COMMAND_RE.fullmatch(toks[0].key):
        toks = toks[1:]
    if not toks:
        raise InvalidDeal("empty-deal", text.strip(), {}, _example("contract", table))
    return _Reader(text, toks, table).record()


# --- Formatting -----------------------------------------------------------------------------

_ROLE_WORDS: Final = {
    "en": {Role.WHIST: "vist", Role.PASS: "pass", Role.HALF: "half"},
    "ru": {Role.WHIST: "вист", Role.PASS: "пас", Role.HALF: "пол"},
}
_WORDS: Final = {
    "en": {
        "misere": "misere",
        "raspasy": "pass",
        "three_down": "three_down",
        "open": "open",
        "closed": "closed",
    },
    "ru": {
        "misere": "мизер",
        "raspasy": "рас",
        "three_down": "уход",
        "open": "светлую",
        "closed": "тёмную",
    },
}


@lru_cache(maxsize=64)
def _name_tokens(players: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """How each seat is printed: (as a word of its own, inside `role:NAME` or `NAME/N`).

    A name is printed when it reads back as its own seat; otherwise the seat letter is.
    """
    table = Table(players)
    bare: list[str] = []
    inner: list[str] = []
    for seat, name in enumerate(players):
        letter = SEATS[seat]
        key = _norm(name)
        usable = (
            bool(name)
            and not any(c.isspace() or c in _NAME_FORBIDDEN for c in name + key)
            and not key.startswith("@")
            and _reads_as(name, table) == seat
        )
        word = usable and not (
            not any(c.isalpha() for c in key)
            or key in _RESERVED
            or key[:1].isdigit()
            or key[:1] in "+-=/"
            or key.startswith(_BEZ)
            or _LEVEL_RE.fullmatch(key) is not None
        )
        inner.append(name if usable else letter)
        bare.append(name if word else letter)
    return tuple(bare), tuple(inner)


def _reads_as(name: str, table: Table) -> int | None:
    status, seats = _find(name, table)
    return seats[0] if status == "ok" else None


def _result_text(result: int) -> str:
    return "=" if result == 0 else f"{result:+d}"


def _amount_text(amount: Fraction) -> str:
    return f"+{amount}" if amount > 0 else str(amount)


def _extras_text(extras: Extras, inner: tuple[str, ...], words: dict[str, str]) -> list[str]:
    parts: list[str] = []
    if extras.dealer is not None:
        parts.append(f"dealer:{inner[extras.dealer]}")
    if extras.prikup:
        parts.append(f"prikup:{extras.prikup}")
    if extras.open is not None:
        parts.append(words["open"] if extras.open else words["closed"])
    if extras.note:
        parts.append(_note_text(extras.note))
    if extras.late:
        parts.append("late")
    return parts


def _note_text(note: str) -> str:
    escaped = note.replace("\\", "\\\\").replace('"', '\\"')
    return f'note:"{escaped}"'


def format_record(record: Record, players: Sequence[str], *, lang: str = "en") -> str:
    """The canonical line of a record (notation.md "Canonical form"); `lang="ru"` prints Russian
    role words, `мизер` and `рас`. It parses back to the same record."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    bare, inner = _name_tokens(tuple(players))
    words = _WORDS[lang]
    parts: list[str]
    if isinstance(record, Contract):
        roles = _ROLE_WORDS[lang]
        parts = [
            bare[record.declarer],
            f"{record.level}{record.suit.value if record.suit else ''}",
            _result_text(record.result),
        ]
        for d in record.defenders:
            tricks = "" if d.tricks is None else f"/{d.tricks}"
            parts.append(f"{roles[d.role]}:{inner[d.player]}{tricks}")
        if record.three_down:
            parts.append(words["three_down"])
        parts += _extras_text(record.extras, inner, words)
    elif isinstance(record, Misere):
        parts = [bare[record.declarer], words["misere"], str(record.tricks)]
        parts += _extras_text(record.extras, inner, words)
    elif isinstance(record, Raspasy):
        parts = [words["raspasy"], *(f"{inner[p]}/{t}" for p, t in record.tricks)]
        parts += _extras_text(record.extras, inner, words)
    elif isinstance(record, Adjust):
        column = (
            f"whists:{inner[record.target]}"
            if record.column is Column.WHISTS and record.target is not None
            else record.column.value
        )
        parts = ["adjust", inner[record.player], column, _amount_text(record.amount)]
        if record.note:
            parts.append(_note_text(record.note))
    elif isinstance(record, RuleChange):
        parts = ["option", f"{record.option}={record.value}"]
    else:
        parts = ["last-round"]
    return " ".join(parts)
