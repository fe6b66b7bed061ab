"""The audit of a game for `/export` (corrections.md "Audit"): protocol comments, JSON log."""

from __future__ import annotations

import json
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from fractions import Fraction
from typing import Any, Final

from bot.core import events as ev
from bot.core.base import index_of, parse_stored, records_of, table
from bot.core.events import Kind, Player
from bot.core.state import GameState, Vote
from scoring.deal import Record
from scoring.errors import ScoringError
from scoring.replay import replay
from scoring.sheet import Band, Sheet

CorrectedValues = dict[tuple[Band, int], tuple[Fraction, int]]

_VOTE_TOPIC = {
    Kind.END_PROPOSED: "end the game now",
    Kind.CORRECTION_PROPOSED: "correct a record",
    Kind.LATE_DEAL_PROPOSED: "insert a forgotten deal",
    Kind.ARBITER_PROPOSED: "name an arbiter",
    Kind.RULE_CHANGE_PROPOSED: "change a rule from the next record on",
}


def ballots_text(state: GameState, vote: Vote) -> str:
    """`Anna yes, Boris yes, Clara no` — the standing ballots of a vote."""
    parts = []
    for user_id, yes in vote.ballots.items():
        name = state.player_name(user_id) or vote.usernames.get(user_id) or str(user_id)
        parts.append(f"{name} {'yes' if yes else 'no'}")
    return ", ".join(parts) or "no ballots"


def protocol_comments(
    state: GameState, records: Sequence[Record], zone: tzinfo = UTC
) -> dict[int, list[str]]:
    """Comment lines per record index telling the game's history beside its records (in `zone`)."""
    in_force = state.records
    assert len(in_force) == len(records)
    index = {item.seq: i for i, item in enumerate(in_force)}
    numbers: dict[int, int] = {}
    for item in in_force:
        if item.kind is Kind.DEAL and item.change is None:
            numbers[item.seq] = len(numbers) + 1
    comments: defaultdict[int, list[str]] = defaultdict(list)

    def anchor(seq: int) -> int | None:
        """The index of the newest record in force written before event `seq`."""
        earlier = [index[item.seq] for item in in_force if item.seq < seq]
        if earlier:
            return max(earlier)
        return 0 if in_force else None

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
        match event:
            case ev.CorrectionProposed():
                text = f"{head} {label(event.target)}: {event.old} -> {event.line}"
                at = index.get(event.target, anchor(vote.seq))
            case ev.LateDealProposed():
                text = f"{head} before {label(event.before)}: {event.line}"
                at = index.get(event.before, anchor(vote.seq))
            case ev.RuleChangeProposed():
                text, at = f"{head}: {event.line} (was {event.old})", anchor(vote.seq)
            case ev.ArbiterProposed():
                text, at = f"{head} {_shown(event.arbiter)}", anchor(vote.seq)
            case _:
                text, at = head, anchor(vote.seq)
        add(at, f"{text}; {_result(vote)}; ballots: {ballots_text(state, vote)}")

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
            case ev.ArbiterNamed():
                shown = _shown(event.arbiter) if event.arbiter is not None else "nobody"
                add(anchor(seq), f"arbiter: {shown}, named {when}")
            case ev.GameEnded():
                add(anchor(seq), f"game ended ({event.reason}), {when}")
    return dict(comments)


def _result(vote: Vote) -> str:
    if vote.passed:
        result = "passed"
    elif vote.reason == "conflict":
        result = "passed, but the log had moved on: nothing changed"
    else:
        result = "rejected"
    how = {"certain": "", "timeout": ", time was up", "arbiter": ", by the arbiter"}
    result += how.get(vote.reason or "", f", {vote.reason}")
    if vote.referred:
        result += f" (went to the arbiter: {vote.referred})"
    return result


def _shown(player: Player) -> str:
    return player.username or player.name


def event_log_json(state: GameState, exported_at: datetime) -> str:
    """Every event of the game as JSON: seq, kind, payload, author (Telegram id), at (UTC)."""
    document: dict[str, Any] = {
        "game": state.game_id,
        "exported_at": exported_at.isoformat(),
        "players": [p.payload() for p in state.players],
        "events": [
            {
                "seq": e.seq,
                "kind": e.kind,
                "payload": e.payload,
                "author": e.author,
                "at": e.at.isoformat(),
                "schema_version": e.schema_version,
            }
            for e, _ in state.logged()
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


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
    kept = None if known is None else known.get(key)
    if kept is not None and known is not None:
        known.move_to_end(key)
        return dict(kept)
    records = records_of(state)
    tab = table(state)
    for number, event in enumerate(state.corrections, start=1):
        index = index_of(state, event.target)
        if index is None:
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
    if known is not None:
        known[key] = dict(out)
        while len(known) > CORRECTED_KEPT:
            known.popitem(last=False)
    return out
