"""One notation line being read: its words, its errors, and the pieces all records share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, NamedTuple, NoReturn

from scoring.deal import TRICKS, Extras, Role
from scoring.errors import IllegalDeal, InvalidDeal
from scoring.notation_words import (
    BEZ,
    ME,
    NUMBER_RE,
    OPEN,
    QUOTES,
    Table,
    Word,
    norm,
    positions,
    quoted,
    small_int,
)

# The note an error's example adds, in the line's language.
NOTE_EXAMPLE: Final = {"en": 'note:"first deal"', "ru": 'note:"первая раздача"'}

# --- Players --------------------------------------------------------------------------------


def resolve_player(ref: str, table: Table) -> int:
    """The seat a player reference names (notation.md "Players"); raises NotationError."""
    return resolve(norm(ref), table, ref, lambda: example("contract", table))


def example(kind: str, table: Table, dealer: int | None = None, lang: str = "en") -> str:
    """One correct line of this kind for this table (the printer loads only on an error)."""
    from scoring.notation_print import example as printed

    return printed(kind, table, dealer, lang)


def resolve(key: str, table: Table, where: str, example_line: Callable[[], str]) -> int:
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


# --- Reading ------------------------------------------------------------------------------


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
        return Extras(self.dealer, self.open, self.prikup, self.note, self.late)


CONTRACT_EXTRAS: Final = frozenset({"dealer", "open", "prikup", "note", "late", "three_down"})
MISERE_EXTRAS: Final = frozenset({"dealer", "open", "note", "late"})
RASPASY_EXTRAS: Final = frozenset({"dealer", "note", "late"})


class Line:
    """One line being read: its words, the table, and the errors' spans and examples."""

    __slots__ = ("dealer", "draft", "size", "skip", "spans", "table", "text", "words")

    def __init__(
        self, text: str, line: list[Word], spans: list[tuple[int, int]] | None, table: Table
    ) -> None:
        self.text = text
        self.words = line
        self.spans = spans  # None until an error needs them
        self.skip = 0  # words before the line proper (a leading `/deal`)
        self.table = table
        self.size = len(table.players)
        self.dealer = table.dealer  # replaced by `dealer:X` once read
        self.draft = ExtrasDraft()

    # errors

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
        raise IllegalDeal(
            "dealer-in-play", span, {"dealer": self.table.players[self.dealer]}, self.example(kind)
        )

    # pieces

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
        elif name == "three_down":
            draft.three_down = True
        elif name == "late":
            draft.late = True
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

    def misere_tricks_at(self, at: int) -> tuple[int, int] | None:
        """A misère's TRICKS at word `at`: (tricks, words used), or None."""
        word = self.words[at]
        used = 1
        if word.key == "=":
            return 0, 1
        if word.number is not None:
            tricks = word.number
        elif word.signed is not None:
            plus, tricks = word.signed
            if plus and tricks:
                self.fail("bad-misere-tricks", word.raw, "misere")
        elif word.bez_n is not None:
            tricks = word.bez_n
        elif (n := self.bez_at(at)) is not None:
            tricks, used = n, 2
        else:
            return None
        if tricks > TRICKS:
            self.fail("bad-misere-tricks", self.span(at, at + used - 1), "misere")
        return tricks, used
