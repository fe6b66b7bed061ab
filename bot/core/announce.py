"""The port through which a command taken outside Telegram (a deal from the Mini App) owes its chat
the usual answer, in the command's own unit of work; the Telegram glue implements it
(`bot.telegram.outbound.outbox.ChatAnnouncer`), so the web layer names no part of that glue."""

from __future__ import annotations

from typing import Protocol

from bot.core.results import Recorded
from bot.core.uow import UnitOfWork


class Announce(Protocol):
    async def recorded(self, uow: UnitOfWork, lang: str, result: Recorded) -> None:
        """Owe the record's chat its sheet with the record's caption, in `lang`."""
