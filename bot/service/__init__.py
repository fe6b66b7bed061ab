"""Moved to `bot.core` (issue 10): this package only re-exports it until the lead's merge moves
the last imports (`bot.service.X` → `bot.core.X`); then it goes."""

from bot.core import *  # noqa: F403
from bot.core import __all__  # noqa: F401
