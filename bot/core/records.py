"""Records: /deal, /lastround, and the pencil rule's /undo and /edit (Кодекс 4.2.8)."""

from datetime import datetime, timedelta
from typing import Final

from bot.core import events as ev
from bot.core.base import Caller, records_of, rules_now, settlement, table
from bot.core.errors import GameError
from bot.core.events import Kind
from bot.core.newgame import name_from_profile
from bot.core.results import Edited, Recorded, Undone
from bot.core.state import GameState, RecordItem, Vote
from bot.core.uow import Command, UnitOfWork
from bot.domain import GameStatus
from scoring.deal import Adjust, LastRound, Record, RuleChange
from scoring.errors import IllegalDeal
from scoring.notation import Table, format_record, parse_record
from scoring.rules import EndRule
from scoring.voting import pencil_holds

DEAL_EXAMPLE: Final = "/deal Anna 7♠ -1 vist:Boris pass:Clara"
RULE_EXAMPLE: Final = "/rule pool_target=30"
LATE_WORDS: Final = frozenset({"late", "поздно", "забытая"})
# Telegram gives a message's time in whole seconds, by its own clock: a message may seem sent up to
# this long after the record it wrote.
SENT_SLACK: Final = timedelta(seconds=1)


def read_deal(
    text: str, tab: Table, refusal: str = "adjust-by-vote", example: str = DEAL_EXAMPLE
) -> Record:
    """A typed record: a rule changes by vote only (`/rule`, conventions.md §1.4), no adjustment."""
    record = parse_record(text, tab)
    if isinstance(record, RuleChange):
        raise GameError("rule-change-needs-vote", text.strip(), {}, RULE_EXAMPLE)
    if isinstance(record, Adjust):
        raise GameError(refusal, text.strip(), {}, example)
    return record


def split_late(text: str) -> tuple[str, bool]:
    """`/deal … late`: the deal line without the word `late`, and whether it was there."""
    words = text.split()
    if words and words[-1].casefold() in LATE_WORDS:
        return " ".join(words[:-1]), True
    if words and words[0].casefold() in LATE_WORDS:
        return " ".join(words[1:]), True
    return text, False


def playing(state: GameState, caller: Caller, command: str = "/deal") -> int | None:
    """Checks that the game is on and the sender may record; the sender's seat, if he plays."""
    if state.status is GameStatus.FORMING:
        missing = str(state.seats - len(state.players))
        raise GameError("game-not-started", "", {"missing": missing}, "/join")
    seat = state.seat_of(caller.user_id, caller.username)
    if seat is not None or state.is_scorekeeper(caller.user_id):
        return seat
    players = ", ".join(state.names)
    mine = {name_from_profile(caller.first_name, None, set()).casefold()}
    mine.add((caller.first_name or "").strip().casefold())
    named = next((p for p in state.players if p.named_only and p.name.casefold() in mine), None)
    if named is not None:
        keeper = state.scorekeeper.name if state.scorekeeper is not None else "?"
        params = {"name": named.name, "keeper": keeper}
        raise GameError("named-seat", named.name, params, f"/join {named.name}")
    if command == "/endgame":
        raise GameError("endgame-players-only", caller.shown, {"players": players}, "/score")
    raise IllegalDeal("not-a-player", caller.shown, {"players": players}, DEAL_EXAMPLE)


def votes_on(state: GameState, item: RecordItem) -> list[Vote]:
    """Open votes that would change this record, or insert a deal before it."""
    return [
        v
        for v in state.open_votes()
        if (isinstance(v.event, ev.CorrectionProposed) and v.event.target == item.seq)
        or (isinstance(v.event, ev.LateDealProposed) and v.event.before == item.seq)
    ]


