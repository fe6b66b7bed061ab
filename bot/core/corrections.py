"""Proposals put to a vote: /dispute (Кодекс 4.2.9), a late deal (4.2.10), /rule and /arbiter."""

from typing import Final

from bot.core import events as ev
from bot.core.base import Caller, deal_example, records_of, rules_now, table
from bot.core.errors import GameError
from bot.core.events import Kind
from bot.core.newgame import parse_arbiter
from bot.core.records import DEAL_EXAMPLE, RULE_EXAMPLE, playing, read_deal, votes_on
from bot.core.results import VoteState
from bot.core.state import GameState
from bot.core.uow import UnitOfWork
from bot.core.votes import open_vote
from bot.domain import GameStatus
from scoring import voting
from scoring.deal import LastRound
from scoring.errors import IllegalDeal, ScoringError
from scoring.notation import format_record, parse_rule_change
from scoring.replay import replay
from scoring.rules import format_option

DISPUTE_EXAMPLE: Final = "/dispute 3 Anna 7♠ -1 vist:Boris pass:Clara"


async def dispute(uow: UnitOfWork, caller: Caller, number: str, text: str) -> VoteState:
    """/dispute N <corrected deal>: a vote on replacing deal N (the proposer's ✅ counted)."""
    async with uow.command(caller) as unit:
        state = unit.state
        seat = playing(state, caller)
        sheet = unit.sheet()
        example = DISPUTE_EXAMPLE
        if sheet.records:
            last = sheet.records[-1]
            shown = deal_example(state.names, last.dealer or 0).removeprefix("/deal ")
            example = f"/dispute {last.number or 1} {shown}"
        wanted = number.strip().lstrip("#№")
        numbers = [scored.number for scored in sheet.records]
        if not wanted.isdigit() or int(wanted) not in numbers:
            raise GameError("bad-deal-number", number, {"deals": str(sheet.deals)}, example)
        index = numbers.index(int(wanted))
        item, scored = state.records[index], sheet.records[index]
        if votes_on(state, item):
            raise GameError("vote-open", f"#{scored.number}", {}, "/history")
        record = read_deal(text, table(state, scored.dealer, seat), "dispute-not-deal", example)
        if isinstance(record, LastRound):
            raise GameError("dispute-not-deal", text.strip(), {}, example)
        line = format_record(record, state.names)
        if line == item.line:
            raise GameError("no-change", text.strip(), {"line": item.line}, example)
        records = records_of(state)
        records[index] = record
        unit.replay(records, scored.dealer or 0)
        # Кодекс 4.2.9: disputable while the latest deal, or while the next one is young enough.
        later = [r for r in state.records[index + 1 :] if r.kind is Kind.DEAL and not r.change]
        grace = rules_now(state).dispute_grace_seconds
        young = voting.dispute_window(later[0].at if later else None, unit.now(), grace)
        terms = voting.dispute_terms(young, by_writer=item.author == caller.user_id)
        if not terms.allowed:
            params = {"writer": state.player_name(item.author) or "?", "seconds": str(grace)}
            raise GameError("dispute-window", f"#{scored.number}", params, "/history")
        # A /dispute is never under the pencil rule, however soon it follows the record
        # (corrections.md 4.2.8): its correction is a warning or a penalty by 4.2.7.
        proposed = ev.CorrectionProposed(
            item.seq, line, item.line, terms.threshold, unit.deadline(), pencil=False
        )
        return await open_vote(unit, caller, proposed)


