"""What a vote proposes and what a passed vote changes, as events of its own (corrections.md).

A correction replaces a record's line (`deal_edited` {vote}) and may draw the writer's warning or
penalty (Кодекс 4.2.7, `scoring.voting.correction_outcome`, amounts from
`scoring.corrections.record_penalty`); a late deal is inserted before the record it was proposed
before (4.2.10); a rule change is appended as a record; an arbiter is named.
"""

from __future__ import annotations

from typing import Any

from bot.core.events import RECORD_VOTE_KINDS, Kind, Payload
from bot.core.results import Applied, Proposal
from bot.core.state import GameState, Vote
from bot.core.uow import Unit, index_of, parse_stored, records_of, rules_now, settlement, table
from scoring.corrections import record_penalty
from scoring.deal import Adjust, Record, RuleChange
from scoring.errors import ScoringError
from scoring.notation import format_record
from scoring.replay import replay
from scoring.rules import format_option
from scoring.voting import Outcome, correction_outcome


def proposal(state: GameState, vote: Vote) -> Proposal | None:
    """The record before and after and the balances both ways (None when the log no longer allows
    it to be drawn: the record was undone, or the engine refuses it)."""
    if vote.kind not in RECORD_VOTE_KINDS or state.rules is None:
        return None
    tab = table(state)
    new = parse_stored(vote.payload["line"], tab)
    try:
        if vote.kind is Kind.CORRECTION_PROPOSED:
            index = index_of(state, vote.payload["target"])
            if index is None:
                return None
            records = records_of(state)
            old = parse_stored(vote.payload["old"], tab)
            wrong = replay(state.game(), [*records[:index], old, *records[index + 1 :]])
            right = replay(state.game(), [*records[:index], new, *records[index + 1 :]])
            writer = state.player_name(state.records[index].author)
            old_scored: Any = wrong.records[index]
        else:
            items = [i for i in state.records if i.vote != vote.seq]
            before = vote.payload["before"]
            index = next((i for i, it in enumerate(items) if it.seq == before), -1)
            if index < 0:
                return None
            records = records_of(state, items)
            wrong = replay(state.game(), records)
            right = replay(state.game(), [*records[:index], new, *records[index:]])
            writer, old_scored = None, None
    except ScoringError:
        return None
    return Proposal(
        right.records[index].number,
        old_scored,
        right.records[index],
        tuple(settlement(state, wrong).balances),
        tuple(settlement(state, right).balances),
        writer,
    )


def planned(state: GameState, vote: Vote) -> list[Record] | None:
    """The records in force once this passed vote on a record is applied; None when the log has
    moved on so that it cannot be (the record changed or undone meanwhile, or the engine refuses)."""
    records = records_of(state)
    new = parse_stored(vote.payload["line"], table(state))
    if vote.kind is Kind.CORRECTION_PROPOSED:
        index = index_of(state, vote.payload["target"])
        if index is None or state.records[index].line != vote.payload["old"]:
            return None
        records[index] = new
    else:
        index = index_of(state, vote.payload["before"])
        if index is None:
            return None
        records.insert(index, new)
    try:
        replay(state.game(), records)
    except ScoringError:
        return None
    return records


def rule_fits(state: GameState, vote: Vote) -> bool:
    """A passed rule change still takes: the option has the value it was proposed against and the
    engine accepts the line at the end of the records."""
    change = parse_stored(vote.payload["line"], table(state))
    assert isinstance(change, RuleChange)
    if format_option(getattr(rules_now(state), change.option)) != vote.payload.get("old"):
        return False
    try:
        replay(state.game(), [*records_of(state), change])
    except ScoringError:
        return False
    return True


def fits(state: GameState, vote: Vote) -> bool:
    """Whether a passed vote's change still takes on the log as it is now."""
    if vote.kind in RECORD_VOTE_KINDS:
        return planned(state, vote) is not None
    if vote.kind is Kind.RULE_CHANGE_PROPOSED:
        return rule_fits(state, vote)
    return True


