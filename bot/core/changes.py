"""What a vote proposes and what a passed vote changes, as events of its own (corrections.md)."""

from __future__ import annotations

from typing import Any

from bot.core import events as ev
from bot.core.base import index_of, parse_stored, records_of, rules_now, settlement, table
from bot.core.command import Command
from bot.core.results import Applied, Proposal
from bot.core.state import GameState, Vote
from scoring.corrections import record_penalty
from scoring.deal import Adjust, Record, RuleChange
from scoring.errors import ScoringError
from scoring.notation import format_record
from scoring.replay import replay
from scoring.rules import format_option
from scoring.voting import Outcome, correction_outcome


def proposal(state: GameState, vote: Vote) -> Proposal | None:
    """The record before and after and the balances both ways."""
    event = vote.event
    if not isinstance(event, ev.CorrectionProposed | ev.LateDealProposed) or state.rules is None:
        return None
    tab = table(state)
    new = parse_stored(event.line, tab)
    try:
        if isinstance(event, ev.CorrectionProposed):
            index = index_of(state, event.target)
            if index is None:
                return None
            records = records_of(state)
            old = parse_stored(event.old, tab)
            wrong = replay(state.game(), [*records[:index], old, *records[index + 1 :]])
            right = replay(state.game(), [*records[:index], new, *records[index + 1 :]])
            writer = state.player_name(state.records[index].author)
            old_scored: Any = wrong.records[index]
            warning, penalty = outlook(state, event, index, records, new)
        else:
            items = [i for i in state.records if i.vote != vote.seq]
            index = next((i for i, it in enumerate(items) if it.seq == event.before), -1)
            if index < 0:
                return None
            records = records_of(state, items)
            wrong = replay(state.game(), records)
            right = replay(state.game(), [*records[:index], new, *records[index:]])
            writer, old_scored, warning, penalty = None, None, False, ()
    except ScoringError:
        return None
    return Proposal(
        right.records[index].number,
        old_scored,
        right.records[index],
        tuple(settlement(state, wrong).balances),
        tuple(settlement(state, right).balances),
        writer,
        warning,
        penalty,
    )


def outlook(
    state: GameState, event: ev.CorrectionProposed, index: int, before: list[Record], new: Record
) -> tuple[bool, tuple[Adjust, ...]]:
    """What a correction costs its writer if it passes (Кодекс 4.2.7): warning or penalty."""
    item = state.records[index]
    writer_seat = item.seat
    if writer_seat is None and item.author is not None:
        writer_seat = state.seat_of(item.author, None)
    outcome = (
        Outcome.FREE  # proposed as free: it keeps the terms its voters were shown
        if event.pencil
        else correction_outcome(
            rules_now(state).record_penalties,
            earlier_corrections=corrections_count(state, item.author),
        )
    )
    penalties: tuple[Adjust, ...] = ()
    if outcome is Outcome.PENALTY and writer_seat is not None:
        penalties = record_penalty(state.game(), before, index, new, writer_seat)
    return outcome is Outcome.WARNING, penalties


def planned(state: GameState, vote: Vote) -> list[Record] | None:
    """The records in force once this passed vote is applied; None when it no longer can be."""
    event = vote.event
    assert isinstance(event, ev.CorrectionProposed | ev.LateDealProposed)
    records = records_of(state)
    new = parse_stored(event.line, table(state))
    if isinstance(event, ev.CorrectionProposed):
        index = index_of(state, event.target)
        if index is None or state.records[index].line != event.old:
            return None
        records[index] = new
    else:
        index = index_of(state, event.before)
        if index is None:
            return None
        records.insert(index, new)
    try:
        replay(state.game(), records)
    except ScoringError:
        return None
    return records


def rule_fits(state: GameState, vote: Vote) -> bool:
    """A passed rule change still takes: the option is unchanged and the engine accepts it."""
    event = vote.event
    assert isinstance(event, ev.RuleChangeProposed)
    change = parse_stored(event.line, table(state))
    assert isinstance(change, RuleChange)
    if format_option(getattr(rules_now(state), change.option)) != event.old:
        return False
    try:
        replay(state.game(), [*records_of(state), change])
    except ScoringError:
        return False
    return True


def fits(state: GameState, vote: Vote) -> bool:
    """Whether a passed vote's change still takes on the log as it is now."""
    if isinstance(vote.event, ev.CorrectionProposed | ev.LateDealProposed):
        return planned(state, vote) is not None
    if isinstance(vote.event, ev.RuleChangeProposed):
        return rule_fits(state, vote)
    return True


def corrections_count(state: GameState, writer: int | None) -> int:
    """Accepted corrections of this writer's records by vote, not counting free ones (4.2.7)."""
    return sum(
        1
        for item in state.items
        if item.author == writer
        for seq in item.votes
        if not _pencil(state.votes[seq])
    )


async def apply(unit: Command, vote: Vote) -> Applied | None:
    """The change of a passed vote (other than an early end), once `fits` said it takes."""
    event = vote.event
    if isinstance(event, ev.CorrectionProposed):
        records = planned(unit.state, vote)
        assert records is not None
        return await apply_correction(unit, vote, event, records)
    if isinstance(event, ev.LateDealProposed):
        return await apply_late(unit, vote, event)
    if isinstance(event, ev.ArbiterProposed):
        await unit.append(ev.ArbiterNamed(event.arbiter, vote.seq), None)
    elif isinstance(event, ev.RuleChangeProposed):
        # At the log's end, and by nobody: no pencil rule lets its proposer undo it.
        change = parse_stored(event.line, table(unit.state))
        assert isinstance(change, RuleChange)
        await unit.append(ev.RuleChanged(change.option, change.value, vote.seq), None)
    return None


def _pencil(vote: Vote) -> bool:
    return isinstance(vote.event, ev.CorrectionProposed) and vote.event.pencil


async def apply_correction(
    unit: Command, vote: Vote, event: ev.CorrectionProposed, records: list[Record]
) -> Applied:
    """A passed correction: the record's new line, then the writer's penalty if due (4.2.7)."""
    state = unit.state
    target = event.target
    index = index_of(state, target)
    assert index is not None
    item = state.records[index]
    before = records_of(state)
    warning, penalties = outlook(state, event, index, before, records[index])
    await unit.append(ev.DealEdited(target, event.line, item.line, vote.seq, warning), vote.author)
    for adjust in penalties:
        line = format_record(adjust, state.names)
        await unit.append(ev.Penalized(line, vote.seq, target), None)
    sheet = unit.sheet()
    writer = state.player_name(item.author)
    return Applied(
        sheet.records[index].number,
        state.item(target).old_lines[-1],  # the record as the edit left it (a copy)
        sheet.records[index],
        sheet,
        settlement(state, sheet),
        tuple(sheet.records[len(before) :]),
        writer if warning else None,
        writer,
    )


async def apply_late(unit: Command, vote: Vote, event: ev.LateDealProposed) -> Applied:
    """A passed late deal: inserted before the record it was proposed before (Кодекс 4.2.10)."""
    state = unit.state
    proposer_seat = None
    if vote.author is not None:
        proposer_seat = state.seat_of(vote.author, vote.usernames.get(vote.author))
    await unit.append(ev.Dealt(event.line, event.before, vote.seq, proposer_seat), vote.author)
    index = index_of(state, state.last_seq)
    assert index is not None
    sheet = unit.sheet()
    scored = sheet.records[index]
    return Applied(scored.number, None, scored, sheet, settlement(state, sheet))
