"""The application core: commands over a game's event log, no aiogram (see `bot.core.service.GameService`)."""

from bot.core.errors import GAME_ERROR_CODES, AlreadyHandled, GameError, GaveUp, Redeliver, Unsaved
from bot.core.events import Kind
from bot.core.newgame import NewGame, parse_newgame
from bot.core.service import Caller, Clock, GameService, split_late, utc_now
from bot.core.state import GameState, Player, RecordItem, Vote
from bot.core.uow import UnitOfWork
from bot.core.votes import tally, tied

__all__ = [
    "GAME_ERROR_CODES",
    "AlreadyHandled",
    "Caller",
    "Clock",
    "GameError",
    "GameService",
    "GameState",
    "GaveUp",
    "Kind",
    "NewGame",
    "Player",
    "RecordItem",
    "Redeliver",
    "UnitOfWork",
    "Unsaved",
    "Vote",
    "parse_newgame",
    "split_late",
    "tally",
    "tied",
    "utc_now",
]
