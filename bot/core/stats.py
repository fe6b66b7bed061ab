"""Ended games' summaries (kept as JSON), and the statistics of a chat, player, account of them."""

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, tzinfo
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final
from weakref import WeakKeyDictionary

from bot.core.base import parse_stored, table
from bot.core.errors import GameError
from bot.core.events import EndReason, Kind, Player
from bot.core.state import fold
from bot.core.zones import zone_of_chat
from bot.domain import EventRow, GameRow, GameStatus, Store
from scoring.errors import OptionError
from scoring.replay import replay
from scoring.rules import canonical_convention
from scoring.settle import settle
from scoring.stats import ENGINE, START, Play, Tally, plays, ratings, tally_games

log = logging.getLogger(__name__)

BATCH: Final = 50  # ended games read, summarised and kept per round when many are missing
KEPT: Final = 20_000  # summaries kept decoded in memory (some 2 KB each), least recently used out
# Raise it when what `summary_json` writes changes; kept summaries are made by `VERSION`.
FORMAT: Final = 1
VERSION: Final = f"{ENGINE}.{FORMAT}"


@dataclass(frozen=True, slots=True)
class Summary:  # one ended game
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
    head = (row.game_id, row.chat_id, row.chat_number, row.created_at, ended, state.convention)
    return Summary(*head, state.ended_reason, deals, tuple(state.players), played, state.stake)


# A play is one array (a thousand games are read back for one /stats, so no keys to parse):
# balance numerator and denominator, money (text or null), deals, the five levels declared,
# the five made, misères and clean ones, whists numerator and denominator, raspasy, their tricks.
def _play_json(play: Play) -> list[Any]:
    money = None if play.money is None else str(play.money)
    head = [play.balance.numerator, play.balance.denominator, money, play.deals]
    levels = [*play.declared, *play.made, play.miseres, play.miseres_made]
    tail = [play.whists.numerator, play.whists.denominator, play.raspasy, play.raspasy_tricks]
    return head + levels + tail


Shared = dict[object, Any]  # players and counts read back once, shared: fewer objects to collect
ZERO: Final = Fraction(0)


def _one(shared: Shared, value: Any) -> Any:
    return shared.setdefault(value, value)


def _play(data: list[Any], shared: Shared) -> Play:
    balance, money = Fraction(data[0], data[1]), None if data[2] is None else Decimal(data[2])
    declared, made = _one(shared, tuple(data[4:9])), _one(shared, tuple(data[9:14]))
    whists = Fraction(data[16], data[17]) if data[16] else ZERO
    return Play(balance, money, data[3], declared, made, data[14], data[15], whists, *data[18:20])


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
    head = (row.game_id, row.chat_id, row.chat_number, datetime.fromisoformat(data["created"]))
    ended_at = None if ended is None else datetime.fromisoformat(ended)
    players = _one(shared, tuple(_one(shared, Player(*player)) for player in data["players"]))
    played = None if plays_ is None else tuple(_play(p, shared) for p in plays_)
    why = None if reason is None else EndReason(reason)
    money = None if stake is None else Fraction(stake[0], stake[1])
    return Summary(*head, ended_at, data["convention"], why, data["deals"], players, played, money)


_Key = tuple[int, int, int]  # game id, chat id, number: a moved chat's games are read anew
# Per store (a database): what its summaries decoded to. An ended game's summary never changes,
# nor does the engine of a running process, so this holds what the database holds.
_memos: WeakKeyDictionary[Store, OrderedDict[_Key, Summary]] = WeakKeyDictionary()


