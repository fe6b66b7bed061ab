"""The deal notation: read what players type, print the canonical line (spec/notation.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from scoring.deal import (
    TRICKS,
    Adjust,
    Column,
    Contract,
    LastRound,
    Misere,
    Raspasy,
    Record,
    RuleChange,
    Suit,
)
from scoring.errors import InvalidDeal, OptionError
from scoring.notation_line import (
    CONTRACT_EXTRAS,
    DEFENDER,
    HALF,
    MISERE_EXTRAS,
    PASS,
    RASPASY_EXTRAS,
    WHIST,
    Def,
    Line,
    example,
    resolve_player,
)
from scoring.notation_words import (
    BEZ,
    COLUMNS,
    LANGS,
    SEAT_LETTERS,
    SEATS,
    SUITS,
    Table,
    norm,
    split_tricks,
    words,
)
from scoring.rules import OPTION_NAMES, format_option, parse_option

__all__ = [
    "LANGS",
    "RULE_CHANGE_EXAMPLE",
    "SEATS",
    "Table",
    "format_record",
    "parse_record",
    "parse_rule_change",
    "resolve_player",
]


def format_record(record: Record, players: Sequence[str], *, lang: str = "en") -> str:
    """The canonical line of a record (scoring/notation_print.py, loaded on first use)."""
    from scoring.notation_print import format_record as printed

    return printed(record, players, lang=lang)


_AMOUNT_RE: Final = re.compile(r"[+-]?[0-9]{1,9}(?:/[0-9]{1,9}|\.[0-9]{1,9})?")


# --- Parsing --------------------------------------------------------------------------------


class _ContractReader(Line):
    """A contract deal's words read (the larger half of `_Reader`)."""

    __slots__ = ()

    def contract(self) -> Contract:
        line = self.words
        count = len(line)
        level, level_at, suit = 0, -1, None
        contract_end = -1  # the index right after the contract's word(s)
        result = 0
        result_at: tuple[int, ...] = ()
        concession = -1  # where `без трёх` right after the contract starts
        declarer, declarer_at = None, -1
        defenders: list[Def] = []
        i = 0
        while i < count:
            word = line[i]
            if word.level is not None:
                if level_at >= 0:
                    self.fail("repeated-word", word.raw)
                level = word.level
                if not 6 <= level <= 10:
                    self.fail("bad-level", word.raw)
                level_at, suit = i, word.suit
                i += 1
                if word.stuck is not None:
                    result, result_at = word.stuck, (level_at,)
                elif suit is None and i < count and line[i].suit_word is not None:
                    suit = line[i].suit_word
                    i += 1
                contract_end = i
                continue
            if word.result is not None:
                if result_at:
                    self.fail("repeated-word", word.raw)
                result, result_at = word.result, (i,)
                i += 1
                continue
            if word.key == BEZ and (n := self.bez_at(i)) is not None:
                if result_at:
                    self.fail("repeated-word", self.span(i, i + 1))
                if i == contract_end and n == 3 and line[i + 1].bez_word == 3:
                    concession = i
                result, result_at = -n, (i, i + 1)
                i += 2
                continue
            if word.role is not None:
                defender = self.defender(i)
                for other in defenders:
                    if other.player == defender.player:
                        self.fail("same-player-twice", word.raw)
                defenders.append(defender)
            elif not self.extra(i, CONTRACT_EXTRAS, "contract"):
                seat = self.bare_player(i, "contract")
                if declarer_at >= 0:
                    self.fail("repeated-word", word.raw)
                declarer, declarer_at = seat, i
            i += 1
        if concession >= 0 and not defenders:
            draft = self.writable()
            if draft.three_down:
                self.fail("repeated-word", line[draft.seen["three_down"]].raw, "three-down")
            draft.three_down = True
            draft.seen["three_down"] = concession
            result, result_at = 0, ()
        if level_at < 0:
            self.fail("missing-level", self.whole())
        return self.finish_contract(
            declarer, declarer_at, level, level_at, suit, result, result_at, defenders
        )

    def bare_player(self, at: int, kind: str) -> int:
        """A word of its own that is no vocabulary: the declarer, or a mistake."""
        word = self.words[at]
        seat = SEAT_LETTERS.get(word.key)
        if seat is not None and seat < self.size:
            return seat
        if word.lead_digits:
            if kind == "contract" and word.lead_bad_level:
                self.fail("bad-level", word.raw, kind)
            self.fail("unknown-word", word.raw, kind)
        if not word.plain:
            if word.bare_role and kind == "contract" and at + 1 < len(self.words):
                self.missing_colon(at)
            self.fail("unknown-word", word.raw, kind)
        return self.player(word.raw, word.key, at)

    def missing_colon(self, at: int) -> None:
        """`вист Миша`: a role word and a player without the colon between them (a hint)."""
        role, after = self.words[at], self.words[at + 1]
        ref, _ = split_tricks(after.raw)
        named = norm(ref) in self.table.refs
        if not named and not (after.plain and not after.lead_digits and after.key not in SUITS):
            return
        self.fail(
            "missing-colon", self.span(at, at + 1), params={"fix": f"{role.raw}:{after.raw}"}
        )

    def defender(self, at: int) -> Def:
        word = self.words[at]
        assert word.role is not None
        player = self.player(word.ref, word.ref_key, at)
        if word.tricks is not None and word.tricks < 0:
            self.fail("bad-tricks", word.raw, "two-whists")
        return Def(player, word.role, word.tricks, at)

    def finish_contract(
        self,
        declarer: int | None,
        declarer_at: int,
        level: int,
        level_at: int,
        suit: Suit | None,
        result: int,
        result_at: tuple[int, ...],
        defenders: list[Def],
    ) -> Contract:
        size, dealer, draft, line = self.size, self.dealer, self.draft, self.words
        four_with_dealer = size == 4 and dealer is not None
        for d in defenders:
            if d.player == declarer:
                self.fail("declarer-defends", line[d.at].raw)
        if draft.three_down:
            if defenders:
                self.fail(
                    "too-many-defenders",
                    line[defenders[0].at].raw,
                    "three-down",
                    {"expected": "0"},
                )
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
        dealer_whists = False
        if four_with_dealer:
            if declarer == dealer and declarer_at >= 0:
                self.dealer_in_play(line[declarer_at].raw)
            for d, other in ((first, second), (second, first)):
                if d.player == dealer:
                    if d.role is not WHIST or other.role is not PASS:
                        self.dealer_in_play(line[d.at].raw)
                    dealer_whists = True
        if draft.prikup and dealer_whists:
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
            result = 0
        one = DEFENDER[first.player, first.role, tricks[0]]
        two = DEFENDER[second.player, second.role, tricks[1]]
        if (first.player - declarer) % size > (second.player - declarer) % size:
            one, two = two, one
        return Contract(declarer, level, suit, result, (one, two), False, draft.freeze())

    def played(
        self,
        level: int,
        level_at: int,
        result: int,
        result_at: tuple[int, ...],
        first: Def,
        second: Def,
    ) -> tuple[int, tuple[int | None, int | None]]:
        """A played deal's result and the tricks to keep (each whister's, when both whist)."""
        two_whists = first.role is WHIST and second.role is WHIST
        kind = "two-whists" if two_whists else "contract"
        given = [d for d in (first, second) if d.tricks is not None]
        given_sum = sum(d.tricks or 0 for d in given)
        if not result_at:
            if len(given) < 2:
                self.fail("missing-result", self.words[level_at].raw, kind)
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
        if second.tricks is not None:
            return result, (side - second.tricks, second.tricks)
        return result, (0, 0)


