"""The archive: a chat's and an account's games a page at a time, one game by number, its audit."""

import json
import re
from collections import OrderedDict, defaultdict
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

from bot.core import events as ev
from bot.core.base import Core, index_of, parse_stored, records_of, settlement, table
from bot.core.errors import GameError
from bot.core.events import EndReason, Kind
from bot.core.results import Exported, Snapshot
from bot.core.state import GameState, Vote, fold
from bot.core.stats import summaries
from bot.core.uow import UnitOfWork
from bot.core.zones import zone_of_chat
from bot.domain import GameRow, GameStatus, Store
from scoring.errors import ScoringError
from scoring.notation import format_protocol
from scoring.replay import replay
from scoring.sheet import Band, Sheet

PAGE_SIZE: Final = 10
_NUMBER: Final = re.compile(r"[#№]?(\d{1,9})")


def parse_number(text: str, command: str) -> int:
    """A game's number as typed after a command (`2`, `#2`, `№2`); `bad-game-number` otherwise."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise GameError("bad-game-number", f"{command} {text.strip()}", {}, "/game 1")
    return int(match.group(1))


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game in a list: `balances` and `money` (seat order) once it ended after a deal."""

    game_id: int
    chat_id: int
    number: int
    created_at: datetime
    convention: str
    names: tuple[str, ...]
    status: GameStatus
    reason: EndReason | None = None
    deals: int | None = None
    balances: tuple[Fraction, ...] | None = None
    money: tuple[Decimal, ...] | None = None
    chat_title: str | None = None  # in an account's list, which chat


@dataclass(frozen=True, slots=True)
class GamesPage:
    """A page of a list, newest first (`page` counts from 0), and the zone its dates are in."""

    lines: tuple[GameLine, ...]
    page: int
    pages: int
    total: int
    zone: tzinfo


