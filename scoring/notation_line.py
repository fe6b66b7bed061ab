"""One notation line being read: its words, its errors, and the pieces all records share."""

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from typing import Final, NamedTuple, NoReturn

from scoring.deal import TRICKS, Contract, Defender, Extras, Role, Suit
from scoring.errors import IllegalDeal, InvalidDeal
from scoring.notation_words import (
    BEZ,
    LEVEL_RE,
    NUMBER_RE,
    OPEN,
    QUOTES,
    ROLES,
    SEAT_LETTERS,
    SUIT_WORDS,
    SUITS,
    Table,
    norm,
    positions,
    quoted,
    resolve,
    small_int,
    words,
)

# The note an error's example adds, in the line's language.
NOTE_EXAMPLE: Final = {"en": 'note:"first deal"', "ru": 'note:"первая раздача"'}


def example(kind: str, table: Table, dealer: int | None = None, lang: str = "en") -> str:
    """One correct line of this kind for this table, in a language (the printer loads on an error)."""
    from scoring.deal import Adjust, Column, LastRound, Misere, Raspasy, Record
    from scoring.notation_print import format_record

    a, b, c = table.active(dealer if dealer is not None else table.dealer) or (0, 1, 2)
    whist, half = Defender(a, Role.WHIST), Defender(b, Role.HALF)
    records: dict[str, Record] = {
        "misere": Misere(c, 0),
        "raspasy": Raspasy(((a, 2), (b, 3), (c, 5))),
        "adjust": Adjust(a, Column.POOL, Fraction(-2)),
        "adjust-whists": Adjust(a, Column.WHISTS, Fraction(10), target=b),
        "last-round": LastRound(),
        "three-down": Contract(c, 6, Suit.SPADES, 0, (), three_down=True),
        "two-whists": Contract(
            c, 6, Suit.SPADES, 0, (Defender(a, Role.WHIST, 2), Defender(b, Role.WHIST, 2))
        ),
        "half": Contract(c, 7, Suit.DIAMONDS, 0, (Defender(a, Role.PASS), half)),
    }
    extras = Extras(prikup=1) if kind == "prikup" else Extras()
    played = Contract(c, 7, Suit.SPADES, -1, (whist, Defender(b, Role.PASS)), extras=extras)
    return format_record(records.get(kind, played), table.players, lang=lang)


class Def(NamedTuple):
    player: int
    role: Role
    tricks: int | None
    at: int  # the word's index in the line


@dataclass(slots=True)
class ExtrasDraft:
    dealer: int | None = None
    open: bool | None = None
    prikup: int = 0
    note: str = ""
    late: bool = False
    three_down: bool = False
    seen: dict[str, int] = field(default_factory=dict)  # extra → the index of its word

    def freeze(self) -> Extras:
        return _extras(self.dealer, self.open, self.prikup, self.note, self.late)


# Building a frozen dataclass is a good part of reading a line: the few defenders and the common
# extras are built once.
_defender: Final = cache(Defender)
_extras: Final = lru_cache(maxsize=256)(Extras)
WHIST, PASS, HALF = Role.WHIST, Role.PASS, Role.HALF  # a member looked up on its enum is slow
CONTRACT_EXTRAS: Final = frozenset({"dealer", "open", "prikup", "note", "late", "three_down"})
MISERE_EXTRAS: Final = frozenset({"dealer", "open", "note", "late"})
RASPASY_EXTRAS: Final = frozenset({"dealer", "note", "late"})


