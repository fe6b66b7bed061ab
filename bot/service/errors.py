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
        "nothing-to-undo",
        "not-author",  # only the author of the last record may undo or edit it
        "pencil-expired",
        "edit-mismatch",  # /edit of a deal with a last-round mark, or the other way round  # after pencil_seconds the pencil rule is over
        "last-round-not-allowed",  # /lastround outside Odessa's end rule
        "last-round-twice",
        # ending
        "vote-closed",
        "not-a-voter",
        "bad-locale",
    }
)
