"""The replay: the sheet as a fold of a game's records, and the rules needing the running sheet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from typing import Final

from scoring.deal import Adjust, Column, LastRound, Raspasy, Record, RuleChange
from scoring.errors import IllegalDeal, ScoringError
from scoring.rules import EndRule, MadeGame, Overflow, Rules, with_option
from scoring.score import check_deal, mountain, pool, raspasy_exit_warning, score_deal, whists
from scoring.seating import clockwise
from scoring.sheet import Band, Entry, Game, Reason, ScoredRecord, Sheet, Totals

# Reasons under which a player writes into his own pool by his own play: only these can make him the
# "first to close" (a player closed by someone's help never is).
OWN_POOL_REASONS = frozenset({Reason.GAME, Reason.RASPASY_ZERO, Reason.RASPASY_DEALER})
# §2.2 "Mountain help always pays 10 whists a point" (seed B 10: 20 whists for two points).
MOUNTAIN_HELP_WHISTS = 10

Amount = int | Fraction
BandKey = tuple[int, Column, int | None]  # a `Band` while folding


# A total as a Fraction shared by every equal total: a long game's totals repeat (a few hundred).
as_fraction: Final = lru_cache(maxsize=4096)(Fraction)


@dataclass
class Running:
    """The running sheet inside one replay: totals, running totals and the sheet's rules."""

    game: Game
    rules: Rules
    # Totals stay `int` while whole: integer arithmetic is many times faster than Fraction's, and
    # most sheets never see a half. The Sheet gets Fractions.
    pool: list[Amount]
    mountain: list[Amount]
    whists: list[list[Amount]]
    # Keyed by (player, column, target) while folding; `Band`s are made once, for the Sheet. The
    # values are the Sheet's own (index, Fraction) pairs, shared with every Sheet made from here:
    # a long game's running totals are its largest part, and they are kept once.
    history: dict[BandKey, list[tuple[int, Fraction]]]
    next_dealer: int = 0
    streak: int = 0
    deals: int = 0
    bonuses_paid: frozenset[Reason] = frozenset()  # each first-to-close bonus is paid once
    last_round_announced: bool = False
    last_round_played: int | None = None  # deals of the last round played so far, once it began
    finished: bool = False
    helped: bool = False  # a help entry was written
    applied: list[Entry] = field(default_factory=list)

    def write(self, entry: Entry) -> None:
        """Put one entry on the sheet as it is, with no rule applied."""
        exact = entry.amount
        amount = exact.numerator if exact.denominator == 1 else exact  # `int` while whole
        if not amount:
            return
        row, at = self.cell(entry.player, entry.column, entry.target)
        row[at] += amount
        self.helped |= entry.reason is Reason.HELP
        self.applied.append(entry)

    def is_pool_open(self, seat: int) -> bool:
        return self.pool[seat] < self.rules.pool_target

    def take(self, entry: Entry) -> None:
        rules = self.rules
        if entry.column is Column.POOL and entry.amount > 0:
            if entry.reason is Reason.GAME and rules.made_game is MadeGame.MOUNTAIN_FIRST:
                # Rostov: a made game writes off the own mountain first, point for point (§2.2).
                off = self.game_off_mountain(entry.player, entry.amount)
                entry = Entry(entry.player, entry.column, entry.amount - off, entry.reason)
            self.add_pool(entry)
            if entry.reason is Reason.GAME and rules.made_lowers_mountain:
                # Odessa §6: a made game lowers the own mountain to 0, then helps the smallest one.
                left = entry.amount - self.game_off_mountain(entry.player, entry.amount)
                self.help(entry.player, left, Column.MOUNTAIN)
        elif entry.column is Column.MOUNTAIN and entry.amount < 0:
            self.write_off(entry.player, -entry.amount, entry.reason)
        else:
            self.write(entry)

    def write_off(self, player: int, points: Amount, reason: Reason) -> None:
        """Points off the own mountain (Odessa: down to 0); closing it so counts (§2.2)."""
        was_open = self.mountain[player] > 0
        # Odessa's mountain never goes below 0 (§6; §2.2: in `odessa`, whatever the options say).
        off = min(points, max(0, self.mountain[player])) if self.rules.odessa_rules else points
        self.write(mountain(player, -off, reason))
        if was_open and self.mountain[player] <= 0:
            self.bonus(player, self.rules.close_mountain_bonus, Reason.CLOSE_MOUNTAIN)

    def game_off_mountain(self, player: int, points: Amount) -> Amount:
        """A made game's points off the own mountain, down to 0; how many went off."""
        off = min(points, max(0, self.mountain[player]))
        self.write_off(player, off, Reason.GAME_OFF_MOUNTAIN)
        return off

    def add_pool(self, entry: Entry) -> None:
        """A pool entry up to the target; the excess by Odessa's fall-backs, then `overflow`."""
        rules, player = self.rules, entry.player
        room = max(0, rules.pool_target - self.pool[player])
        if entry.reason is Reason.RASPASY_ZERO and rules.odessa_rules and not room:
            self.write_off(player, entry.amount, Reason.RASPASY_ZERO)
            return
        if rules.overflow is Overflow.KEEP or entry.amount <= room:
            self.write_pool(entry)
            return
        self.write_pool(pool(player, room, entry.reason))
        excess: Amount = entry.amount - room
        if rules.overflow is Overflow.HELP:  # what nobody takes goes as with `own_mountain`
            excess = self.help(player, excess, Column.POOL)
        self.write_off(player, excess * rules.pool_to_mountain, Reason.OVERFLOW)  # §1.3, §2.2

    def help(self, helper: int, points: Amount, column: Column) -> Amount:
        """«Помощь»: points given in turn to whoever is nearest to closing his pool (the largest
        open one) or his mountain (Odessa §6: the smallest); the points nobody could take."""
        pools = column is Column.POOL
        each = 10 * self.rules.pool_to_mountain if pools else MOUNTAIN_HELP_WHISTS
        target, others = self.rules.pool_target, clockwise(helper, self.game.size)[1:]
        while points > 0:
            rooms = [(target - self.pool[s] if pools else self.mountain[s], s) for s in others]
            open_rooms = [(room, s) for room, s in rooms if room > 0]
            if not open_rooms:
                return points
            room, helped = min(open_rooms, key=lambda r: r[0])  # min keeps the first of a tie
            given = min(points, room)
            # a help entry is written on the player helped and says who helped (its `source`)
            amount = Fraction(given if pools else -given)
            self.write(Entry(helped, column, amount, Reason.HELP, source=helper))
            self.write(whists(helper, helped, given * each, Reason.HELP_WHISTS))
            points -= given
        return 0

    def write_pool(self, entry: Entry) -> None:
        """A pool entry, then §2.2 "first to close": only a positive entry of the own play."""
        was_open = self.is_pool_open(entry.player)
        self.write(entry)
        if was_open and not self.is_pool_open(entry.player) and entry.reason in OWN_POOL_REASONS:
            self.bonus(entry.player, self.rules.close_pool_bonus, Reason.CLOSE_POOL)

    def bonus(self, player: int, each: int, reason: Reason) -> None:
        if each and reason not in self.bonuses_paid:
            self.bonuses_paid |= {reason}
            for other in clockwise(player, self.game.size)[1:]:
                self.write(whists(player, other, each, reason))

    def cell(self, player: int, column: Column, target: int | None) -> tuple[list[Amount], int]:
        if column is Column.WHISTS:
            assert target is not None
            return self.whists[player], target
        return self.pool if column is Column.POOL else self.mountain, player

    def note_history(self, index: int) -> None:
        """Append the new total of every band this record touched, when it changed."""
        start = self.game.rules.start_mountain
        for key in dict.fromkeys((e.player, e.column, e.target) for e in self.applied):
            values = self.history.get(key)
            last = values[-1][1] if values else (start if key[1] is Column.MOUNTAIN else 0)
            row, at = self.cell(*key)
            if row[at] != last:
                self.history.setdefault(key, []).append((index, as_fraction(row[at])))

    def end_check(self, dealer: int) -> None:
        rules, size = self.rules, self.game.size
        if rules.end_rule is EndRule.ALL_CLOSED:
            self.finished = all(not self.is_pool_open(s) for s in range(size))
        elif rules.end_rule is EndRule.POOL_SUM:
            self.finished = sum(self.pool) >= rules.pool_target * size
        elif self.last_round_played is not None or (
            self.last_round_announced and dealer == self.game.first_dealer  # the round begins
        ):
            self.last_round_played = (self.last_round_played or 0) + 1
            closed = any(not self.is_pool_open(s) for s in range(size))
            self.finished = self.last_round_played >= size and closed


