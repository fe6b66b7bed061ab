"""The game service's refusals: codes like the rules engine's, shown by its `errors` router."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from scoring.errors import ScoringError

if TYPE_CHECKING:
    from bot.domain import Owed


class GameError(ScoringError):
    """A command the game in this chat cannot take now (no game, not your deal, too late…)."""

    def __init__(
        self,
        code: str,
        span: str = "",
        params: Mapping[str, str] | None = None,
        example: str = "",
    ) -> None:
        super().__init__(GameErrorCode(code).value, span, params, example)


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
        self.owed = owed
        self.records = records


class Transient(Exception):
    """A transient database failure: the work is tried again (`bot.core.attempts.retrying`)."""


class GaveUp(Exception):
    """The bot will not try this update again: the chat is told that nothing was recorded."""


class GameErrorCode(StrEnum):
    """Every refusal of the application core; the locales name each as `error-<code>`."""

    GAME_EXISTS = "game-exists"  # a game is already open in this chat
    BAD_POOL = "bad-pool"  # `pool` without a number, or not a positive number
    BAD_STAKE = "bad-stake"  # `stake` without a positive decimal
    BAD_PLAYER_COUNT = "bad-player-count"  # players=N other than 3 or 4, or more names than seats
    BAD_NAME = "bad-name"  # a player's name a deal line cannot hold
    SAME_NAME = "same-name"  # two players with one name
    UNKNOWN_DEALER = "unknown-dealer"  # dealer=X names nobody
    GROUP_ONLY = "group-only"  # a game lives in a group, not in a private chat
    NO_GAME = "no-game"  # no game in this chat
    NO_OPEN_GAME = "no-open-game"  # joining or leaving after the start
    ALREADY_JOINED = "already-joined"
    GAME_FULL = "game-full"
    NOT_JOINED = "not-joined"
    SCOREKEEPER_ONLY = "scorekeeper-only"  # adding or removing a named player
    STALE_BUTTON = "stale-button"  # a button of another game, or of a game that moved on
    SEAT_CLAIMED = "seat-claimed"  # "this is me" on a seat another account holds
    SEAT_NOT_YOURS = "seat-not-yours"  # "this is me" by an account the seat's @username is not
    GAME_NOT_STARTED = "game-not-started"
    GAME_ENDED = "game-ended"
    ADJUST_BY_VOTE = "adjust-by-vote"  # `adjust` lines are for votes and the arbiter
    # `option name=value` as a deal: rules change only by /rule
    RULE_CHANGE_NEEDS_VOTE = "rule-change-needs-vote"
    NOTHING_TO_UNDO = "nothing-to-undo"
    NOT_AUTHOR = "not-author"  # only the author of the last record may undo or edit it
    EDITED_DEAL = "edited-deal"  # an edited /deal that is not the sender's last, pencilled record
    PENCIL_EXPIRED = "pencil-expired"
    # /edit of a deal with a last-round mark, or the other way round
    EDIT_MISMATCH = "edit-mismatch"
    LAST_ROUND_NOT_ALLOWED = "last-round-not-allowed"  # /lastround outside Odessa's end rule
    LAST_ROUND_TWICE = "last-round-twice"
    VOTE_CLOSED = "vote-closed"
    NOT_A_VOTER = "not-a-voter"
    BAD_LOCALE = "bad-locale"
    BAD_ZONE = "bad-zone"  # /tz with a name that is no IANA time zone
    ZONE_PLAYERS_ONLY = "zone-players-only"  # /tz by someone outside the game being played
    BAD_GAME_NUMBER = "bad-game-number"  # /game, /history N… with something that is no number
    NO_SUCH_GAME = "no-such-game"  # /game N: the chat has no game N
    UNKNOWN_STATS_PLAYER = "unknown-stats-player"  # /stats Name: nobody of that name played here
    BAD_STATS_FILTER = "bad-stats-filter"  # /top with a word that is no period nor convention
    LANG_PLAYERS_ONLY = "lang-players-only"  # /lang by someone outside the game being played
    NAMED_SEAT = "named-seat"  # a Telegram user seated by name: the scorekeeper records for him
    ENDGAME_PLAYERS_ONLY = "endgame-players-only"  # /endgame by someone outside the game
    BAD_DEAL_NUMBER = "bad-deal-number"  # /dispute without a deal number, or no deal has it
    # after the window only the record's writer may propose a correction
    DISPUTE_WINDOW = "dispute-window"
    # the corrected record is not a deal (adjust, last-round)
    DISPUTE_NOT_DEAL = "dispute-not-deal"
    NO_CHANGE = "no-change"  # the corrected deal is the deal as it stands
    VOTE_OPEN = "vote-open"  # a vote on this record (or a late deal) is already open
    VOTES_PENDING = "votes-pending"  # /endgame while a vote on a record is open
    LATE_NOTHING_BEFORE = "late-nothing-before"  # `late` with no deal to insert it before
    # a forgotten deal makes a later deal's dealer play
    LATE_SHIFTS_ROTATION = "late-shifts-rotation"
    LATE_WINDOW = "late-window"  # the latest deal is older than dispute_grace_seconds
    VOTE_SAME = "vote-same"  # the same vote again: nothing changes
    ARBITER_ONLY = "arbiter-only"  # a vote waiting for the arbiter: only he decides
    ARBITER_WAITS = "arbiter-waits"  # the arbiter pressed a vote that players are still deciding
    ARBITER_PLAYS = "arbiter-plays"  # the arbiter cannot be a player (nor vote for players)
    BAD_ARBITER = "bad-arbiter"  # arbiter=… that is not an @username or me
    ARBITER_SAME = "arbiter-same"  # /arbiter naming the arbiter already in office
    BAD_RULE_CHANGE = "bad-rule-change"  # /rule without `name=value`
    RULE_SAME = "rule-same"  # /rule setting an option to the value in force
    UNDO_TAKES_NOTHING = "undo-takes-nothing"  # text after /undo: it takes no argument
    # settling up
    DEBT_CLOSED = "debt-closed"  # a "paid" press on a debt already received
    DEBT_PAID_ALREADY = "debt-paid-already"  # the debtor's second "I paid"
    DEBT_NOT_YOURS = "debt-not-yours"  # a press by neither the debtor nor the creditor
    DEBT_NAME_MISSING = "debt-name-missing"  # /paid without whom
    DEBT_NONE_FROM = "debt-none-from"  # /paid naming someone who owes the caller nothing here
    BAD_PERIOD = "bad-period"  # /remind with neither a period nor off
    # tournaments (bot/core/tournaments.py)
    TOURNAMENT_USAGE = "tournament-usage"  # /tournament new without a name and a convention
    TOURNAMENT_SCORING = "tournament-scoring"  # scoring=… other than whists or places
    TOURNAMENT_UNKNOWN = "tournament-unknown"  # /tournament join with a code nobody made
    TOURNAMENT_JOINED = "tournament-joined"  # the table already plays in it
    TOURNAMENT_NONE = "tournament-none"  # no tournament at home or played here
    TOURNAMENT_CREATOR_ONLY = "tournament-creator-only"  # rounds and the judge: its creator's
    TOURNAMENT_ROUND_OPEN = "tournament-round-open"  # a round is already open
    TOURNAMENT_NO_ROUND = "tournament-no-round"  # no round open (closing one, a table's game)
    TOURNAMENT_RULES = "tournament-rules"  # a table's /newgame under other rules
    TOURNAMENT_PLAYED = "tournament-played"  # the table has played its game of this round
    TOURNAMENT_NO_TABLE = "tournament-no-table"  # a table number the tournament has not
    TOURNAMENT_JUDGE_ONLY = "tournament-judge-only"  # deciding a table's vote from home
    TOURNAMENT_NO_VOTE = "tournament-no-vote"  # no vote of that table waits for the judge


GAME_ERROR_CODES: Final[frozenset[str]] = frozenset(code.value for code in GameErrorCode)