def page_bounds(total: int, page: int) -> tuple[int, int]:
    """The page asked for, kept within the list, and how many pages there are."""
    pages = max(1, -(-total // PAGE_SIZE))
    return min(max(page, 0), pages - 1), pages


async def _lines(core: Core, rows: list[GameRow], user_id: int | None = None) -> list[GameLine]:
    """Each game's line (with `user_id`: of the games that account sits in)."""
    ended = {s.game_id: s for s in await summaries(core.store, rows)}
    lines = []
    async with core.store.reading() as repo:
        for row in rows:
            head = (row.game_id, row.chat_id, row.chat_number, row.created_at)
            if row.status is not GameStatus.ENDED:
                state = await core.fold(repo, row)
                players = tuple(state.players)
                line = GameLine(*head, state.convention, state.names, row.status)
            else:
                s = ended[row.game_id]
                players, plays, money = s.players, s.plays, None
                if plays is not None and all(p.money is not None for p in plays):
                    money = tuple(p.money for p in plays if p.money is not None)
                balances = None if plays is None else tuple(p.balance for p in plays)
                names = tuple(p.name for p in players)
                line = GameLine(
                    *head, s.convention, names, row.status, s.reason, s.deals, balances, money
                )
            if user_id is None or any(p.user_id == user_id for p in players):
                lines.append(line)
    return lines


async def chat_games(core: Core, chat_id: int, page: int, lang: str) -> GamesPage:
    async with core.store.reading() as repo:
        rows = await repo.chat_games(chat_id)
    page, pages = page_bounds(len(rows), page)
    shown = await _lines(core, rows[page * PAGE_SIZE : (page + 1) * PAGE_SIZE])
    zone = await zone_of_chat(core.store, chat_id, lang)
    return GamesPage(tuple(shown), page, pages, len(rows), zone)


async def account_games(core: Core, user_id: int, chat_id: int, page: int, lang: str) -> GamesPage:
    """A page of the games the account sits in, in every chat, newest first (zone of `chat_id`)."""
    async with core.store.reading() as repo:
        rows = await repo.account_games(user_id)
    lines = await _lines(core, rows, user_id)
    page, pages = page_bounds(len(lines), page)
    async with core.store.reading() as repo:
        shown = [
            replace(line, chat_title=(await repo.chat_settings(line.chat_id)).title)
            for line in lines[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
        ]
    zone = await zone_of_chat(core.store, chat_id, lang)
    return GamesPage(tuple(shown), page, pages, len(lines), zone)


async def game_state(core: Core, chat_id: int, number: int) -> GameState:
    """The chat's game `number` as its log stands (`no-such-game` when the chat has none)."""
    async with core.store.reading() as repo:
        row = await repo.chat_game(chat_id, number)
        if row is None:
            raise GameError("no-such-game", f"#{number}", {"number": str(number)}, "/games")
        if row.status is not GameStatus.ENDED:
            return await core.fold(repo, row)
        events = await repo.events(row.game_id)
    state = fold(row.game_id, events)  # an ended game: kept out of the live games' caches
    state.log = events
    state.chat_id, state.number, state.thread_id = row.chat_id, row.chat_number, row.thread_id
    return state


async def game_snapshot(core: Core, chat_id: int, number: int) -> Snapshot:
    """Game `number` of the chat with its sheet and settlement (None before its start)."""
    state = await game_state(core, chat_id, number)
    if state.rules is None:
        return Snapshot(state, None, None)
    ended = state.status is GameStatus.ENDED
    sheet = replay(state.game(), records_of(state)) if ended else core.sheet(state)
    return Snapshot(state, sheet, settlement(state, sheet))


async def read_log(reader: UnitOfWork | Store, state: GameState) -> GameState:
    """`state` with its whole log, read for /history or the export (a kept game holds none)."""
    if state.log is None:
        async with reader.reading() as repo:
            state.log = [e for e in await repo.events(state.game_id) if e.seq <= state.last_seq]
    return state


async def exported(
    reader: UnitOfWork | Store, state: GameState, now: datetime, zone: tzinfo = UTC
) -> Exported:
    """The protocol file and the JSON log: each event's seq, kind, payload, author id, UTC time."""
    await read_log(reader, state)
    if state.rules is None:
        missing = str(state.seats - len(state.players))
        raise GameError("game-not-started", "/export", {"missing": missing}, "/join")
    protocol = format_protocol(state.game(), records_of(state), protocol_comments(state, zone))
    document: dict[str, Any] = {
        "game": state.game_id,
        "exported_at": now.isoformat(),
        "players": [p.payload() for p in state.players],
        "events": [  # each row but its game, which the document names once
            {k: v for k, v in asdict(e).items() if k != "game_id"} | {"at": e.at.isoformat()}
            for e, _ in state.logged()
        ],
    }
    return Exported(state, protocol, json.dumps(document, ensure_ascii=False, indent=1) + "\n")


# -- the audit (corrections.md "Audit"): the protocol's comments, the corrected values ------------
CorrectedValues = dict[tuple[Band, int], tuple[Fraction, int]]

_VOTE_TOPIC = {
    Kind.END_PROPOSED: "end the game now",
    Kind.CORRECTION_PROPOSED: "correct a record",
    Kind.LATE_DEAL_PROPOSED: "insert a forgotten deal",
    Kind.ARBITER_PROPOSED: "name an arbiter",
    Kind.RULE_CHANGE_PROPOSED: "change a rule from the next record on",
}


def protocol_comments(state: GameState, zone: tzinfo = UTC) -> dict[int, list[str]]:
    """Comment lines per record index telling the game's history beside its records (in `zone`)."""
    in_force = state.records
    index = {item.seq: i for i, item in enumerate(in_force)}
    deals = [item.seq for item in in_force if item.kind is Kind.DEAL and item.change is None]
    numbers = {seq: number for number, seq in enumerate(deals, start=1)}
    comments: defaultdict[int, list[str]] = defaultdict(list)

    def anchor(seq: int) -> int | None:
        """The index of the newest record in force written before event `seq`."""
        earlier = (index[item.seq] for item in in_force if item.seq < seq)
        return max(earlier, default=0 if in_force else None)

    def add(at: int | None, text: str) -> None:
        if at is not None:
            comments[at].append(text)

    def label(seq: int) -> str:
        return f"#{numbers[seq]}" if seq in numbers else f"record {seq}"

    def vote_comment(vote: Vote) -> None:
        event = vote.event
        who = state.player_name(vote.author) or "?"
        topic = _VOTE_TOPIC.get(vote.kind, vote.kind.value)
        head = f"vote {vote.seq} ({event.threshold}), {who}: {topic}"
        text, at = head, anchor(vote.seq)  # a record's vote beside that record, when in force
        match event:
            case ev.CorrectionProposed():
                text = f"{head} {label(event.target)}: {event.old} -> {event.line}"
                at = index.get(event.target, at)
            case ev.LateDealProposed():
                text = f"{head} before {label(event.before)}: {event.line}"
                at = index.get(event.before, at)
            case ev.RuleChangeProposed():
                text = f"{head}: {event.line} (was {event.old})"
            case ev.ArbiterProposed(arbiter=named):
                text = f"{head} {named.username or named.name}"
        ballots = ", ".join(  # `Anna yes, Boris yes, Clara no`
            f"{state.player_name(u) or vote.usernames.get(u) or u} {'yes' if yes else 'no'}"
            for u, yes in vote.ballots.items()
        )
        conflict = "passed, but the log had moved on: nothing changed"
        result = "passed" if vote.passed else conflict if vote.reason == "conflict" else "rejected"
        how = {"certain": "", "timeout": ", time was up", "arbiter": ", by the arbiter"}
        result += how.get(vote.reason or "", f", {vote.reason}")
        if vote.referred:
            result += f" (went to the arbiter: {vote.referred})"
        add(at, f"{text}; {result}; ballots: {ballots or 'no ballots'}")

    for row, event in state.logged():
        seq = row.seq
        who = state.player_name(row.author) or "the bot"
        when = row.at.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")
        match event:
            case ev.RuleChanged(vote=int(vote)) if seq in index:
                add(index[seq], f"rule changed mid-game by vote {vote}")
            case ev.Dealt(vote=int(vote)) if seq in index:
                add(index[seq], f"{label(seq)} is a late deal, inserted by vote {vote}")
            case ev.Penalized() if seq in index:
                add(index[seq], f"record penalty for {label(event.target)} (vote {event.vote})")
            case ev.DealUndone():
                text = f"undone by {who} under the pencil rule, {when}: {event.line}"
                add(anchor(event.target), text)
            case ev.DealEdited(vote=None):
                text = f"{label(event.target)} edited by {who} under the pencil rule, {when}; "
                add(index.get(event.target, anchor(seq)), f"{text}was: {event.old}")
            case ev.DealEdited(warning=True):
                writer = state.player_name(state.item(event.target).author) or "?"
                text = f"{label(event.target)}: {writer}'s first corrected error — a warning"
                add(index.get(event.target, anchor(seq)), text)
            case ev.VoteClosed():
                vote_comment(state.votes[event.vote])
            case ev.ArbiterNamed(arbiter=named):
                shown = "nobody" if named is None else named.username or named.name
                add(anchor(seq), f"arbiter: {shown}, named {when}")
            case ev.GameEnded():
                add(anchor(seq), f"game ended ({event.reason}), {when}")
    return dict(comments)


Known = OrderedDict[tuple[int, int, int], CorrectedValues]
"""Corrected values worked out, by (game, `GameState.revised`, corrections passed)."""
CORRECTED_KEPT: Final = 256


def corrected_values(
    state: GameState, sheet: Sheet, known: Known | None = None
) -> CorrectedValues:
    """Running totals a vote corrected (corrections.md "Audit"): cell → (first value, number)."""
    out: CorrectedValues = {}
    if state.rules is None or not state.corrections:
        return out
    key = (state.game_id, state.revised, len(state.corrections))
    known = OrderedDict() if known is None else known
    if (kept := known.get(key)) is not None:
        known.move_to_end(key)
        return dict(kept)
    records = records_of(state)
    tab = table(state)
    for number, event in enumerate(state.corrections, start=1):
        if (index := index_of(state, event.target)) is None:
            continue
        try:
            old = parse_stored(state.canonical(event.old), tab)
            wrong = replay(state.game(), [*records[:index], old])
        except ScoringError:
            continue
        for band, values in wrong.history.items():
            written = [total for at, total in values if at == index]
            right = [total for at, total in sheet.history.get(band, ()) if at == index]
            # a band the record no longer writes in keeps its wrong value too (grey, numbered)
            if written and (not right or written[-1] != right[-1]):
                out[(band, index)] = (written[-1], number)
    known[key] = dict(out)
    while len(known) > CORRECTED_KEPT:
        known.popitem(last=False)
    return out
