"""Moved to `bot.texts.views` (issue 10); re-exported until the merge moves the imports."""

from bot.texts.views import *  # noqa: F403