def totals(state: Running) -> Totals:
    return Totals(
        pool=tuple(map(Fraction, state.pool)),
        mountain=tuple(map(Fraction, state.mountain)),
        whists=tuple(tuple(map(Fraction, row)) for row in state.whists),
    )


def start(game: Game) -> Running:
    size, rules = game.size, game.rules
    begun = as_fraction(rules.start_mountain)
    return Running(
        game=game,
        rules=rules,
        pool=[0] * size,
        mountain=[rules.start_mountain] * size,
        whists=[[0] * size for _ in range(size)],
        history={(seat, Column.MOUNTAIN, None): [(-1, begun)] for seat in range(size) if begun},
        next_dealer=game.first_dealer,
    )


def copy_state(state: Running) -> Running:
    """A copy to write on: the running totals and each band's list copied, the rest immutable."""
    copied = replace(state, pool=list(state.pool), mountain=list(state.mountain), applied=[])
    copied.whists = [list(row) for row in state.whists]
    copied.history = {key: list(values) for key, values in state.history.items()}
    return copied


def replay(game: Game, records: Sequence[Record]) -> Sheet:
    """The sheet after these records; raises IllegalDeal with `params["record"]` at fault."""
    return Replay(game).advance(records)


@dataclass(frozen=True, slots=True)
class Standing:
    rules: Rules
    totals: Totals
    deals: int
    finished: bool