class _Reader(_ContractReader):
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
        raspasy_at = -1
        for at, word in enumerate(self.words):
            if word.misere:
                return self.misere()
            if word.opens == "raspasy":
                raspasy_at = at if raspasy_at < 0 else len(self.words)
        if 0 <= raspasy_at < len(self.words) and self.only_tricks_beside(raspasy_at):
            return self.raspasy(raspasy_at)
        return self.contract()

    def misere(self) -> Misere:
        line = self.words
        declarer: int | None = None
        declarer_at = -1
        tricks: int | None = None
        seen_word = False
        i = 0
        while i < len(line):
            word = line[i]
            if word.misere:
                if seen_word:
                    self.fail("repeated-word", word.raw, "misere")
                seen_word = True
                i += 1
                continue
            if found := self.misere_tricks_at(i):
                value, used = found
                if tricks is not None:
                    self.fail("repeated-word", self.span(i, i + used - 1), "misere")
                tricks = value
                i += used
                continue
            if not self.extra(i, MISERE_EXTRAS, "misere"):
                seat = self.bare_player(i, "misere")
                if declarer_at >= 0:
                    self.fail("repeated-word", word.raw, "misere")
                declarer, declarer_at = seat, i
            i += 1
        if declarer is None:
            self.fail("missing-declarer", self.whole(), "misere")
        if self.size == 4 and self.dealer is not None and declarer == self.dealer:
            self.dealer_in_play(line[declarer_at].raw, "misere")
        return Misere(declarer, tricks or 0, self.draft.freeze())

    def only_tricks_beside(self, opener: int) -> bool:
        """Whether every other word is a player's tricks, a number or an extra ("Word order")."""
        for at, word in enumerate(self.words):
            if at == opener or word.extra is not None or word.number is not None:
                continue
            if word.pair_tricks is None or ":" in word.key:
                return False
        return True

    def raspasy(self, opener: int) -> Raspasy:
        """All passed: the active players' tricks; `opener` is where the raspasy word stands."""
        line = self.words
        named: list[tuple[int, int, int]] = []  # (player, tricks, word index)
        bare: list[tuple[int, int]] = []  # (tricks, word index)
        for i in range(len(line)):
            if i == opener:
                continue
            word = line[i]
            if self.extra(i, RASPASY_EXTRAS, "raspasy"):
                continue
            if word.number is not None:
                if named:
                    self.fail("unknown-word", word.raw, "raspasy")
                if word.number > TRICKS:
                    self.fail("bad-tricks", word.raw, "raspasy")
                bare.append((word.number, i))
                continue
            if word.pair_tricks is None or bare or ":" in word.key:
                self.fail("unknown-word", word.raw, "raspasy")
            player = self.player(word.pair, word.pair_key, i)
            if word.pair_tricks < 0:
                self.fail("bad-tricks", word.raw, "raspasy")
            tricks = word.pair_tricks
            if any(p == player for p, _, _ in named):
                self.fail("same-player-twice", word.raw, "raspasy")
            named.append((player, tricks, i))
        active = self.table.active(self.dealer)
        if bare:
            if active is None:
                self.fail("missing-dealer", self.entries(named, bare), "raspasy")
            if len(bare) != len(active):
                params = {"expected": str(len(active))}
                self.fail("bad-tricks", self.entries(named, bare), "raspasy", params)
            pairs = list(zip(active, (t for t, _ in bare), strict=True))
        else:
            if len(named) != 3:
                params = {"expected": "3"}
                self.fail("bad-tricks", self.entries(named, bare), "raspasy", params)
            for player, _, at in named:
                if active is not None and player not in active:
                    self.dealer_in_play(line[at].raw, "raspasy")
            pairs = sorted((p, t) for p, t, _ in named)
        if sum(t for _, t in pairs) != TRICKS:
            self.fail("tricks-not-ten", self.entries(named, bare), "raspasy")
        return Raspasy(tuple(pairs), self.draft.freeze())

    def entries(self, named: list[tuple[int, int, int]], bare: list[tuple[int, int]]) -> str:
        """The span of a raspasy line's tricks (or its first word when it has none)."""
        at = [at for *_, at in named] or [at for _, at in bare]
        return self.span(*at) if at else self.whole()

    def adjust(self) -> Adjust:
        line = self.words
        if len(line) < 2:
            self.fail("bad-adjust", self.whole(), "adjust")
        who = line[1]
        player = self.player(who.raw, who.key, 1)
        column: Column | None = None
        target: int | None = None
        amount: Fraction | None = None
        note: str | None = None
        kind = "adjust"
        for i in range(2, len(line)):
            word = line[i]
            key, head = word.key, word.head
            if key in COLUMNS or head == "whists":
                if column is not None:
                    self.fail("repeated-word", word.raw, kind)
                if head == "whists":
                    kind = "adjust-whists"
                    column = Column.WHISTS
                    target = self.player(word.after, norm(word.after), i)
                    if target == player:
                        self.fail("bad-adjust", word.raw, kind)
                else:
                    column = COLUMNS[key]
            elif _AMOUNT_RE.fullmatch(key):
                if amount is not None:
                    self.fail("repeated-word", word.raw, kind)
                numerator, _, denominator = key.partition("/")
                if denominator and int(denominator) == 0:
                    self.fail("bad-adjust", word.raw, kind)
                amount = Fraction(numerator) / Fraction(denominator or 1)
                if not amount:
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


# --- Rule changes ---------------------------------------------------------------------------

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
    line, spans = words(text)
    skip = 1 if line and line[0].opens == "command" else 0
    if skip:
        line = line[1:]
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
