"""The game service: commands over a game's event log (see `bot.service.game.GameService`)."""

from bot.service.errors import GAME_ERROR_CODES, AlreadyHandled, GameError
from bot.service.events import Kind
from bot.service.game import Caller, Clock, GameService, split_late, tally, tied, utc_now
from bot.service.newgame import NewGame, parse_newgame
from bot.service.state import GameState, Player, RecordItem, Vote

__all__ = [
    "GAME_ERROR_CODES",
    "AlreadyHandled",
    "Caller",
    "Clock",
    "GameError",
    "GameService",
    "GameState",
    "Kind",
    "NewGame",
    "Player",
    "RecordItem",
    "Vote",
    "parse_newgame",
    "split_late",
    "tally",
    "tied",
    "utc_now",
]
