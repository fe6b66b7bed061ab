"""`processed_updates` pruned past Telegram's redelivery horizon, at start-up and every hour."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Final

from bot.domain import PRUNE_BATCH, REDELIVERY_HORIZON, Store

log = logging.getLogger(__name__)

PRUNE_EVERY: Final = 3600.0  # seconds between two prunings


async def prune_processed(store: Store, now: datetime, batch: int = PRUNE_BATCH) -> int:
    """Delete the processed updates older than the redelivery horizon; returns how many went."""
    gone = await store.prune_updates(now - REDELIVERY_HORIZON, batch)
    if gone:
        log.info("processed updates: %d older than %s pruned", gone, REDELIVERY_HORIZON)
    return gone


async def pruning(store: Store, clock: Callable[[], datetime], every: float = PRUNE_EVERY) -> None:
    """The background task: prune, then again every `every` seconds; a failure is logged."""
    while True:
        try:
            await prune_processed(store, clock())
        except Exception:
            log.exception("pruning processed updates failed; trying again later")
        await asyncio.sleep(every)
