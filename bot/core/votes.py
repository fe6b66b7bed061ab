"""The vote machine (corrections.md "A vote"): casting, closing, timing out, arbiter, /endgame."""

from collections.abc import Sequence
from typing import Any

from bot.core import events as ev
from bot.core.base import (
    Caller,
    Core,
    index_of,
    parse_stored,
    records_of,
    rules_now,
    settlement,
    table,
)
from bot.core.errors import GameError
from bot.core.events import Kind, encode
from bot.core.ledger import debts_of
from bot.core.records import playing
from bot.core.results import Applied, Ended, Proposal, VoteState
from bot.core.state import GameState, Player, Vote
from bot.core.uow import Command, UnitOfWork
from bot.domain import GameStatus
from scoring import voting
from scoring.deal import Adjust, Record, RuleChange
from scoring.errors import ScoringError
from scoring.notation import format_record
from scoring.replay import replay
from scoring.rules import format_option
from scoring.voting import END_THRESHOLD, Outcome, correction_outcome, record_penalty


def tally(vote: Vote, voters: Sequence[Player], *, arbiter: bool = False) -> bool | None:
    """A vote's result once it cannot change, else None (`scoring.voting.tally` over its ballots)."""
    return voting.tally(vote.threshold, *counts(vote, voters), arbiter=arbiter)


def counts(vote: Vote, voters: Sequence[Player]) -> tuple[int, int, int]:
    ballots = [vote.ballot(v) for v in voters]
    return ballots.count(True), ballots.count(False), len(voters)


def voter_of(state: GameState, caller: Caller) -> Player | None:
    return next((v for v in state.voters() if v.is_user(caller.user_id, caller.username)), None)


def may_refer(state: GameState, vote: Vote) -> bool:
    """A tied or timed-out vote goes to the arbiter, if there is one — not a vote about him."""
    return state.arbiter is not None and vote.kind is not Kind.ARBITER_PROPOSED


async def open_vote(unit: Command, caller: Caller, proposed: ev.Proposed) -> VoteState:
    """Append a proposal (its seq is the vote's id) and count the proposer's ✅."""
    await unit.append(proposed, caller.user_id)
    return await cast(unit, unit.state.votes[unit.state.last_seq], caller, yes=True)


async def end_game(uow: UnitOfWork, caller: Caller) -> Ended | VoteState:
    """/endgame: cancel a forming game, end a finished one, or open a vote on ending it."""
    async with uow.command(caller) as unit:
        state = unit.state
        if state.status is GameStatus.FORMING:
            if not state.is_scorekeeper(caller.user_id):
                raise GameError("scorekeeper-only", "/endgame", {}, "/leave")
            return await end(unit, ev.EndReason.CANCELLED, caller.user_id)
        playing(state, caller, "/endgame")
        if any(v.kind in ev.RECORD_VOTE_KINDS for v in state.open_votes()):
            raise GameError("votes-pending", "/endgame", {}, "/history")
        if unit.sheet().finished:
            return await end(unit, ev.EndReason.END_RULE, caller.user_id)
        if open_votes := state.open_votes(Kind.END_PROPOSED):
            return await cast(unit, open_votes[0], caller, yes=True)
        return await open_vote(unit, caller, ev.EndProposed(END_THRESHOLD, unit.deadline()))


async def end(unit: Command, reason: ev.EndReason, author: int | None) -> Ended:
    state = unit.state
    for vote in state.open_votes():  # a vote cannot outlive its game
        await unit.append(ev.VoteClosed(vote.seq, False, ev.CloseReason.CANCELLED), None)
    await unit.append(ev.GameEnded(reason), author)
    await unit.write(lambda repo: repo.set_status(state.game_id, GameStatus.ENDED))
    if state.rules is None:
        return Ended(state, reason, None, None)
    sheet = unit.sheet()
    settled = settlement(state, sheet)
    money = state.stake is not None
    for transfer in settled.transfers:  # each that is not nothing: a debt the end leaves owed
        amount = transfer.money if money else transfer.whists
        if amount is not None and amount > 0:
            seats = (transfer.debtor, transfer.creditor)
            people = (state.players[transfer.debtor], state.players[transfer.creditor])
            await unit.append(ev.DebtOpened(*people, *seats, str(amount), money), None)
    debts = debts_of(state.game_id, state.chat_id, state.number, state.debt_rows)
    return Ended(state, reason, sheet, settled, tuple(debts.values()))


async def vote(uow: UnitOfWork, caller: Caller, game_id: int, seq: int, yes: bool) -> VoteState:
    """A ✅/❌ press on vote `seq`; the button's game and vote are checked against the log."""
    async with uow.command(caller, game=game_id) as unit:
        state = unit.state
        if (ballot := state.votes.get(seq)) is None:
            raise GameError("stale-button", "", {}, "/score")
        if ballot.closed or state.status is GameStatus.ENDED:
            raise GameError("vote-closed", "", {}, "/history")
        arbiter = state.is_arbiter(caller.user_id, caller.username)
        if ballot.referred is not None:
            if not arbiter:
                raise GameError("arbiter-only", "", {}, "/history")
            return await close(unit, ballot, passed=yes, reason=ev.CloseReason.ARBITER, by=caller)
        if arbiter and not voter_of(state, caller):
            raise GameError("arbiter-waits", "", {}, "/history")
        return await cast(unit, ballot, caller, yes)