async def summaries(store: Store, rows: Sequence[GameRow]) -> list[Summary]:
    """The summaries of the ended games among `rows`, in their order (made if missing)."""
    ended = [row for row in rows if row.status is GameStatus.ENDED]
    decoded = _memos.setdefault(store, OrderedDict())
    keys = {row.game_id: (row.game_id, row.chat_id, row.chat_number) for row in ended}
    found = {game_id: decoded[key] for game_id, key in keys.items() if key in decoded}
    unread = [row for row in ended if row.game_id not in found]
    if unread:
        async with store.reading() as repo:
            kept = await repo.summaries([row.game_id for row in unread])
        shared: Shared = {}
        for row in unread:
            version, data = kept.get(row.game_id, ("", {}))
            try:
                if version == VERSION:
                    found[row.game_id] = summary_of(row, data, shared)
            except (KeyError, IndexError, TypeError, ValueError):  # then it is made again
                log.warning("game %s: its kept summary does not read; made again", row.game_id)
    missing = [row for row in ended if row.game_id not in found]
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        async with store.reading() as repo:
            logs = [await repo.events(row.game_id) for row in batch]
        made = await asyncio.to_thread(list, map(summarise, batch, logs))
        async with store.transaction() as repo:
            await repo.save_summaries([(s.game_id, VERSION, summary_json(s)) for s in made])
        found.update((summary.game_id, summary) for summary in made)
    for game_id, key in keys.items():
        decoded.setdefault(key, found[game_id])
    while len(decoded) > KEPT:  # the least recently kept go first
        decoded.popitem(last=False)
    return [found[row.game_id] for row in ended]


# -- the statistics' filters -----------------------------------------------------------------
STANDINGS_KEPT: Final = 64  # the statistics last made, per store


class Period(StrEnum):
    """Which ended games a filter keeps, by their end in the chat's time zone."""

    ALL = "all"
    MONTH = "month"  # this calendar month
    YEAR = "year"  # this calendar year


_WORDS: Final = {Period.ALL: "all всё все", Period.MONTH: "month месяц", Period.YEAR: "year год"}
PERIOD_WORDS: Final = {word: period for period, words in _WORDS.items() for word in words.split()}


@dataclass(frozen=True, slots=True)
class StatsFilter:
    period: Period = Period.ALL
    convention: str | None = None  # a canonical convention name; None: every convention

    def keeps(self, summary: Summary, now: datetime, zone: tzinfo) -> bool:
        if self.convention is not None and summary.convention != self.convention:
            return False
        when, today = summary.when.astimezone(zone), now.astimezone(zone)
        year, month = when.year == today.year, when.month == today.month
        return self.period is Period.ALL or (year and (self.period is Period.YEAR or month))


def parse_query(text: str) -> tuple[StatsFilter, str | None]:
    """`/stats [player] [month|year|all] [convention]`, in any order; the rest names one player."""
    period, convention, rest = Period.ALL, None, []
    for token in text.split():
        if (named := PERIOD_WORDS.get(token.casefold())) is not None:
            period = named
            continue
        if not token.startswith("@"):
            with suppress(OptionError):
                convention = canonical_convention(token)
                continue
        rest.append(token)
    return StatsFilter(period, convention), " ".join(rest) or None


# -- the statistics ------------------------------------------------------------------------------
PlayerKey = str  # `u` and an account, else `@` and a username, else `n` and a name (folded)


def account_key(user_id: int) -> PlayerKey:
    return f"u{user_id}"


@dataclass(frozen=True, slots=True)
class PlayerStats:
    key: PlayerKey
    name: str
    username: str | None
    tally: Tally
    rating: float


@dataclass(frozen=True, slots=True)
class ChatStats:
    """A chat's players over the games a filter selected, best total first."""

    chat_id: int
    filter: StatsFilter
    games: tuple[Summary, ...]  # the selected played games, in the order they ended
    players: tuple[PlayerStats, ...]
    zone: tzinfo

    def number(self, game_id: int) -> int:
        """The chat's number of one of its games (a tally's best and worst keep game ids)."""
        return next(s.number for s in self.games if s.game_id == game_id)

    def find(self, ref: str) -> PlayerStats:
        """The player `ref` names: `@username`, or a name (any case); `unknown-stats-player`."""
        wanted = ref.strip().removeprefix("@").casefold()
        for player in self.players:
            if (player.username or "").casefold() == wanted or player.name.casefold() == wanted:
                return player
        example = f"/stats {self.players[0].name}" if self.players else "/stats @anna year"
        raise GameError("unknown-stats-player", ref, {}, example)