def corrections_count(state: GameState, writer: int | None) -> int:
    """Accepted corrections of this writer's records, not counting those made under the pencil
    rule (Кодекс 4.2.7: the first is a warning)."""
    return sum(
        1
        for item in state.items
        if item.author == writer
        for seq in item.votes
        if not state.votes[seq].payload.get("pencil")
    )


async def apply(unit: Unit, vote: Vote) -> Applied | None:
    """The change of a passed vote (other than an early end), once `fits` said it takes."""
    if vote.kind is Kind.CORRECTION_PROPOSED:
        records = planned(unit.state, vote)
        assert records is not None
        return await apply_correction(unit, vote, records)
    if vote.kind is Kind.LATE_DEAL_PROPOSED:
        return await apply_late(unit, vote)
    if vote.kind is Kind.ARBITER_PROPOSED:
        named = {"arbiter": vote.payload["arbiter"], "vote": vote.seq}
        await unit.append(Kind.ARBITER_NAMED, named, None)
    elif vote.kind is Kind.RULE_CHANGE_PROPOSED:
        # At the log's end, and by nobody: no pencil rule lets its proposer undo it.
        await unit.append(Kind.DEAL, {"line": vote.payload["line"], "vote": vote.seq}, None)
    return None


async def apply_correction(unit: Unit, vote: Vote, records: list[Record]) -> Applied:
    """A passed correction: the record's new line, then the writer's penalty if it is not his
    first corrected error and the wrong record favoured him (Кодекс 4.2.7, record_penalties)."""
    state = unit.state
    target = vote.payload["target"]
    index = index_of(state, target)
    assert index is not None
    item = state.records[index]
    before = records_of(state)
    writer_seat = item.seat
    if writer_seat is None and item.author is not None:
        writer_seat = state.seat_of(item.author, None)
    outcome = correction_outcome(
        rules_now(state).record_penalties,
        pencil=bool(vote.payload.get("pencil")),
        earlier_corrections=corrections_count(state, item.author),
    )
    warning = outcome is Outcome.WARNING
    penalties: tuple[Adjust, ...] = ()
    if outcome is Outcome.PENALTY and writer_seat is not None:
        penalties = record_penalty(state.game(), before, index, records[index], writer_seat)
    payload: Payload = {
        "target": target,
        "line": vote.payload["line"],
        "old": item.line,
        "vote": vote.seq,
    }
    if warning:
        payload["warning"] = True
    await unit.append(Kind.DEAL_EDITED, payload, vote.author)
    for adjust in penalties:
        line = format_record(adjust, state.names)
        await unit.append(Kind.PENALTY, {"line": line, "vote": vote.seq, "target": target}, None)
    sheet = unit.sheet()
    writer = state.player_name(item.author)
    return Applied(
        sheet.records[index].number,
        item.old_lines[-1],
        sheet.records[index],
        sheet,
        settlement(state, sheet),
        tuple(sheet.records[len(before) :]),
        writer if warning else None,
        writer,
    )


async def apply_late(unit: Unit, vote: Vote) -> Applied:
    """A passed late deal: inserted before the record it was proposed before (Кодекс 4.2.10)."""
    state = unit.state
    proposer_seat = None
    if vote.author is not None:
        proposer_seat = state.seat_of(vote.author, vote.usernames.get(vote.author))
    payload: Payload = {
        "line": vote.payload["line"],
        "before": vote.payload["before"],
        "vote": vote.seq,
    }
    if proposer_seat is not None:
        payload["seat"] = proposer_seat
    await unit.append(Kind.DEAL, payload, vote.author)
    index = index_of(state, state.last_seq)
    assert index is not None
    sheet = unit.sheet()
    scored = sheet.records[index]
    return Applied(scored.number, None, scored, sheet, settlement(state, sheet))
