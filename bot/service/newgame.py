"""Moved to `bot.core.newgame` (issue 10); re-exported until the merge moves the imports."""

from bot.core.newgame import *  # noqa: F403
from bot.core.newgame import name_from_profile  # noqa: F401
