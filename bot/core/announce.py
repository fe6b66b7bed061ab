"""The port through which a command taken outside Telegram owes its chat the usual answer."""

from __future__ import annotations

from typing import Protocol

from bot.core.results import Recorded
from bot.core.uow import UnitOfWork


class Announce(Protocol):
    async def recorded(self, uow: UnitOfWork, lang: str, result: Recorded) -> None:
        """Owe the record's chat its sheet with the record's caption, in `lang`."""
