"""Moved to `bot.texts.views` and `bot.texts.history` (issue 10); re-exported until the merge moves
the imports."""

from bot.texts.history import history_lines  # noqa: F401
from bot.texts.views import *  # noqa: F403