class Line:
    """One line being read: its words, the table, the errors' spans and examples, and a contract."""

    __slots__ = ("dealer", "draft", "size", "skip", "spans", "table", "text", "words")

    def __init__(self, text: str, table: Table) -> None:
        self.text = text
        line, self.spans = words(text)  # the spans: None until an error needs them
        self.skip = 1 if line and line[0].opens == "command" else 0  # a leading `/deal`
        self.words = line[self.skip :]  # the line proper
        self.table = table
        self.size = len(table.players)
        self.dealer = table.dealer  # replaced by `dealer:X` once read
        self.draft = ExtrasDraft()

    def span(self, *at: int) -> str:
        if self.spans is None:
            self.spans = positions(self.text)
        first, last = min(at) + self.skip, max(at) + self.skip
        return self.text[self.spans[first][0] : self.spans[last][1]]

    def whole(self) -> str:
        return self.span(0, len(self.words) - 1)

    def lang(self) -> str:
        """The line's language, told by its words of the notation (English when they say nothing)."""
        votes = [w.russian for w in self.words]
        return "ru" if votes.count(True) > votes.count(False) else "en"

    def example(self, kind: str) -> str:
        return example(kind, self.table, self.dealer, self.lang())

    def fail(
        self, code: str, span: str, kind: str = "contract", params: dict[str, str] | None = None
    ) -> NoReturn:
        raise InvalidDeal(code, span, params or {}, self.example(kind))

    def dealer_in_play(self, span: str, kind: str = "contract") -> NoReturn:
        assert self.dealer is not None
        dealer = {"dealer": self.table.players[self.dealer]}
        raise IllegalDeal("dealer-in-play", span, dealer, self.example(kind))

    def player(self, ref: str, at: int) -> int:
        where = ref if ref.strip() else self.words[at].raw
        return resolve(norm(ref), self.table, where, lambda: self.example("contract"))

    def extra(self, at: int, allowed: frozenset[str], kind: str) -> bool:
        """Read word `at` as an extra if it is one; False when it is not an extra at all."""
        word = self.words[at]
        name = word.extra
        if name is None:
            return False
        draft = self.draft
        if name not in allowed:
            self.fail("bad-prikup" if name == "prikup" else "unknown-word", word.raw, kind)
        if name in draft.seen:
            self.fail("repeated-word", word.raw, kind)
        draft.seen[name] = at
        if name == "open":
            draft.open = word.key in OPEN
        elif name in ("three_down", "late"):
            setattr(draft, name, True)
        elif name == "dealer":
            draft.dealer = self.player(word.after, at)
            self.dealer = draft.dealer
        elif name == "prikup":
            value = word.after
            if not NUMBER_RE.fullmatch(value) or not 1 <= small_int(value) <= 3:
                self.fail("bad-prikup", word.raw, "prikup")
            draft.prikup = int(value)
        else:
            draft.note = self.note(at, kind)
        return True

    def note(self, at: int, kind: str) -> str:
        """The text of the `note:"…"` at word `at`, whitespace collapsed; unclosed: an error."""
        word = self.words[at]
        after = word.after
        note, end = quoted(after) if after[:1] in QUOTES else (after, len(after) - 1)
        if end == len(after):
            example_line = f"{self.example(kind)} {NOTE_EXAMPLE[self.lang()]}"
            raise InvalidDeal("unterminated-note", word.raw, {}, example_line)
        if end < len(after) - 1:
            self.fail("unknown-word", word.raw, kind)
        return " ".join(note.split())

    def bez_at(self, at: int) -> int | None:
        """`без N` or `без одной` … `без десяти` from word `at`: N, or None."""
        line = self.words
        if line[at].key != BEZ or at + 1 >= len(line):
            return None
        after = line[at + 1]
        return after.number if after.number is not None else after.bez_word

    def contract(self) -> Contract:
        """A contract line (spec/notation.md "Contract"): level, result, declarer, defenders."""
        line, count = self.words, len(self.words)
        level = result = 0
        suit: Suit | None = None
        result_at: tuple[int, ...] = ()  # one word, or two (`без двух`)
        declarer: int | None = None
        defenders: list[Def] = []
        # where the level and the declarer stand (-1: not said), the index right after the
        # contract's word(s), and where `без трёх` right after the contract starts
        level_at = declarer_at = contract_end = concession = -1
        i = 0
        while i < count:
            word, used = line[i], 1
            if word.level is not None:
                if level_at >= 0:
                    self.fail("repeated-word", word.raw)
                if not 6 <= word.level <= 10:
                    self.fail("bad-level", word.raw)
                level, level_at, suit = word.level, i, word.suit
                if word.stuck is not None:
                    result, result_at = word.stuck, (i,)
                elif suit is None and i + 1 < count and line[i + 1].key in SUIT_WORDS:
                    suit, used = SUIT_WORDS[line[i + 1].key], 2
                contract_end = i + used
            elif word.result is not None:
                if result_at:
                    self.fail("repeated-word", word.raw)
                result, result_at = word.result, (i,)
            elif word.key == BEZ and (n := self.bez_at(i)) is not None:
                if result_at:
                    self.fail("repeated-word", self.span(i, i + 1))
                if i == contract_end and n == 3 and line[i + 1].bez_word == 3:
                    concession = i
                result, result_at, used = -n, (i, i + 1), 2
            elif word.role is not None:
                player = self.player(word.ref, i)
                if word.tricks is not None and word.tricks < 0:
                    self.fail("bad-tricks", word.raw, "two-whists")
                if any(other.player == player for other in defenders):
                    self.fail("same-player-twice", word.raw)
                defenders.append(Def(player, word.role, word.tricks, i))
            elif not self.extra(i, CONTRACT_EXTRAS, "contract"):
                seat = self.bare_player(i, "contract")
                if declarer_at >= 0:
                    self.fail("repeated-word", word.raw)
                declarer, declarer_at = seat, i
            i += used
        size, dealer, draft = self.size, self.dealer, self.draft
        if concession >= 0 and not defenders:
            if draft.three_down:
                self.fail("repeated-word", line[draft.seen["three_down"]].raw, "three-down")
            draft.three_down = True
            draft.seen["three_down"] = concession
            result, result_at = 0, ()
        if level_at < 0:
            self.fail("missing-level", self.whole())
        four_with_dealer = size == 4 and dealer is not None
        for d in defenders:
            if d.player == declarer:
                self.fail("declarer-defends", line[d.at].raw)
        if draft.three_down:
            if defenders:
                params = {"expected": "0"}
                self.fail("too-many-defenders", line[defenders[0].at].raw, "three-down", params)
            if result:
                self.fail("not-played-with-tricks", self.span(*result_at), "three-down")
            if declarer is None:
                self.fail("missing-declarer", self.whole(), "three-down")
            if four_with_dealer and declarer == dealer:
                self.dealer_in_play(line[declarer_at].raw, "three-down")
            return Contract(declarer, level, suit, 0, (), True, draft.freeze())
        if len(defenders) < 2:
            self.fail("missing-defenders", self.whole())
        if len(defenders) > 2:
            self.fail("too-many-defenders", line[defenders[2].at].raw, params={"expected": "2"})
        first, second = defenders
        roles = (first.role, second.role)
        if roles == (HALF, HALF):
            self.fail("two-half-whists", line[second.at].raw, "half")
        half = first if first.role is HALF else second if second.role is HALF else None
        if half is not None and WHIST in roles:
            self.fail("half-beside-whist", line[half.at].raw, "half")
        if half is not None and level >= 8:
            self.fail("half-whist-on-high", line[half.at].raw, "half", {"level": str(level)})
        if four_with_dealer:
            if declarer == dealer:
                self.dealer_in_play(line[declarer_at].raw)
            for d, other in ((first, second), (second, first)):
                if d.player == dealer and (d.role is not WHIST or other.role is not PASS):
                    self.dealer_in_play(line[d.at].raw)
            if draft.prikup and dealer in (first.player, second.player):  # the dealer whists
                self.fail("bad-prikup", line[draft.seen["prikup"]].raw, "prikup")
        if declarer is None:
            pool = set(self.table.active(dealer) or range(size))
            candidates = pool - {first.player, second.player}
            if len(candidates) != 1:
                self.fail("missing-declarer", self.whole())
            (declarer,) = candidates
        tricks: tuple[int | None, int | None] = (None, None)
        if WHIST in roles and half is None:
            result, tricks = self.played(level, level_at, result, result_at, first, second)
        else:
            kind = "half" if half else "contract"
            with_tricks = [d.at for d in defenders if d.tricks is not None]
            if with_tricks:
                self.fail("not-played-with-tricks", self.span(*with_tricks), kind)
            if result:
                self.fail("not-played-with-tricks", self.span(*result_at), kind)
        one = _defender(first.player, first.role, tricks[0])
        two = _defender(second.player, second.role, tricks[1])
        if (first.player - declarer) % size > (second.player - declarer) % size:
            one, two = two, one
        return Contract(declarer, level, suit, result, (one, two), False, draft.freeze())

    def bare_player(self, at: int, kind: str) -> int:
        """A word of its own that is no vocabulary: the declarer, or a mistake."""
        word = self.words[at]
        seat = SEAT_LETTERS.get(word.key)
        if seat is not None and seat < self.size:
            return seat
        if digits := NUMBER_RE.match(word.key):
            shaped = LEVEL_RE.fullmatch("7" + word.key[digits.end() :])  # `5♠`, `11nt`
            if kind == "contract" and shaped and not 6 <= small_int(digits.group()) <= 10:
                self.fail("bad-level", word.raw, kind)
            self.fail("unknown-word", word.raw, kind)
        if not word.plain:
            if word.key in ROLES and kind == "contract" and at + 1 < len(self.words):
                # `вист Миша`: a role word and a player without the colon between them (a hint)
                after = self.words[at + 1]
                if norm(after.pair) in self.table.refs or (
                    after.plain and not NUMBER_RE.match(after.key) and after.key not in SUITS
                ):
                    fix = f"{word.raw}:{after.raw}"
                    self.fail("missing-colon", self.span(at, at + 1), params={"fix": fix})
            self.fail("unknown-word", word.raw, kind)
        return self.player(word.raw, at)

    def played(
        self, level: int, at: int, result: int, result_at: tuple[int, ...], first: Def, second: Def
    ) -> tuple[int, tuple[int | None, int | None]]:
        """A played deal's result and the tricks to keep (each whister's, when both whist)."""
        two_whists = first.role is WHIST and second.role is WHIST
        kind = "two-whists" if two_whists else "contract"
        given = [d for d in (first, second) if d.tricks is not None]
        given_sum = sum(d.tricks or 0 for d in given)
        if not result_at:
            if len(given) < 2:
                self.fail("missing-result", self.words[at].raw, kind)
            if given_sum > TRICKS:
                self.fail("tricks-not-ten", self.span(*(d.at for d in given)), kind)
            result = TRICKS - given_sum - level
        else:
            if not 0 <= level + result <= TRICKS:
                self.fail("bad-tricks", self.span(*result_at), kind)
            side = TRICKS - level - result
            if given_sum > side or (len(given) == 2 and given_sum != side):
                span = self.span(*result_at, *(d.at for d in given))
                self.fail("result-contradicts-tricks", span, kind)
            if two_whists and not given and side:
                self.fail("missing-tricks", self.span(first.at, second.at), kind)
        if not two_whists:
            return result, (None, None)
        side = TRICKS - level - result
        if first.tricks is not None:
            return result, (first.tricks, side - first.tricks)
        return result, (side - (second.tricks or 0), second.tricks or 0)  # neither: side is 0