async def cast(unit: Command, vote: Vote, caller: Caller, yes: bool) -> VoteState:
    state = unit.state
    voters = tuple(state.voters())
    if (voter := voter_of(state, caller)) is None:
        raise GameError("not-a-voter", caller.shown, {}, "/score")
    if vote.referred is not None:
        raise GameError("arbiter-only", "", {}, "/history")
    if unit.now() > vote.deadline:
        return await expire_vote(unit, vote)
    if vote.ballot(voter) is yes:
        raise GameError("vote-same", "", {}, "/history")
    await unit.append(ev.VoteCast(vote.seq, yes, caller.username), caller.user_id)
    with_arbiter = may_refer(state, vote)
    if (passed := tally(vote, voters, arbiter=with_arbiter)) is not None:
        return await close(unit, vote, passed=passed, reason=ev.CloseReason.CERTAIN)
    tie = with_arbiter and voting.tied(vote.threshold, *counts(vote, voters))
    return await pending(unit, vote, ev.ReferReason.TIE if tie else None)


async def expire_vote(unit: Command, vote: Vote) -> VoteState:
    """The voting time is over: to the arbiter, or rejected (corrections.md "A vote")."""
    if may_refer(unit.state, vote):
        return await pending(unit, vote, ev.ReferReason.TIMEOUT)
    return await close(unit, vote, passed=False, reason=ev.CloseReason.TIMEOUT)


async def close(
    unit: Command, vote: Vote, *, passed: bool, reason: ev.CloseReason, by: Caller | None = None
) -> VoteState:
    """Close a vote (`by` the arbiter, else the bot); a passed one then makes its change."""
    state = unit.state
    proposal = proposal_of(state, vote)
    if passed and not fits(state, vote, proposal):
        passed, reason = False, ev.CloseReason.CONFLICT
    author, username = (by.user_id, by.username) if by else (None, None)
    await unit.append(ev.VoteClosed(vote.seq, passed, reason, username), author)
    ending = passed and vote.kind is Kind.END_PROPOSED
    how = ev.EndReason.ARBITER if reason is ev.CloseReason.ARBITER else ev.EndReason.AGREED
    ended = await end(unit, how, None) if ending else None
    applied = await make_change(unit, vote, proposal) if passed and not ending else None
    return VoteState(state, vote, tuple(state.voters()), passed, reason, ended, proposal, applied)


async def pending(unit: Command, vote: Vote, referred: ev.ReferReason | None = None) -> VoteState:
    """A vote still open, with what it would change; `referred`: why it goes to the arbiter now."""
    if referred is not None:
        await unit.append(ev.VoteReferred(vote.seq, referred), None)
    voters, proposal = tuple(unit.state.voters()), proposal_of(unit.state, vote)
    return VoteState(unit.state, vote, voters, None, referred, None, proposal)


# -- votes that time out: a background task (bot.telegram.outbound.outbox.close_expired_votes) runs these ---------
async def watch_open_votes(core: Core) -> int:
    """At start-up: watch every live game with an open vote; how many games are watched."""
    async with core.store.reading() as repo:
        for row in await repo.live_games():
            await core.fold(repo, row)
    return len(core.watch)


def due_votes(core: Core) -> list[tuple[int, int]]:
    """(chat id, game id) of the watched games with a vote whose time may be over."""
    now = core.clock()
    return [(chat, game) for game, (chat, due) in core.watch.items() if due <= now]


async def expire(
    uow: UnitOfWork, chat_id: int, game_id: int
) -> tuple[list[VoteState], GameState | None]:
    """Close (or refer) the game's votes whose time is over; and the game as it then stands."""
    results: list[VoteState] = []
    async with uow.on_game(chat_id, game_id) as unit:
        if unit is None:
            return results, None
        now = uow.core.clock()
        for ballot in unit.state.open_votes():
            if ballot.referred is None and now >= ballot.deadline:
                results.append(await expire_vote(unit, ballot))
    return results, unit.state


def rewatch(core: Core, game_id: int, state: GameState | None) -> None:
    """Once `expire`'s unit committed: the game's watch as its log now stands."""
    core.watch.pop(game_id, None)
    if state is not None:
        core.track(state)


async def vote_posted(
    uow: UnitOfWork, chat_id: int, game_id: int, vote_seq: int, message_id: int
) -> None:
    """Remember the message that shows a vote, so that its closing can edit it later."""
    kind, payload = encode(ev.VotePosted(vote_seq, message_id))
    repo = await uow.holding(chat_id)
    await repo.append(game_id, kind.value, payload, None, uow.now())


