"""The replay: the sheet as a fold of a game's records (conventions.md §1.3, §6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from scoring.deal import Adjust, Column, LastRound, Raspasy, Record, RuleChange
from scoring.entries import Entry, Reason
from scoring.errors import IllegalDeal, ScoringError
from scoring.rules import Rules, with_option
from scoring.running import Running, copy_state, start, totals
from scoring.score import check_deal, raspasy_exit_warning, score_deal
from scoring.sheet import Band, Game, ScoredRecord, Sheet, Totals


def replay(game: Game, records: Sequence[Record]) -> Sheet:
    """The sheet after these records; raises IllegalDeal with `params["record"]` at fault."""
    return Replay(game).advance(records)


@dataclass(frozen=True, slots=True)
class Standing:
    """The rules in force, totals, deals and end after some records (no running totals)."""

    rules: Rules
    totals: Totals
    deals: int
    finished: bool


def standing(game: Game, records: Sequence[Record]) -> Standing:
    """What `replay` says of the totals, without keeping entries and running totals."""
    state = start(game)
    for index, record in enumerate(records):
        state.applied = []
        try:
            _take_record(state, record)
        except ScoringError as err:
            err.params["record"] = str(index)
            raise
    return Standing(state.rules, totals(state), state.deals, state.finished)


class Replay:
    """A resumable replay: `advance` gives what `replay` of all records gives; `fork` copies."""

    __slots__ = ("_bands", "_scored", "_state", "game")

    def __init__(self, game: Game) -> None:
        self.game = game
        self._state = start(game)
        self._scored: list[ScoredRecord] = []
        # A band's history as the Sheet shows it (Fractions), kept with how many values it holds.
        self._bands: dict[tuple[int, Column, int | None], tuple[tuple[int, Fraction], ...]] = {}

    @property
    def count(self) -> int:
        return len(self._scored)

    def fork(self) -> Replay:
        other = Replay.__new__(Replay)
        other.game = self.game
        other._state = copy_state(self._state)
        other._scored = list(self._scored)
        other._bands = dict(self._bands)
        return other

    def advance(self, records: Sequence[Record]) -> Sheet:
        """Take these records after the ones taken so far; the sheet after all of them."""
        if records:
            trial = copy_state(self._state)
            scored: list[ScoredRecord] = []
            first = len(self._scored)
            for offset, record in enumerate(records):
                trial.applied = []
                try:
                    scored.append(_take_record(trial, record))
                except ScoringError as err:  # IllegalDeal, or OptionError of a rule change
                    err.params["record"] = str(first + offset)
                    raise
                trial.note_history(first + offset)
            self._state = trial
            self._scored += scored
        return self.sheet()

    def sheet(self) -> Sheet:
        state, game = self._state, self.game
        size = game.size
        bands = self._bands
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
            closed_pools=frozenset(s for s in range(size) if not state.is_pool_open(s)),
            finished=state.finished,
            last_round_announced=state.last_round_announced,
            rules_now=state.rules if state.rules != game.rules else None,
            helped=state.helped,
        )


def _take_record(state: Running, record: Record) -> ScoredRecord:
    if isinstance(record, Adjust):
        target = record.target
        state.write(Entry(record.player, record.column, record.amount, Reason.ADJUST, target))
        return ScoredRecord(0, record, None, tuple(state.applied))
    if isinstance(record, RuleChange):
        if state.finished:  # notation.md "Errors": refused like a deal after the end
            raise IllegalDeal("game-finished", "", {}, "")
        state.rules = with_option(state.rules, record.option, record.value)
        return ScoredRecord(0, record, None, ())
    if isinstance(record, LastRound):
        state.last_round_announced = True
        return ScoredRecord(0, record, None, ())
    dealer = record.extras.dealer if record.extras.dealer is not None else state.next_dealer
    check_deal(state.game, state.rules, state.finished, record, dealer)
    warnings = raspasy_exit_warning(state.rules, record, state.streak)
    state.streak = state.streak + 1 if isinstance(record, Raspasy) else 0
    step = state.streak if isinstance(record, Raspasy) else 0
    for entry in score_deal(state.rules, state.size, dealer, record, step):
        state.take(entry)
    state.deals += 1
    state.next_dealer = (dealer + 1) % state.size
    state.end_check(dealer)
    return ScoredRecord(state.deals, record, dealer, tuple(state.applied), step, warnings)
