"""Moved to `bot.core` (issue 10); re-exported until the merge moves the imports."""

from bot.core.service import (  # noqa: F401
    DEAL_EXAMPLE,
    DISPUTE_EXAMPLE,
    Caller,
    GameService,
    deal_example,
    split_late,
)
