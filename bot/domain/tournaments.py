"""A tournament's index row (its log is `EventRow`s numbered per tournament)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class TournamentRow:
    tournament_id: int
    code: str  # what a table types to join it
    home_chat_id: int  # where it was created: its standings are posted there
    home_thread_id: int  # the home's forum topic (0: the chat itself)
    created_by: int | None
    created_at: datetime
