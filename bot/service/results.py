"""Moved to `bot.core.results` (issue 10); re-exported until the merge moves the imports."""

from bot.core.results import *  # noqa: F403
