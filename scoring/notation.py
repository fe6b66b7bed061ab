"""The deal notation: read what players type, print the canonical line (spec/notation.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from scoring.deal import TRICKS, Adjust, Column, LastRound, Misere, Raspasy, Record, RuleChange
from scoring.errors import InvalidDeal, OptionError
from scoring.notation_line import MISERE_EXTRAS, RASPASY_EXTRAS, Line, example
from scoring.notation_words import COLUMNS, MISERE, norm, resolve, words
from scoring.notation_words import SEATS as SEATS
from scoring.notation_words import Table as Table
from scoring.rules import format_option, parse_option


def resolve_player(ref: str, table: Table) -> int:
    """The seat a player reference names (notation.md "Players"); raises NotationError."""
    return resolve(norm(ref), table, ref, lambda: example("contract", table))


def format_record(record: Record, players: Sequence[str], *, lang: str = "en") -> str:
    """The canonical line of a record (scoring/notation_print.py, loaded on first use)."""
    from scoring.notation_print import format_record as printed

    return printed(record, players, lang=lang)


_AMOUNT_RE: Final = re.compile(r"[+-]?[0-9]{1,9}(?:/[0-9]{1,9}|\.[0-9]{1,9})?")


class _Reader(Line):
    """A line read as one kind of record (scoring/notation_line.py has the shared pieces)."""

    __slots__ = ()

    def record(self) -> Record:
        opens = self.words[0].opens
        if opens == "last-round":
            if len(self.words) > 1:
                self.fail("unknown-word", self.words[1].raw, "last-round")
            return LastRound()
        if opens == "adjust":
            return self.adjust()
        if opens == "raspasy":
            return self.raspasy(0)
        if any(word.key in MISERE for word in self.words):
            return self.misere()
        openers = [at for at, word in enumerate(self.words) if word.opens == "raspasy"]
        # one raspasy word among players' tricks, numbers and extras is a raspasy ("Word order")
        if len(openers) == 1 and all(
            at == openers[0]
            or word.extra is not None
            or word.number is not None
            or (word.pair_tricks is not None and ":" not in word.key)
            for at, word in enumerate(self.words)
        ):
            return self.raspasy(openers[0])
        return self.contract()

    def misere(self) -> Misere:
        declarer: int | None = None
        declarer_at = word_at = tricks_at = -1
        tricks = i = 0
        while i < len(self.words):
            word, used = self.words[i], 1
            if word.key in MISERE:
                if word_at >= 0:
                    self.fail("repeated-word", word.raw, "misere")
                word_at = i
            elif (n := word.misere_tricks) is not None or (n := self.bez_at(i)) is not None:
                used = 1 if word.misere_tricks is not None else 2
                if not 0 <= n <= TRICKS:  # `+N` is negative
                    self.fail("bad-misere-tricks", self.span(i, i + used - 1), "misere")
                if tricks_at >= 0:
                    self.fail("repeated-word", self.span(i, i + used - 1), "misere")
                tricks, tricks_at = n, i
            elif not self.extra(i, MISERE_EXTRAS, "misere"):
                seat = self.bare_player(i, "misere")
                if declarer_at >= 0:
                    self.fail("repeated-word", word.raw, "misere")
                declarer, declarer_at = seat, i
            i += used
        if declarer is None:
            self.fail("missing-declarer", self.whole(), "misere")
        if self.size == 4 and declarer == self.dealer:
            self.dealer_in_play(self.words[declarer_at].raw, "misere")
        return Misere(declarer, tricks, self.draft.freeze())

    def raspasy(self, opener: int) -> Raspasy:
        """All passed: the active players' tricks; `opener` is where the raspasy word stands."""
        named: dict[int, tuple[int, int]] = {}  # player → (tricks, word index)
        bare: list[int] = []  # tricks of the active players in seat order
        given: list[int] = []  # the words that give tricks
        for i, word in enumerate(self.words):
            if i == opener or self.extra(i, RASPASY_EXTRAS, "raspasy"):
                continue
            given.append(i)
            if word.number is not None:
                if named:
                    self.fail("unknown-word", word.raw, "raspasy")
                if word.number > TRICKS:
                    self.fail("bad-tricks", word.raw, "raspasy")
                bare.append(word.number)
                continue
            if word.pair_tricks is None or bare or ":" in word.key:
                self.fail("unknown-word", word.raw, "raspasy")
            player = self.player(word.pair, i)
            if word.pair_tricks < 0:
                self.fail("bad-tricks", word.raw, "raspasy")
            if player in named:
                self.fail("same-player-twice", word.raw, "raspasy")
            named[player] = (word.pair_tricks, i)
        active = self.table.active(self.dealer)
        if bare:
            if active is None:
                self.fail("missing-dealer", self.entries(given), "raspasy")
            if len(bare) != len(active):
                params = {"expected": str(len(active))}
                self.fail("bad-tricks", self.entries(given), "raspasy", params)
            pairs = list(zip(active, bare, strict=True))
        else:
            if len(named) != 3:
                self.fail("bad-tricks", self.entries(given), "raspasy", {"expected": "3"})
            for player, (_, at) in named.items():
                if active is not None and player not in active:
                    self.dealer_in_play(self.words[at].raw, "raspasy")
            pairs = sorted((p, t) for p, (t, _) in named.items())
        if sum(t for _, t in pairs) != TRICKS:
            self.fail("tricks-not-ten", self.entries(given), "raspasy")
        return Raspasy(tuple(pairs), self.draft.freeze())

    def entries(self, given: list[int]) -> str:
        """The span of a raspasy line's tricks (the whole line when it gives none)."""
        return self.span(*given) if given else self.whole()

    def adjust(self) -> Adjust:
        line = self.words
        if len(line) < 2:
            self.fail("bad-adjust", self.whole(), "adjust")
        player = self.player(line[1].raw, 1)
        column: Column | None = None
        target: int | None = None
        amount: Fraction | None = None
        note: str | None = None
        kind = "adjust"
        for i, word in enumerate(line[2:], 2):
            key, head = word.key, word.head
            if key in COLUMNS or head == "whists":
                if column is not None:
                    self.fail("repeated-word", word.raw, kind)
                if head == "whists":
                    kind = "adjust-whists"
                    column = Column.WHISTS
                    target = self.player(word.after, i)
                    if target == player:
                        self.fail("bad-adjust", word.raw, kind)
                else:
                    column = COLUMNS[key]
            elif _AMOUNT_RE.fullmatch(key):
                if amount is not None:
                    self.fail("repeated-word", word.raw, kind)
                if not int(key.partition("/")[2] or 1) or not (amount := Fraction(key)):
                    self.fail("bad-adjust", word.raw, kind)
            elif head == "note":
                if note is not None:
                    self.fail("repeated-word", word.raw, kind)
                note = self.note(i, kind)
            else:
                self.fail("unknown-word", word.raw, kind)
        if column is None or amount is None:
            self.fail("bad-adjust", self.whole(), kind)
        return Adjust(player, column, amount, target, note or "")


