"""The application core: commands over a game's event log, run in units of work; no aiogram."""

from bot.core.base import Caller, Clock, Core, utc_now
from bot.core.errors import GAME_ERROR_CODES, AlreadyHandled, GameError, GaveUp, Redeliver, Unsaved
from bot.core.events import Kind
from bot.core.newgame import parse_newgame
from bot.core.records import split_late
from bot.core.state import GameState, Player
from bot.core.uow import UnitOfWork
from bot.core.votes import tally

__all__ = [
    "GAME_ERROR_CODES",
    "AlreadyHandled",
    "Caller",
    "Clock",
    "Core",
    "GameError",
    "GameState",
    "GaveUp",
    "Kind",
    "Player",
    "Redeliver",
    "UnitOfWork",
    "Unsaved",
    "parse_newgame",
    "split_late",
    "tally",
    "utc_now",
]
