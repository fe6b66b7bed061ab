"""What an ended game comes to, for the archive and the statistics: a projection of its log.

An ended game's log never grows again, so its summary — players, convention, times, the records
in force replayed and settled, each seat's `scoring.stats.Play` — is computed once, the first time
someone asks for it, in a transaction of its own, and kept in `game_summaries` beside the engine
that made it (`scoring.stats.ENGINE`): a summary of another engine is made again. Nothing on the
path of a deal touches it. Whatever is kept equals `summarise` of the log (a property test holds
it so after random games, undos and corrections).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

from bot.core.events import EndReason, Kind, Player
from bot.core.state import GameState, fold
from bot.core.uow import parse_stored, table
from bot.storage import EventRow, GameRow, GameStatus, Store
from scoring.replay import replay
from scoring.settle import settle
from scoring.stats import ENGINE, Play, plays

BATCH: Final = 50  # ended games read, summarised and kept per round when many are missing


@dataclass(frozen=True, slots=True)
class Summary:
    """One ended game. `plays` is None for a game that was never played (cancelled before its
    start, or ended before its first deal): it is listed, but counts in no statistics."""

    game_id: int
    chat_id: int
    number: int
    created_at: datetime
    ended_at: datetime | None
    convention: str
    reason: EndReason | None
    deals: int
    players: tuple[Player, ...]
    plays: tuple[Play, ...] | None
    stake: Fraction | None = None

    @property
    def played(self) -> bool:
        return self.plays is not None

    @property
    def when(self) -> datetime:
        """When it counts: its end (its creation for a log without one)."""
        return self.ended_at or self.created_at


def summarise(row: GameRow, events: Sequence[EventRow]) -> Summary:
    """The game's summary from its whole log (pure: safe in a worker thread)."""
    state = fold(row.game_id, list(events))
    ended = next((e.at for e in reversed(events) if e.kind == Kind.GAME_ENDED.value), None)
    played: tuple[Play, ...] | None = None
    deals = 0
    if state.rules is not None:
        sheet = replay(state.game(), _records(state))
        deals = sheet.deals
        if deals:
            played = plays(sheet, settle(sheet.rules, sheet.totals, state.stake))
    return Summary(
        row.game_id,
        row.chat_id,
        row.chat_number,
        row.created_at,
        ended,
        state.convention,
        state.ended_reason,
        deals,
        tuple(state.players),
        played,
        state.stake,
    )


def _records(state: GameState) -> list[Any]:
    """The records in force, read through the shared line cache (thread-safe: an `lru_cache`)."""
    tab = table(state)
    return [parse_stored(item.line, tab) for item in state.records]


# -- kept as JSON ------------------------------------------------------------------------------
def _fraction(value: str | None) -> Fraction | None:
    return Fraction(value) if value is not None else None


def _play_json(play: Play) -> dict[str, Any]:
    return {
        "balance": str(play.balance),
        "money": None if play.money is None else str(play.money),
        "deals": play.deals,
        "declared": list(play.declared),
        "made": list(play.made),
        "miseres": play.miseres,
        "miseres_made": play.miseres_made,
        "whists": str(play.whists),
        "raspasy": play.raspasy,
        "raspasy_tricks": play.raspasy_tricks,
    }


def _play(data: dict[str, Any]) -> Play:
    return Play(
        Fraction(data["balance"]),
        None if data["money"] is None else Decimal(data["money"]),
        data["deals"],
        tuple(data["declared"]),
        tuple(data["made"]),
        data["miseres"],
        data["miseres_made"],
        Fraction(data["whists"]),
        data["raspasy"],
        data["raspasy_tricks"],
    )


def summary_json(summary: Summary) -> dict[str, Any]:
    """What is kept of a summary (its game's id, chat and number live in `games`)."""
    return {
        "created": summary.created_at.isoformat(),
        "ended": None if summary.ended_at is None else summary.ended_at.isoformat(),
        "convention": summary.convention,
        "reason": None if summary.reason is None else summary.reason.value,
        "deals": summary.deals,
        "stake": None if summary.stake is None else str(summary.stake),
        "players": [p.payload() for p in summary.players],
        "plays": None if summary.plays is None else [_play_json(p) for p in summary.plays],
    }


def summary_of(row: GameRow, data: dict[str, Any]) -> Summary:
    ended, reason, plays_ = data["ended"], data["reason"], data["plays"]
    return Summary(
        row.game_id,
        row.chat_id,
        row.chat_number,
        datetime.fromisoformat(data["created"]),
        None if ended is None else datetime.fromisoformat(ended),
        data["convention"],
        None if reason is None else EndReason(reason),
        data["deals"],
        tuple(Player.of(p) for p in data["players"]),
        None if plays_ is None else tuple(_play(p) for p in plays_),
        _fraction(data["stake"]),
    )


# -- read, or made and kept --------------------------------------------------------------------
async def summaries(store: Store, rows: Sequence[GameRow]) -> list[Summary]:
    """The summaries of the ended games among `rows`, in their order: the kept ones read, the
    missing (or another engine's) made from their logs in a worker thread and kept, `BATCH` games
    per round, each round in a transaction of its own."""
    ended = [row for row in rows if row.status is GameStatus.ENDED]
    if not ended:
        return []
    async with store.reading() as repo:
        kept = await repo.summaries([row.game_id for row in ended])
    found: dict[int, Summary] = {
        row.game_id: summary_of(row, kept[row.game_id][1])
        for row in ended
        if row.game_id in kept and kept[row.game_id][0] == ENGINE
    }
    missing = [row for row in ended if row.game_id not in found]
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        async with store.reading() as repo:
            logs = [await repo.events(row.game_id) for row in batch]
        made = await asyncio.to_thread(_summarise_all, batch, logs)
        async with store.transaction() as repo:
            await repo.save_summaries([(s.game_id, ENGINE, summary_json(s)) for s in made])
        found.update((s.game_id, s) for s in made)
    return [found[row.game_id] for row in ended]


def _summarise_all(rows: Sequence[GameRow], logs: Sequence[list[EventRow]]) -> list[Summary]:
    return [summarise(row, log) for row, log in zip(rows, logs, strict=True)]