async def record(uow: UnitOfWork, caller: Caller, text: str) -> Recorded:
    """`/deal …` (or `/lastround`): the record is read, checked by a replay, then appended."""
    async with uow.command(caller) as unit:
        state = unit.state
        seat = playing(state, caller)
        records = records_of(state)  # once: the sheet before, then the replay with the new one
        before = unit.sheet(records)
        if before.finished:
            raise IllegalDeal("game-finished", text.strip(), {}, "/endgame")
        new = read_deal(text, table(state, before.next_dealer, seat))
        if last_round := isinstance(new, LastRound):
            if before.rules.end_rule is not EndRule.TIME_THEN_FIRST_CLOSED:
                params = {"convention": before.rules.convention}
                raise GameError("last-round-not-allowed", "/lastround", params, "/score")
            if before.last_round_announced:
                raise GameError("last-round-twice", "/lastround", {}, "/score")
        sheet = unit.replay([*records, new], before.next_dealer)
        line = format_record(new, state.names)
        event = ev.LastRoundMarked(line) if last_round else ev.Dealt(line, seat=seat)
        await unit.append(event, caller.user_id)
        if (user_id := caller.user_id) is not None:
            await unit.write(lambda repo: repo.add_member(state.game_id, user_id))
        unit.remember(sheet)
        return Recorded(state, sheet.records[-1], sheet, settlement(state, sheet))


def pencil(unit: Command, caller: Caller) -> RecordItem:
    """The last record, if the sender wrote it and the pencil rule holds."""
    state = unit.state
    playing(state, caller)
    if not state.records:
        raise GameError("nothing-to-undo", "", {}, DEAL_EXAMPLE)
    last = state.records[-1]
    seconds = rules_now(state).pencil_seconds
    if last.kind is Kind.PENALTY or last.vote is not None:  # written by a vote: no pencil
        raise GameError("pencil-expired", "/undo", {"seconds": str(seconds)}, "/history")
    if last.author != caller.user_id:
        raise GameError("not-author", last.line, {}, "/history")
    if votes_on(state, last):
        raise GameError("vote-open", last.line, {}, "/history")
    if not pencil_holds(last.at, unit.now(), seconds, latest=True):
        raise GameError("pencil-expired", last.line, {"seconds": str(seconds)}, "/history")
    return last


async def undo(uow: UnitOfWork, caller: Caller) -> Undone:
    async with uow.command(caller) as unit:
        last = pencil(unit, caller)
        number = unit.sheet().records[-1].number
        await unit.append(ev.DealUndone(last.seq, last.line), caller.user_id)
        sheet = unit.sheet()
        return Undone(unit.state, number, last.line, sheet, settlement(unit.state, sheet))


async def edit(uow: UnitOfWork, caller: Caller, text: str) -> Edited:
    async with uow.command(caller) as unit:
        return await _replace_last(unit, caller, text, pencil(unit, caller))


def wrote_last(state: GameState, sent_at: datetime) -> bool:
    """Whether a message sent at `sent_at` is the one that wrote the last record."""
    records = state.records
    if not records or sent_at > records[-1].at + SENT_SLACK:
        return False
    return len(records) < 2 or sent_at > records[-2].at


async def edit_by_message(uow: UnitOfWork, caller: Caller, text: str, sent_at: datetime) -> Edited:
    """An edited `/deal` message: an /edit of the record it wrote, else `edited-deal`."""
    async with uow.command(caller) as unit:
        line, late = split_late(text)
        try:
            if late or not wrote_last(unit.state, sent_at):
                raise GameError("not-author", line.strip())
            last = pencil(unit, caller)
        except GameError:
            number = unit.sheet().records[-1].number if unit.state.records else None
            example = f"/dispute {number} {line.strip()}" if number else f"/deal {line.strip()}"
            raise GameError("edited-deal", line.strip(), {}, example) from None
        return await _replace_last(unit, caller, line, last)


async def _replace_last(unit: Command, caller: Caller, text: str, last: RecordItem) -> Edited:
    """The pencil rule's correction: the last record replaced by `text`, of the same kind."""
    state = unit.state
    scored = unit.sheet().records[-1]
    seat = state.seat_of(caller.user_id, caller.username)
    new = read_deal(text, table(state, scored.dealer, seat))
    if isinstance(new, LastRound) != isinstance(scored.record, LastRound):
        raise GameError("edit-mismatch", text.strip(), {"line": last.line}, DEAL_EXAMPLE)
    sheet = unit.replay([*records_of(state)[:-1], new], scored.dealer or 0)
    line = format_record(new, state.names)
    await unit.append(ev.DealEdited(last.seq, line, last.line), caller.user_id)
    unit.remember(sheet)
    old = state.item(last.seq).old_lines[-1]  # (the record as the edit left it: a copy)
    return Edited(state, scored.number, old, sheet.records[-1], sheet, settlement(state, sheet))