async def propose_late(uow: UnitOfWork, caller: Caller, text: str) -> VoteState:
    """`/deal … late`: a vote to insert a forgotten deal before the latest (Кодекс 4.2.10)."""
    async with uow.command(caller) as unit:
        state = unit.state
        seat = playing(state, caller)
        rules = rules_now(state)
        sheet = unit.sheet()
        deals = [i for i, scored in enumerate(sheet.records) if scored.number]
        if not deals:
            raise GameError("late-nothing-before", text.strip(), {}, DEAL_EXAMPLE)
        index = deals[-1]
        latest, dealer = state.records[index], sheet.records[index].dealer
        if not voting.late_window(latest.at, unit.now(), rules.dispute_grace_seconds):
            params = {"seconds": str(rules.dispute_grace_seconds)}
            raise GameError("late-window", f"#{sheet.records[index].number}", params, "/history")
        if state.open_votes(Kind.LATE_DEAL_PROPOSED) or votes_on(state, latest):
            raise GameError("vote-open", text.strip(), {}, "/history")
        record = read_deal(text, table(state, dealer, seat))
        if isinstance(record, LastRound):
            raise GameError("dispute-not-deal", text.strip(), {}, DEAL_EXAMPLE)
        records = records_of(state)
        records.insert(index, record)
        unit.replay(records[: index + 1], dealer or 0)  # the deal itself fits its slot
        try:
            replay(state.game(), records)
        except ScoringError as error:  # a later deal the forgotten one's shifted rotation fails
            clash = int(error.params["record"])
            line = format_record(records[clash], state.names)
            shown = f"#{sheet.records[index].number + clash - index - 1}"
            dealt = replay(state.game(), records[:clash]).next_dealer
            params = {"line": line, "dealer": state.names[dealt], "number": shown}
            raise GameError("late-shifts-rotation", shown, params, "/history") from error
        line = format_record(record, state.names)
        proposed = ev.LateDealProposed(line, latest.seq, voting.LATE_THRESHOLD, unit.deadline())
        return await open_vote(unit, caller, proposed)


async def propose_rule(uow: UnitOfWork, caller: Caller, text: str) -> VoteState:
    """/rule name=value: a vote to change a rule from the next record on (conventions.md §1.4)."""
    async with uow.command(caller) as unit:
        state = unit.state
        playing(state, caller)
        words = text.strip()
        try:
            change = parse_rule_change(words) or parse_rule_change(f"option {words}")
        except ScoringError as error:
            error.example = RULE_EXAMPLE
            raise
        if change is None:
            raise GameError("bad-rule-change", words, {}, RULE_EXAMPLE)
        current = format_option(getattr(rules_now(state), change.option))
        if current == change.value:
            params = {"option": change.option, "value": current}
            raise GameError("rule-same", text.strip(), params, RULE_EXAMPLE)
        if state.open_votes(Kind.RULE_CHANGE_PROPOSED):
            raise GameError("vote-open", text.strip(), {}, "/history")
        sheet = unit.sheet()
        if sheet.finished:
            raise IllegalDeal("game-finished", text.strip(), {}, "/endgame")
        unit.replay([*records_of(state), change], sheet.next_dealer)
        line = format_record(change, state.names)
        proposed = ev.RuleChangeProposed(
            line, current, voting.RULE_CHANGE_THRESHOLD, unit.deadline()
        )
        return await open_vote(unit, caller, proposed)


async def name_arbiter(uow: UnitOfWork, caller: Caller, ref: str) -> GameState | VoteState:
    """/arbiter @user: the scorekeeper names him before the start, a vote does during the game."""
    async with uow.command(caller) as unit:
        state = unit.state
        arbiter = parse_arbiter(ref, caller.as_player(), "/arbiter @eva_arbiter")
        named = any(arbiter.name.casefold() == n.casefold() for n in state.names)
        if named or any(p.is_same(arbiter) for p in state.voters()):
            raise GameError("arbiter-plays", ref.strip(), {}, "/arbiter @eva_arbiter")
        if state.arbiter is not None and state.arbiter.payload() == arbiter.payload():
            raise GameError("arbiter-same", ref.strip(), {}, "/history")
        if state.status is GameStatus.FORMING:
            if not state.is_scorekeeper(caller.user_id):
                raise GameError("scorekeeper-only", "/arbiter", {}, "/join")
            await unit.append(ev.ArbiterNamed(arbiter), caller.user_id)
            return state
        playing(state, caller)
        if state.open_votes(Kind.ARBITER_PROPOSED):
            raise GameError("vote-open", ref.strip(), {}, "/history")
        proposed = ev.ArbiterProposed(arbiter, voting.ARBITER_THRESHOLD, unit.deadline())
        return await open_vote(unit, caller, proposed)
