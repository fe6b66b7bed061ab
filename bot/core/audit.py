"""The audit of a game for `/export` (corrections.md "Audit"): `#` comments for the protocol file,
and the event log as JSON.

The protocol holds the records as they stand after every correction (penalties as `adjust` lines),
so `python -m scoring replay` on it gives the balances the bot shows; what was superseded — undone
and corrected records, votes and who voted how, the arbiter — is written beside them as comments
in plain English (a file, like the JSON log, is not in the chat's language).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime
from fractions import Fraction
from typing import Any

from bot.core.events import RECORD_KINDS, Kind
from bot.core.state import GameState, Vote
from bot.core.uow import index_of, parse_stored, records_of, table
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


def protocol_comments(state: GameState, records: Sequence[Record]) -> dict[int, list[str]]:
    """Comment lines per record index (written after that record) telling the game's history
    beside its records: pencil edits and undos, votes with their ballots, penalties, the arbiter.
    An event belongs after the newest record in force written before it (a correction: after
    the record it corrects)."""
    in_force = state.records
    assert len(in_force) == len(records)
    index = {item.seq: i for i, item in enumerate(in_force)}
    numbers: dict[int, int] = {}
    for item in in_force:
        if item.kind is Kind.DEAL and item.rule_change is None:
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

    for event in state.log:
        p = event.payload
        kind = Kind(event.kind)
        who = state.player_name(event.author) or "the bot"
        when = event.at.strftime("%Y-%m-%d %H:%M UTC")
        if kind in RECORD_KINDS and event.seq in index and p.get("vote") is not None:
            if kind is Kind.DEAL and state.item(event.seq).rule_change is not None:
                add(index[event.seq], f"rule changed mid-game by vote {p['vote']}")
            elif kind is Kind.DEAL:
                add(
                    index[event.seq],
                    f"{label(event.seq)} is a late deal, inserted by vote {p['vote']}",
                )
            else:
                add(
                    index[event.seq], f"record penalty for {label(p['target'])} (vote {p['vote']})"
                )
        elif kind is Kind.DEAL_UNDONE:
            add(anchor(p["target"]), f"undone by {who} under the pencil rule, {when}: {p['line']}")
        elif kind is Kind.DEAL_EDITED and p.get("vote") is None:
            text = f"{label(p['target'])} edited by {who} under the pencil rule, {when}; was: {p['old']}"
            add(index.get(p["target"], anchor(event.seq)), text)
        elif kind is Kind.DEAL_EDITED and p.get("warning"):
            writer = state.player_name(state.item(p["target"]).author) or "?"
            text = f"{label(p['target'])}: {writer}'s first corrected error — a warning"
            add(index.get(p["target"], anchor(event.seq)), text)
        elif kind is Kind.VOTE_CLOSED:
            _vote_comment(state, state.votes[p["vote"]], add, anchor, label, index)
        elif kind is Kind.ARBITER_NAMED:
            arbiter = p.get("arbiter") or {}
            shown = arbiter.get("username") or arbiter.get("name") or "nobody"
            add(anchor(event.seq), f"arbiter: {shown}, named {when}")
        elif kind is Kind.GAME_ENDED:
            add(anchor(event.seq), f"game ended ({p['reason']}), {when}")
    return dict(comments)


def _vote_comment(
    state: GameState,
    vote: Vote,
    add: Callable[[int | None, str], None],
    anchor: Callable[[int], int | None],
    label: Callable[[int], str],
    index: dict[int, int],
) -> None:
    p = vote.payload
    who = state.player_name(vote.author) or "?"
    topic = _VOTE_TOPIC.get(vote.kind, vote.kind.value)
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
    head = f"vote {vote.seq} ({p.get('threshold', 'all')}), {who}: {topic}"
    if vote.kind is Kind.CORRECTION_PROPOSED:
        target = p["target"]
        text = f"{head} {label(target)}: {p['old']} -> {p['line']}"
        at = index.get(target, anchor(vote.seq))
    elif vote.kind is Kind.LATE_DEAL_PROPOSED:
        text = f"{head} before {label(p['before'])}: {p['line']}"
        at = index.get(p["before"], anchor(vote.seq))
    elif vote.kind is Kind.RULE_CHANGE_PROPOSED:
        text = f"{head}: {p['line']} (was {p.get('old', '?')})"
        at = anchor(vote.seq)
    elif vote.kind is Kind.ARBITER_PROPOSED:
        arbiter = p["arbiter"]
        text = f"{head} {arbiter.get('username') or arbiter.get('name')}"
        at = anchor(vote.seq)
    else:
        text, at = head, anchor(vote.seq)
    add(at, f"{text}; {result}; ballots: {ballots_text(state, vote)}")


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
            for e in state.log
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def corrected_values(state: GameState, sheet: Sheet) -> CorrectedValues:
    """Running totals a vote corrected, as paper shows them: (band, record index) → (the value
    first written there, the correction's number) — corrections.md "Audit"."""
    out: CorrectedValues = {}
    if state.rules is None:
        return out
    records = records_of(state)
    tab = table(state)
    number = 0
    for event in state.log:
        if event.kind != Kind.DEAL_EDITED or event.payload.get("vote") is None:
            continue
        number += 1
        index = index_of(state, event.payload["target"])
        if index is None:
            continue
        try:
            old = parse_stored(event.payload["old"], tab)
            wrong = replay(state.game(), [*records[:index], old])
        except ScoringError:
            continue
        for band, values in wrong.history.items():
            written = [total for at, total in values if at == index]
            right = [total for at, total in sheet.history.get(band, ()) if at == index]
            if written and right and written[-1] != right[-1]:
                out[(band, index)] = (written[-1], number)
    return out
