"""A contract line of the notation read (spec/notation.md "Contract")."""

from __future__ import annotations

from scoring.deal import TRICKS, Contract, Defender, Role, Suit
from scoring.notation_line import CONTRACT_EXTRAS, Def, Line
from scoring.notation_words import BEZ, SEAT_LETTERS, SUITS, norm, split_tricks


class ContractReader(Line):
    """A contract line read: its level, result, declarer and defenders."""

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
            draft = self.draft
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
        return self.player(word.raw, at)

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
        player = self.player(word.ref, at)
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
        if roles == (Role.HALF, Role.HALF):
            self.fail("two-half-whists", line[second.at].raw, "half")
        half = first if first.role is Role.HALF else second if second.role is Role.HALF else None
        if half is not None and Role.WHIST in roles:
            self.fail("half-beside-whist", line[half.at].raw, "half")
        if half is not None and level >= 8:
            self.fail("half-whist-on-high", line[half.at].raw, "half", {"level": str(level)})
        dealer_whists = False
        if four_with_dealer:
            if declarer == dealer and declarer_at >= 0:
                self.dealer_in_play(line[declarer_at].raw)
            for d, other in ((first, second), (second, first)):
                if d.player == dealer:
                    if d.role is not Role.WHIST or other.role is not Role.PASS:
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
        if Role.WHIST in roles and half is None:
            result, tricks = self.played(level, level_at, result, result_at, first, second)
        else:
            kind = "half" if half else "contract"
            with_tricks = [d.at for d in defenders if d.tricks is not None]
            if with_tricks:
                self.fail("not-played-with-tricks", self.span(*with_tricks), kind)
            if result:
                self.fail("not-played-with-tricks", self.span(*result_at), kind)
            result = 0
        one = Defender(first.player, first.role, tricks[0])
        two = Defender(second.player, second.role, tricks[1])
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
        two_whists = first.role is Role.WHIST and second.role is Role.WHIST
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
