"""The application core: commands over a game's event log, run in units of work; no aiogram."""

from bot.core.base import Caller as Caller
from bot.core.base import Clock as Clock
from bot.core.base import Core as Core
from bot.core.base import utc_now as utc_now
from bot.core.errors import GAME_ERROR_CODES as GAME_ERROR_CODES
from bot.core.errors import AlreadyHandled as AlreadyHandled
from bot.core.errors import GameError as GameError
from bot.core.errors import GaveUp as GaveUp
from bot.core.errors import Redeliver as Redeliver
from bot.core.errors import Unsaved as Unsaved
from bot.core.events import Kind as Kind
from bot.core.newgame import parse_newgame as parse_newgame
from bot.core.records import split_late as split_late
from bot.core.state import GameState as GameState
from bot.core.state import Player as Player
from bot.core.uow import UnitOfWork as UnitOfWork
from bot.core.votes import tally as tally
