"""What a vote proposes and what a passed vote changes, as events of its own (corrections.md)."""

from __future__ import annotations

from typing import Any

from bot.core import events as ev
from bot.core.base import index_of, parse_stored, records_of, rules_now, settlement, table
from bot.core.command import Command
from bot.core.results import Applied, Proposal
from bot.core.state import GameState, Vote
from scoring.deal import Adjust, Record, RuleChange
from scoring.errors import ScoringError
from scoring.notation import format_record
from scoring.replay import replay
from scoring.rules import format_option
from scoring.voting import Outcome, correction_outcome, record_penalty


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


def fits(state: GameState, vote: Vote) -> bool:
    """Whether a passed vote's change still takes on the log as it is now."""
    event = vote.event
    if not isinstance(event, ev.CorrectionProposed | ev.LateDealProposed | ev.RuleChangeProposed):
        return True
    records, new = records_of(state), parse_stored(event.line, table(state))
    if isinstance(event, ev.CorrectionProposed):
        index = index_of(state, event.target)
        if index is None or state.records[index].line != event.old:
            return False
        records[index] = new
    elif isinstance(event, ev.LateDealProposed):
        index = index_of(state, event.before)
        if index is None:
            return False
        records.insert(index, new)
    else:  # a rule change: the option still as its voters were shown
        assert isinstance(new, RuleChange)
        if format_option(getattr(rules_now(state), new.option)) != event.old:
            return False
        records.append(new)
    try:
        replay(state.game(), records)
    except ScoringError:
        return False
    return True


def corrections_count(state: GameState, writer: int | None) -> int:
    """Accepted corrections of this writer's records by vote, not counting free ones (4.2.7)."""
    return sum(
        1
        for item in state.items
        if item.author == writer
        for seq in item.votes
        if not (isinstance(e := state.votes[seq].event, ev.CorrectionProposed) and e.pencil)
    )


async def apply(unit: Command, vote: Vote) -> Applied | None:
    """The change of a passed vote (other than an early end), once `fits` said it takes."""
    state, event = unit.state, vote.event
    if isinstance(event, ev.CorrectionProposed):
        # The record's new line, then the writer's penalty if due (4.2.7).
        target = event.target
        index = index_of(state, target)
        assert index is not None
        item = state.records[index]
        before = records_of(state)
        new = parse_stored(event.line, table(state))
        warning, penalties = outlook(state, event, index, before, new)
        edited = ev.DealEdited(target, event.line, item.line, vote.seq, warning)
        await unit.append(edited, vote.author)
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
    if isinstance(event, ev.LateDealProposed):
        # Inserted before the record it was proposed before (Кодекс 4.2.10).
        author = vote.author
        seat = None if author is None else state.seat_of(author, vote.usernames.get(author))
        await unit.append(ev.Dealt(event.line, event.before, vote.seq, seat), author)
        index = index_of(state, state.last_seq)
        assert index is not None
        sheet = unit.sheet()
        scored = sheet.records[index]
        return Applied(scored.number, None, scored, sheet, settlement(state, sheet))
    if isinstance(event, ev.ArbiterProposed):
        await unit.append(ev.ArbiterNamed(event.arbiter, vote.seq), None)
    elif isinstance(event, ev.RuleChangeProposed):
        # At the log's end, and by nobody: no pencil rule lets its proposer undo it.
        change = parse_stored(event.line, table(state))
        assert isinstance(change, RuleChange)
        await unit.append(ev.RuleChanged(change.option, change.value, vote.seq), None)
    return None
