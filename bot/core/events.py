"""The kinds of events in a game's append-only log and the JSON payload of each.

A game is its log: `bot.core.state.fold(events)` rebuilds everything else, and the sheet is
`scoring.replay.replay(game, records)` over the records the log leaves in force. Every event row also
carries `author` (Telegram user id, None for the bot) and `at` (UTC); a payload never repeats them.

Players in payloads are `{"name": str, "user_id": int | null, "username": str | null}`; a record is
its canonical notation line (`scoring.notation.format_record`), so the log reads like a protocol file.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, TypedDict


class Kind(StrEnum):
    # -- the game's life -------------------------------------------------------------------------
    GAME_CREATED = "game_created"
    """{convention, seats: 3|4, overrides: {option: value}, stake: "p/q"|null, dealer: ref|null,
    scorekeeper: player} — the creator keeps the score for named players."""
    PLAYER_JOINED = "player_joined"  # {player}
    PLAYER_LEFT = "player_left"  # {name}
    GAME_STARTED = "game_started"
    """{players: [player…] in seat order, first_dealer: seat, convention, overrides, rules: {every
    option: value}, rules_version, stake} — the rules frozen for the whole game."""
    GAME_ENDED = "game_ended"  # {reason: "end_rule" | "agreed" | "arbiter" | "cancelled"}

    # -- records (each one becomes a record of the replay) ------------------------------------
    DEAL = "deal"
    """{line, seat?: the writer's seat, before?: seq, vote?: seq} — `before`: a late deal inserted
    before that record by the vote `vote` (Кодекс 4.2.10); a line `option name=value` (with `vote`,
    no author) is a rule changed mid-game by that vote."""
    LAST_ROUND = "last_round"  # {line: "last-round"}
    PENALTY = "penalty"  # {line: "adjust …", vote: seq, target: seq} — a record penalty (4.2.7)

    # -- corrections of records ---------------------------------------------------------------
    DEAL_UNDONE = "deal_undone"  # {target: seq of the record, line} — pencil rule
    DEAL_EDITED = "deal_edited"
    """{target, line, old, vote?: seq, warning?: bool} — the pencil rule (no vote), or a passed
    correction vote; `warning`: the writer's first corrected error (4.2.7, no penalty)."""

    # -- votes: the opening event's seq is the vote's id ------------------------------------
    END_PROPOSED = "end_proposed"  # {threshold: "all", deadline: iso}
    CORRECTION_PROPOSED = "correction_proposed"
    """{target: seq, line, old, threshold: "majority"|"all", deadline, pencil: bool} — /dispute;
    `pencil`: proposed while the writer's pencil rule held (accepted free, 4.2.8)."""
    LATE_DEAL_PROPOSED = "late_deal_proposed"  # {line, before: seq, threshold: "all", deadline}
    ARBITER_PROPOSED = "arbiter_proposed"  # {arbiter: player, threshold: "all", deadline}
    RULE_CHANGE_PROPOSED = "rule_change_proposed"
    """{line: "option name=value", old: the value in force then, threshold: "all", deadline} — /rule
    (conventions.md §1.4); once passed, the line follows as a `deal` {line, vote} at the log's end."""
    VOTE_CAST = "vote_cast"  # {vote: seq, yes: bool, username} — a later cast replaces his
    VOTE_REFERRED = "vote_referred"
    """{vote, reason: "tie" | "timeout"} — the vote waits for the arbiter's decision."""
    VOTE_CLOSED = "vote_closed"
    """{vote: seq, passed: bool, reason: "certain" | "timeout" | "arbiter" | "cancelled" |
    "conflict"}; what a passed vote changes follows as its own events (game_ended, deal_edited
    and penalty, deal, arbiter_named). "conflict": it passed but the log had moved on (the
    record was changed meanwhile, or the engine refuses the result), so nothing changed."""
    VOTE_POSTED = "vote_posted"
    """{vote, message_id} — the chat message showing the vote (technical: to edit it later)."""
    ARBITER_NAMED = "arbiter_named"  # {arbiter: player, vote?: seq}


RECORD_KINDS: Final = frozenset({Kind.DEAL, Kind.LAST_ROUND, Kind.PENALTY})
VOTE_KINDS: Final = frozenset(
    {
        Kind.END_PROPOSED,
        Kind.CORRECTION_PROPOSED,
        Kind.LATE_DEAL_PROPOSED,
        Kind.ARBITER_PROPOSED,
        Kind.RULE_CHANGE_PROPOSED,
    }
)
RECORD_VOTE_KINDS: Final = frozenset({Kind.CORRECTION_PROPOSED, Kind.LATE_DEAL_PROPOSED})


class PlayerPayload(TypedDict):
    name: str
    user_id: int | None
    username: str | None


Payload = dict[str, Any]
