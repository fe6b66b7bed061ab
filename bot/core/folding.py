"""How each stored event folds into a `GameState`, and the copy a command folds on."""

from __future__ import annotations

from copy import copy
from dataclasses import replace
from fractions import Fraction

from bot.core import events as ev
from bot.core.events import Kind, decode
from bot.core.state import GameState, RecordItem, Vote, rules_from_snapshot
from bot.domain import EventRow, GameStatus
from scoring.errors import ScoringError
from scoring.notation import Table, format_record, parse_record


def fold(game_id: int, events: list[EventRow]) -> GameState:
    state = GameState(game_id)
    for event in events:
        apply(state, event)
    return state


def clone(state: GameState) -> GameState:
    """A copy to fold on that shares nothing mutable with `state`."""
    return replace(
        state,
        overrides=dict(state.overrides),
        players=list(state.players),
        items=list(state.items),
        votes={
            seq: replace(vote, ballots=dict(vote.ballots), usernames=dict(vote.usernames))
            for seq, vote in state.votes.items()
        },
        debt_rows=list(state.debt_rows),
        log=None if state.log is None else list(state.log),
        corrections=list(state.corrections),
    )


def apply(state: GameState, row: EventRow) -> None:
    """Fold one stored event into the state (decoded to its typed event first)."""
    state.last_seq = row.seq
    if row.kind in ev.DEBT_KINDS:
        state.debt_rows.append(row)
    if state.log is not None:
        state.log.append(row)
    event = decode(row.kind, row.payload, row.schema_version)
    match event:
        case ev.GameCreated() | ev.GameStarted():  # the start sets again what the creation set
            state.convention, state.overrides = event.convention, dict(event.overrides)
            state.stake = Fraction(event.stake) if event.stake else None
            if isinstance(event, ev.GameCreated):
                state.seats, state.dealer_ref = event.seats, event.dealer
                state.scorekeeper = event.scorekeeper
            else:
                state.players = list(event.players)
                state.seats = len(state.players)
                state.first_dealer = event.first_dealer
                snapshot = {"convention": event.convention, "rules": event.rules}
                state.rules = rules_from_snapshot(snapshot, state.seats)
                state.status = GameStatus.PLAYING
        case ev.PlayerJoined():
            state.players.append(event.player)
        case ev.PlayerLeft():
            state.players = [pl for pl in state.players if pl.name != event.name]
        case ev.GameEnded():
            state.status = GameStatus.ENDED
            state.ended_reason = event.reason
        case ev.RuleChanged():
            item = RecordItem(row.seq, Kind.DEAL, event.line, row.author, row.at)
            item.vote, item.change = event.vote, (event.option, event.value)
            state.items.append(item)
        case ev.Dealt() | ev.LastRoundMarked() | ev.Penalized():
            item = RecordItem(row.seq, event.KIND, event.line, row.author, row.at)
            before = None
            if isinstance(event, ev.Dealt):
                item.seat, item.vote, before = event.seat, event.vote, event.before
            elif isinstance(event, ev.Penalized):
                item.vote = event.vote
            if before is None:
                state.items.append(item)
            else:
                index = next(i for i, it in enumerate(state.items) if it.seq == before)
                state.items.insert(index, item)
                state.revised = row.seq
        case ev.DealUndone():
            _own(state, event.target).undone = True
            state.revised = row.seq
        case ev.DealEdited():
            item = _own(state, event.target)
            item.old_lines = (*item.old_lines, item.line)
            item.line = event.line
            state.revised = row.seq
            if event.vote is not None:
                item.votes = (*item.votes, event.vote)
                state.corrections.append(event)
        case ev.VoteCast():
            if row.author is not None:
                vote = state.votes[event.vote]
                vote.ballots[row.author] = event.yes
                vote.usernames[row.author] = event.username
        case ev.VoteReferred():
            state.votes[event.vote].referred = event.reason
        case ev.VoteClosed():
            vote = state.votes[event.vote]
            vote.closed = True
            vote.passed = event.passed
            vote.reason = event.reason
            vote.decided_by = row.author
            if row.author is not None and event.username:
                vote.usernames.setdefault(row.author, event.username)
        case ev.VotePosted():
            state.votes[event.vote].message_id = event.message_id
        case ev.ArbiterNamed():
            state.arbiter = event.arbiter
        case ev.SeatLinked():
            _link(state, event)
        case ev.DebtOpened() | ev.DebtMarked():
            pass  # settling up is read from the log by `bot.core.ledger`
        case _:
            assert isinstance(event, ev.Proposed), event
            state.votes[row.seq] = Vote(row.seq, event, row.author, row.at)


def _own(state: GameState, seq: int) -> RecordItem:
    """The record `seq` as this state's own copy, to change (records are shared with clones)."""
    index = next(i for i, item in enumerate(state.items) if item.seq == seq)
    item = state.items[index] = copy(state.items[index])
    return item


def _link(state: GameState, event: ev.SeatLinked) -> None:
    """The seat's account is known: its new name is written into the lines read so far."""
    if event.seat == ev.ARBITER_SEAT:
        state.arbiter = event.player
        return
    old = state.names
    state.players[event.seat] = event.player
    new = state.names
    if new == old:
        return
    state.earlier_names.append(old)
    state.revised = state.last_seq
    for index, item in enumerate(state.items):
        if item.change is None:
            item = state.items[index] = copy(item)
            item.line = _renamed(item.line, old, new)
            item.old_lines = tuple(_renamed(line, old, new) for line in item.old_lines)
    for vote in state.votes.values():  # a vote's record lines are renamed likewise
        shown = vote.event
        if isinstance(shown, ev.CorrectionProposed):
            line, old_line = _renamed(shown.line, old, new), _renamed(shown.old, old, new)
            vote.event = replace(shown, line=line, old=old_line)
        elif isinstance(shown, ev.LateDealProposed):
            vote.event = replace(shown, line=_renamed(shown.line, old, new))


def _renamed(line: str, old: tuple[str, ...], new: tuple[str, ...]) -> str:
    try:
        return format_record(parse_record(line, Table(old)), new)
    except ScoringError:
        return line