_RULE_CHANGE_RE: Final = re.compile(
    r"\s*(?:/deal(?:@\w+)?\s+)?(?:option|правило)\s+(?P<name>[^\s=]+)=(?P<value>[^\s=]+)\s*",
    re.IGNORECASE,
)
RULE_CHANGE_EXAMPLE: Final = "option pool_target=30"


def parse_rule_change(text: str) -> RuleChange | None:
    """`option NAME=VALUE` canonical, or None for another shape; raises OptionError."""
    match = _RULE_CHANGE_RE.fullmatch(text)
    if match is None:
        return None
    name = match["name"]
    try:  # `convention` is no option (OPTION_NAMES): chosen at `/newgame`, never by a rule
        value = format_option(parse_option(name, match["value"]))
    except OptionError as error:
        error.example = RULE_CHANGE_EXAMPLE
        raise
    return RuleChange(name, value)


def parse_record(text: str, table: Table) -> Record:
    """One record from a deal line (with or without a leading `/deal`); raises NotationError."""
    line, spans = words(text)
    skip = 1 if line and line[0].opens == "command" else 0
    line = line[skip:]
    if not line:
        raise InvalidDeal("empty-deal", text.strip(), {}, example("contract", table))
    if line[0].opens == "option":
        change = parse_rule_change(text)
        if change is None:
            raise InvalidDeal("bad-option-line", text.strip(), {}, RULE_CHANGE_EXAMPLE)
        return change
    reader = _Reader(text, line, spans, table)
    reader.skip = skip
    return reader.record()
