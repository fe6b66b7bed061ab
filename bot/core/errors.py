"""The game service's refusals: codes like the rules engine's, shown by the same `errors` router.

A `GameError` is a `ScoringError` (code, span, params, example), so one handler localises both; the
locales must name every code of `scoring.errors.ERROR_CODES` and of `GAME_ERROR_CODES` (a test checks).
"""

from __future__ import annotations

from typing import Final

from scoring.errors import ScoringError


class GameError(ScoringError):
    """A command the game in this chat cannot take now (no game, not your deal, too late…)."""


class AlreadyHandled(Exception):
    """This update was accepted before (Telegram delivered it twice): do nothing, answer nothing."""


GAME_ERROR_CODES: Final[frozenset[str]] = frozenset(
    {
        # /newgame
        "game-exists",  # a game is already open in this chat
        "bad-pool",  # `pool` without a number, or not a positive number
        "bad-stake",  # `stake` without a positive decimal
        "bad-player-count",  # players=N other than 3 or 4, or more names than seats
        "bad-name",  # a player's name a deal line cannot hold
        "same-name",  # two players with one name
        "unknown-dealer",  # dealer=X names nobody
        "group-only",  # a game lives in a group, not in a private chat
        # joining
        "no-game",  # no game in this chat
        "no-open-game",  # joining or leaving after the start
        "already-joined",
        "game-full",
        "not-joined",
        "scorekeeper-only",  # adding or removing a named player
        "stale-button",  # a button of another game, or of a game that moved on
        # recording
        "game-not-started",
        "game-ended",
        "adjust-by-vote",  # `adjust` lines are for votes and the arbiter (issue 6)
        "rule-change-needs-vote",  # `option name=value` as a deal: rules change only by /rule
        "nothing-to-undo",
        "not-author",  # only the author of the last record may undo or edit it
        "pencil-expired",
        "edit-mismatch",  # /edit of a deal with a last-round mark, or the other way round
        "last-round-not-allowed",  # /lastround outside Odessa's end rule
        "last-round-twice",
        # ending
        "vote-closed",
        "not-a-voter",
        "bad-locale",
        # disputes, late deals, the arbiter (issue 6, corrections.md)
        "bad-deal-number",  # /dispute without a deal number, or no deal has it
        "dispute-window",  # after the window only the record's writer may propose a correction
        "dispute-not-deal",  # the corrected record is not a deal (adjust, last-round)
        "no-change",  # the corrected deal is the deal as it stands
        "vote-open",  # a vote on this record (or a late deal) is already open
        "votes-pending",  # /endgame while a vote on a record is open
        "late-nothing-before",  # `late` with no deal to insert it before
        "late-window",  # the latest deal is older than dispute_grace_seconds
        "vote-same",  # the same vote again: nothing changes
        "arbiter-only",  # a vote waiting for the arbiter: only he decides
        "arbiter-waits",  # the arbiter pressed a vote that players are still deciding
        "arbiter-plays",  # the arbiter cannot be a player (nor vote for players)
        "bad-arbiter",  # arbiter=… that is not an @username or me
        "arbiter-same",  # /arbiter naming the arbiter already in office
        # mid-game rule changes (conventions.md §1.4)
        "bad-rule-change",  # /rule without `name=value`
        "rule-same",  # /rule setting an option to the value in force
    }
)
