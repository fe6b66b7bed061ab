"""The game service's refusals: codes like the rules engine's, shown by its `errors` router."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from scoring.errors import ScoringError

if TYPE_CHECKING:
    from bot.domain import Owed


class GameError(ScoringError):
    """A command the game in this chat cannot take now (no game, not your deal, too late…)."""

    def __init__(
        self, code: str, span: str = "", params: Mapping[str, str] | None = None, example: str = ""
    ) -> None:
        if code not in GAME_ERROR_CODES:
            raise ValueError(f"no such game error: {code}")
        super().__init__(code, span, params, example)


class AlreadyHandled(Exception):
    """This update was accepted before (Telegram delivered it twice): do nothing, answer nothing."""


class Redeliver(Exception):
    """The database failed on every attempt: nothing was committed, the update is to come again."""

    def __init__(self, reason: str, *, unwritable: bool = False) -> None:
        super().__init__(reason)
        self.unwritable = unwritable


class Unsaved(Exception):
    """The database takes no writes (disk full, read-only): nothing was committed."""

    def __init__(self, owed: tuple[Owed, ...], records: bool) -> None:
        super().__init__("the database takes no writes")
        self.owed, self.records = owed, records


class Transient(Exception):
    """A transient database failure: the work is tried again (`bot.core.attempts.retrying`)."""


class GaveUp(Exception):
    """The bot will not try this update again: the chat is told that nothing was recorded."""


# Every refusal of the application core; the locales name each as `error-<code>`.
_CODES: Final = """
    game-exists bad-pool bad-stake bad-player-count bad-name same-name unknown-dealer group-only
    no-game no-open-game already-joined game-full not-joined scorekeeper-only stale-button
    seat-claimed seat-not-yours game-not-started game-ended adjust-by-vote rule-change-needs-vote
    nothing-to-undo not-author edited-deal pencil-expired edit-mismatch last-round-not-allowed
    last-round-twice vote-closed not-a-voter bad-locale bad-zone zone-players-only bad-game-number
    no-such-game unknown-stats-player bad-stats-filter lang-players-only named-seat
    endgame-players-only bad-deal-number dispute-window dispute-not-deal no-change vote-open
    votes-pending late-nothing-before late-shifts-rotation late-window vote-same arbiter-only
    arbiter-waits arbiter-plays bad-arbiter arbiter-same bad-rule-change rule-same
    undo-takes-nothing debt-closed debt-paid-already debt-not-yours debt-name-missing
    debt-none-from bad-period tournament-usage tournament-scoring tournament-unknown
    tournament-joined tournament-none tournament-creator-only tournament-round-open
    tournament-no-round tournament-rules tournament-played tournament-no-table
    tournament-judge-only tournament-no-vote
"""
GAME_ERROR_CODES: Final = frozenset(_CODES.split())
