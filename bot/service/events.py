"""The kinds of events in a game's append-only log and the JSON payload of each.

A game is its log: `bot.service.state.fold(events)` rebuilds everything else, and the sheet is
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
    GAME_ENDED = "game_ended"  # {reason: "end_rule" | "agreed" | "cancelled"}

    # -- records (each one becomes a record of the replay) ------------------------------------
    DEAL = "deal"  # {line, before?: seq} — `before` (issue 6, late deals): inserted before that record
    LAST_ROUND = "last_round"  # {line: "last-round"}
    PENALTY = (
        "penalty"  # {line: "adjust …", vote?: seq} (issue 6: record penalties, arbiter entries)
    )

    # -- corrections of records ---------------------------------------------------------------
    DEAL_UNDONE = "deal_undone"  # {target: seq of the record, line} — pencil rule
    DEAL_EDITED = "deal_edited"  # {target, line, old, vote?: seq} — pencil rule, or a passed vote

    # -- votes: the opening event's seq is the vote's id ------------------------------------
    END_PROPOSED = "end_proposed"  # {threshold: "all", deadline: iso}
    CORRECTION_PROPOSED = "correction_proposed"
    """Issue 6: {target, line, old, threshold: "majority"|"all", deadline}."""
    LATE_DEAL_PROPOSED = (
        "late_deal_proposed"  # issue 6: {line, before, threshold: "all", deadline}
    )
    VOTE_CAST = "vote_cast"  # {vote: seq, yes: bool} — the author votes; a later cast replaces his
    VOTE_CLOSED = "vote_closed"
    """{vote: seq, passed: bool, reason: "certain" | "timeout" | "arbiter" | "cancelled"}; what a
    passed vote changes follows as its own event (game_ended, deal_edited, deal, penalty)."""
    ARBITER_NAMED = "arbiter_named"  # issue 6: {arbiter: player}


RECORD_KINDS: Final = frozenset({Kind.DEAL, Kind.LAST_ROUND, Kind.PENALTY})
VOTE_KINDS: Final = frozenset(
    {Kind.END_PROPOSED, Kind.CORRECTION_PROPOSED, Kind.LATE_DEAL_PROPOSED}
)


class PlayerPayload(TypedDict):
    name: str
    user_id: int | None
    username: str | None


Payload = dict[str, Any]