def standings(
    chat_id: int, played: Sequence[Summary], filt: StatsFilter, zone: tzinfo
) -> ChatStats:
    """Tallies and ratings of the chat's played games (given in the order they ended)."""
    everyone = [player for summary in played for player in summary.players]
    # a username seen with an account is that account's; the newest name and username are shown
    accounts = {
        p.username.casefold(): p.user_id for p in everyone if p.user_id is not None and p.username
    }

    def key_of(player: Player) -> PlayerKey:
        if player.user_id is not None:
            return account_key(player.user_id)
        if not player.username:
            return f"n{player.name.casefold()}"
        handle = player.username.casefold()
        return account_key(accounts[handle]) if handle in accounts else f"@{handle}"

    keyed = [(key_of(player), player) for player in everyone]
    names = {k: player.name for k, player in keyed}
    usernames = {k: player.username for k, player in keyed if player.username}
    tables = [
        [(key_of(p), play) for p, play in zip(s.players, s.plays or (), strict=True)]
        for s in played
    ]
    tallies = tally_games([(s.game_id, seats) for s, seats in zip(played, tables, strict=True)])
    rated = ratings([(key, play.balance) for key, play in seats] for seats in tables)
    players = [
        PlayerStats(key, names[key], usernames.get(key), tally, rated.get(key, START))
        for key, tally in tallies.items()
    ]
    players.sort(key=lambda p: (-p.tally.total, -p.rating, p.name.casefold()))
    return ChatStats(chat_id, filt, tuple(played), tuple(players), zone)


# Per store: statistics made of a selection of ended games (the same games, the same filter and
# zone give the same statistics: their summaries never change), so that /stats and /top asked
# again take only the reading of which games there are.
_standings: WeakKeyDictionary[Store, OrderedDict[tuple[object, ...], ChatStats]] = (
    WeakKeyDictionary()
)


def in_order(found: Iterable[Summary]) -> list[Summary]:
    """The played games in the order they ended (a rating's order)."""
    return sorted((s for s in found if s.plays is not None), key=lambda s: (s.when, s.game_id))


async def chat_stats(
    store: Store, chat_id: int, filt: StatsFilter, now: datetime, lang: str
) -> ChatStats:
    """The chat's statistics over the ended games `filt` keeps (`now` for the period)."""
    async with store.reading() as repo:
        rows = await repo.chat_games(chat_id)  # `summaries` keeps the ended ones
    zone = await zone_of_chat(store, chat_id, lang)
    played = [s for s in in_order(await summaries(store, rows)) if filt.keeps(s, now, zone)]
    kept = _standings.setdefault(store, OrderedDict())
    key = (chat_id, filt, str(zone), tuple(s.game_id for s in played))
    found = kept.pop(key, None) or standings(chat_id, played, filt, zone)
    kept[key] = found  # the last asked for last
    while len(kept) > STANDINGS_KEPT:
        kept.popitem(last=False)
    return found


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """An account in one chat (/me): the chat's title, his stats there, his place by total."""

    chat_id: int
    title: str | None
    player: PlayerStats
    place: int
    players: int


async def account_stats(store: Store, user_id: int, now: datetime, lang: str) -> list[ChatRecord]:
    """Every chat in which the account finished a game, with his stats there."""
    async with store.reading() as repo:
        chats = sorted({row.chat_id for row in await repo.account_games(user_id)})
        titled = [(chat, (await repo.chat_settings(chat)).title) for chat in chats]
    key = account_key(user_id)
    found: list[ChatRecord] = []
    for chat_id, title in titled:
        stats = await chat_stats(store, chat_id, StatsFilter(), now, lang)
        for place, player in enumerate(stats.players, start=1):
            if player.key == key:
                found.append(ChatRecord(chat_id, title, player, place, len(stats.players)))
    found.sort(key=lambda r: (-r.player.tally.games, r.chat_id))
    return found
