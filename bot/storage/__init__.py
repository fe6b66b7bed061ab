"""Storage: the `bot.domain` port on SQLite and PostgreSQL, its types re-exported for tests."""

from bot.domain import REDELIVERY_HORIZON as REDELIVERY_HORIZON
from bot.domain import EventRow as EventRow
from bot.domain import GameStatus as GameStatus
from bot.domain import Owed as Owed
from bot.domain import OwedKind as OwedKind
from bot.domain import Store as Store
from bot.domain import StoreBroken as StoreBroken
from bot.storage.sqlite import SqliteStore as SqliteStore