# -- what a vote proposes, and what a passed one changes -----------------------------------------
def proposal_of(state: GameState, vote: Vote) -> Proposal | None:
    """The record before and after and the balances both ways."""
    event = vote.event
    if not isinstance(event, ev.CorrectionProposed | ev.LateDealProposed) or state.rules is None:
        return None
    seq = event.target if isinstance(event, ev.CorrectionProposed) else event.before
    index, records, tab = index_of(state, seq), records_of(state), table(state)
    if index is None:
        return None
    new = parse_stored(event.line, tab)
    try:
        if isinstance(event, ev.CorrectionProposed):
            old = parse_stored(event.old, tab)
            wrong = replay(state.game(), [*records[:index], old, *records[index + 1 :]])
            right = replay(state.game(), [*records[:index], new, *records[index + 1 :]])
            writer = state.player_name(state.records[index].author)
            old_scored: Any = wrong.records[index]
            warning, penalty = outlook(state, event, index, records, new)
        else:
            wrong = replay(state.game(), records)
            right = replay(state.game(), [*records[:index], new, *records[index:]])
            writer, old_scored, warning, penalty = None, None, False, ()
    except ScoringError:
        return None
    scored = right.records[index]
    before, after = (tuple(settlement(state, sheet).balances) for sheet in (wrong, right))
    return Proposal(scored.number, old_scored, scored, before, after, writer, warning, penalty)


def outlook(
    state: GameState, event: ev.CorrectionProposed, index: int, before: list[Record], new: Record
) -> tuple[bool, tuple[Adjust, ...]]:
    """What a correction costs its writer if it passes (Кодекс 4.2.7): warning or penalty."""
    item = state.records[index]
    writer_seat = state.seat_of(item.author, None) if item.seat is None else item.seat
    earlier, rules = corrections_count(state, item.author), rules_now(state).record_penalties
    outcome = correction_outcome(rules, earlier_corrections=earlier)
    if event.pencil:  # proposed as free: it keeps the terms its voters were shown
        outcome = Outcome.FREE
    if outcome is not Outcome.PENALTY or writer_seat is None:
        return outcome is Outcome.WARNING, ()
    return False, record_penalty(state.game(), before, index, new, writer_seat)


def fits(state: GameState, vote: Vote, proposal: Proposal | None) -> bool:
    """Whether a passed vote's change still takes on the log as it is now: a record's change
    replays (it has a `proposal`), a correction's record or a rule's option is as its voters saw."""
    event = vote.event
    if isinstance(event, ev.CorrectionProposed):
        return proposal is not None and state.item(event.target).line == event.old
    if isinstance(event, ev.LateDealProposed):
        return proposal is not None
    if not isinstance(event, ev.RuleChangeProposed):
        return True
    change = parse_stored(event.line, table(state))
    assert isinstance(change, RuleChange)
    if format_option(getattr(rules_now(state), change.option)) != event.old:
        return False
    try:
        replay(state.game(), [*records_of(state), change])
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


async def make_change(unit: Command, vote: Vote, proposal: Proposal | None) -> Applied | None:
    """The change of a passed vote (other than an early end), once `fits` said it takes."""
    state, event = unit.state, vote.event
    if isinstance(event, ev.CorrectionProposed):
        # The record's new line, then the writer's penalty if due (4.2.7).
        assert proposal is not None
        count = len(state.records)
        edited = ev.DealEdited(event.target, event.line, event.old, vote.seq, proposal.warning)
        await unit.append(edited, vote.author)
        for adjust in proposal.penalty:
            line = format_record(adjust, state.names)
            await unit.append(ev.Penalized(line, vote.seq, event.target), None)
        sheet, writer = unit.sheet(), proposal.writer
        settled, penalized = settlement(state, sheet), tuple(sheet.records[count:])
        warned = writer if proposal.warning else None
        return Applied(
            proposal.number, event.old, proposal.new, sheet, settled, penalized, warned, writer
        )
    if isinstance(event, ev.LateDealProposed):
        # Inserted before the record it was proposed before (Кодекс 4.2.10).
        assert proposal is not None
        author = vote.author
        seat = None if author is None else state.seat_of(author, vote.usernames.get(author))
        await unit.append(ev.Dealt(event.line, event.before, vote.seq, seat), author)
        sheet = unit.sheet()
        return Applied(proposal.number, None, proposal.new, sheet, settlement(state, sheet))
    if isinstance(event, ev.ArbiterProposed):
        await unit.append(ev.ArbiterNamed(event.arbiter, vote.seq), None)
    elif isinstance(event, ev.RuleChangeProposed):
        # At the log's end, and by nobody: no pencil rule lets its proposer undo it.
        change = parse_stored(event.line, table(state))
        assert isinstance(change, RuleChange)
        await unit.append(ev.RuleChanged(change.option, change.value, vote.seq), None)
    return None
