"""What an ended game comes to, for the archive and the statistics: a projection of its log."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final
from weakref import WeakKeyDictionary

from bot.core.base import parse_stored, table
from bot.core.events import EndReason, Kind, Player
from bot.core.state import fold
from bot.domain import EventRow, GameRow, GameStatus, Store
from scoring.replay import replay
from scoring.settle import settle
from scoring.stats import ENGINE, Play, plays

log = logging.getLogger(__name__)

BATCH: Final = 50  # ended games read, summarised and kept per round when many are missing
KEPT: Final = 20_000  # summaries kept decoded in memory (some 2 KB each), least recently used out
# Raise it when what `summary_json` writes changes; kept summaries are made by `VERSION`.
FORMAT: Final = 1
VERSION: Final = f"{ENGINE}.{FORMAT}"


@dataclass(frozen=True, slots=True)
class Summary:
    """One ended game."""

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
        tab = table(state)  # the shared line cache is an `lru_cache`: thread-safe
        sheet = replay(state.game(), [parse_stored(item.line, tab) for item in state.records])
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


# -- kept as JSON ------------------------------------------------------------------------------
# A play is one array (a thousand games are read back for one /stats, so no keys to parse):
# balance numerator and denominator, money (text or null), deals, the five levels declared,
# the five made, misères and clean ones, whists numerator and denominator, raspasy, their tricks.
def _play_json(play: Play) -> list[Any]:
    money = None if play.money is None else str(play.money)
    return [
        play.balance.numerator,
        play.balance.denominator,
        money,
        play.deals,
        *play.declared,
        *play.made,
        play.miseres,
        play.miseres_made,
        play.whists.numerator,
        play.whists.denominator,
        play.raspasy,
        play.raspasy_tricks,
    ]


Shared = dict[object, Any]  # players and counts read back once, shared: fewer objects to collect
ZERO: Final = Fraction(0)


def _one(shared: Shared, value: Any) -> Any:
    return shared.setdefault(value, value)


def _play(data: list[Any], shared: Shared) -> Play:
    return Play(
        Fraction(data[0], data[1]),
        None if data[2] is None else Decimal(data[2]),
        data[3],
        _one(shared, tuple(data[4:9])),
        _one(shared, tuple(data[9:14])),
        data[14],
        data[15],
        Fraction(data[16], data[17]) if data[16] else ZERO,
        data[18],
        data[19],
    )


def summary_json(summary: Summary) -> dict[str, Any]:
    """What is kept of a summary (its game's id, chat and number live in `games`)."""
    stake = summary.stake
    return {
        "created": summary.created_at.isoformat(),
        "ended": None if summary.ended_at is None else summary.ended_at.isoformat(),
        "convention": summary.convention,
        "reason": None if summary.reason is None else summary.reason.value,
        "deals": summary.deals,
        "stake": None if stake is None else [stake.numerator, stake.denominator],
        "players": [[p.name, p.user_id, p.username] for p in summary.players],
        "plays": None if summary.plays is None else [_play_json(p) for p in summary.plays],
    }


def summary_of(row: GameRow, data: dict[str, Any], shared: Shared) -> Summary:
    """A kept summary read back; `shared` holds the values read before, to be shared."""
    ended, reason, plays_, stake = data["ended"], data["reason"], data["plays"], data["stake"]
    players = tuple(_one(shared, Player(*player)) for player in data["players"])
    return Summary(
        row.game_id,
        row.chat_id,
        row.chat_number,
        datetime.fromisoformat(data["created"]),
        None if ended is None else datetime.fromisoformat(ended),
        data["convention"],
        None if reason is None else EndReason(reason),
        data["deals"],
        _one(shared, players),
        None if plays_ is None else tuple(_play(p, shared) for p in plays_),
        None if stake is None else Fraction(stake[0], stake[1]),
    )


# -- read, or made and kept --------------------------------------------------------------------
_Key = tuple[int, int, int]  # game id, chat id, number: a moved chat's games are read anew
# Per store (a database): what its summaries decoded to. An ended game's summary never changes,
# nor does the engine of a running process, so this holds what the database holds.
_memos: WeakKeyDictionary[Store, OrderedDict[_Key, Summary]] = WeakKeyDictionary()


def _keep(decoded: OrderedDict[_Key, Summary], summary: Summary) -> None:
    key = (summary.game_id, summary.chat_id, summary.number)
    decoded[key] = summary
    decoded.move_to_end(key)
    while len(decoded) > KEPT:
        decoded.popitem(last=False)


async def summaries(store: Store, rows: Sequence[GameRow]) -> list[Summary]:
    """The summaries of the ended games among `rows`, in their order (made if missing)."""
    ended = [row for row in rows if row.status is GameStatus.ENDED]
    decoded = _memos.setdefault(store, OrderedDict())
    found: dict[int, Summary] = {}
    for row in ended:
        if (known := decoded.get((row.game_id, row.chat_id, row.chat_number))) is not None:
            found[row.game_id] = known
    unread = [row for row in ended if row.game_id not in found]
    if unread:
        async with store.reading() as repo:
            kept = await repo.summaries([row.game_id for row in unread])
        shared: Shared = {}
        for row in unread:
            version, data = kept.get(row.game_id, ("", {}))
            if version != VERSION:
                continue
            try:
                found[row.game_id] = summary = summary_of(row, data, shared)
            except (KeyError, IndexError, TypeError, ValueError):  # then it is made again
                log.warning("game %s: its kept summary does not read; made again", row.game_id)
                continue
            _keep(decoded, summary)
    missing = [row for row in ended if row.game_id not in found]
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        async with store.reading() as repo:
            logs = [await repo.events(row.game_id) for row in batch]
        made = await asyncio.to_thread(list, map(summarise, batch, logs))
        async with store.transaction() as repo:
            await repo.save_summaries([(s.game_id, VERSION, summary_json(s)) for s in made])
        for summary in made:
            found[summary.game_id] = summary
            _keep(decoded, summary)
    return [found[row.game_id] for row in ended]