def standing(game: Game, records: Sequence[Record]) -> Standing:
    """What `replay` says of the totals, without keeping entries and running totals."""
    state = start(game)
    for index, record in enumerate(records):
        _take_record(state, record, index)
    return Standing(state.rules, totals(state), state.deals, state.finished)


class Replay:
    """A resumable replay: `advance` gives what `replay` of all records gives; `fork` copies."""

    __slots__ = ("_bands", "_scored", "_state", "game")

    def __init__(self, game: Game) -> None:
        self.game = game
        self._state = start(game)
        self._scored: list[ScoredRecord] = []
        # A band's history as the Sheet shows it (Fractions), kept with how many values it holds.
        self._bands: dict[BandKey, tuple[tuple[int, Fraction], ...]] = {}

    @property
    def count(self) -> int:
        return len(self._scored)

    def fork(self) -> Replay:
        other = Replay(self.game)
        other._state, other._scored = copy_state(self._state), list(self._scored)
        other._bands = dict(self._bands)
        return other

    def advance(self, records: Sequence[Record]) -> Sheet:
        """Take these records after the ones taken so far; the sheet after all of them."""
        if records:
            trial = copy_state(self._state)
            scored: list[ScoredRecord] = []
            for index, record in enumerate(records, len(self._scored)):
                scored.append(_take_record(trial, record, index))
                trial.note_history(index)
            self._state = trial
            self._scored += scored
        return self.sheet()

    def sheet(self) -> Sheet:
        state, game, bands = self._state, self.game, self._bands
        for key, values in state.history.items():
            known = bands.get(key, ())
            if len(known) != len(values):
                bands[key] = known + tuple(values[len(known) :])
        return Sheet(
            game=game,
            records=tuple(self._scored),
            totals=totals(state),
            history={Band(*key): bands[key] for key in state.history},
            next_dealer=state.next_dealer,
            closed_pools=frozenset(s for s in range(game.size) if not state.is_pool_open(s)),
            finished=state.finished,
            last_round_announced=state.last_round_announced,
            rules_now=state.rules if state.rules != game.rules else None,
            helped=state.helped,
        )


def _take_record(state: Running, record: Record, index: int) -> ScoredRecord:
    try:
        state.applied = []
        if isinstance(record, Adjust):
            target = record.target
            state.write(Entry(record.player, record.column, record.amount, Reason.ADJUST, target))
            return ScoredRecord(0, record, None, tuple(state.applied))
        if isinstance(record, LastRound):
            state.last_round_announced = True
            return ScoredRecord(0, record, None, ())
        if state.finished:  # notation.md "Errors": a deal or an `option` line after the end
            raise IllegalDeal("game-finished", "", {}, "")
        if isinstance(record, RuleChange):
            state.rules = with_option(state.rules, record.option, record.value)
            return ScoredRecord(0, record, None, ())
        dealer = record.extras.dealer if record.extras.dealer is not None else state.next_dealer
        check_deal(state.game, state.rules, record, dealer)
        warnings = raspasy_exit_warning(state.rules, record, state.streak)
        state.streak = state.streak + 1 if isinstance(record, Raspasy) else 0  # the raspasy step
        for entry in score_deal(state.rules, state.game.size, dealer, record, state.streak):
            state.take(entry)
        state.deals += 1
        state.next_dealer = (dealer + 1) % state.game.size
        state.end_check(dealer)
        return ScoredRecord(
            state.deals, record, dealer, tuple(state.applied), state.streak, warnings
        )
    except ScoringError as err:  # IllegalDeal, or OptionError of a rule change
        err.params["record"] = str(index)
        raise
