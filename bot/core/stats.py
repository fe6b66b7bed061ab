"""The statistics of a chat, a player and an account, from the summaries of ended games."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from enum import StrEnum
from typing import Final
from weakref import WeakKeyDictionary

from bot.core.errors import GameError
from bot.core.events import Player
from bot.core.summaries import Summary, summaries
from bot.core.zones import chat_zone
from bot.domain import GameStatus, Store
from scoring.errors import OptionError
from scoring.rules import canonical_convention
from scoring.stats import START, Tally, ratings, tally_games

STATS_EXAMPLE: Final = "/stats @anna year"
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
        if self.period is Period.ALL:
            return True
        when, today = summary.when.astimezone(zone), now.astimezone(zone)
        if self.period is Period.YEAR:
            return when.year == today.year
        return (when.year, when.month) == (today.year, today.month)


@dataclass(frozen=True, slots=True)
class StatsQuery:
    """`/stats [player] [month|year|all] [convention]`, in any order."""

    filter: StatsFilter = StatsFilter()
    player: str | None = None  # as typed: `@anna` or `Clara`


def parse_query(text: str) -> StatsQuery:
    """Period words and conventions wherever they stand; what remains names one player."""
    period, convention, rest = Period.ALL, None, []
    for token in text.split():
        low = token.casefold()
        if low in PERIOD_WORDS:
            period = PERIOD_WORDS[low]
            continue
        if not token.startswith("@"):
            try:
                convention = canonical_convention(token)
                continue
            except OptionError:
                pass
        rest.append(token)
    return StatsQuery(StatsFilter(period, convention), " ".join(rest) or None)


# -- who is who --------------------------------------------------------------------------------
PlayerKey = str


@dataclass(slots=True)
class Identities:
    """The chat's players: each seat's key, and the name, username and account a key shows."""

    accounts: dict[str, int] = field(default_factory=dict)  # username (folded) → its account
    names: dict[PlayerKey, str] = field(default_factory=dict)
    usernames: dict[PlayerKey, str] = field(default_factory=dict)

    @classmethod
    def of(cls, games: Iterable[Summary]) -> Identities:
        """From the games newest first: the newest name a player had is the one shown."""
        known = cls()
        games = list(games)
        for summary in games:
            for player in summary.players:
                if player.user_id is not None and player.username:
                    known.accounts.setdefault(player.username.casefold(), player.user_id)
        for summary in games:
            for player in summary.players:
                key = known.key(player)
                known.names.setdefault(key, player.name)
                if player.username:
                    known.usernames.setdefault(key, player.username)
        return known

    def key(self, player: Player) -> PlayerKey:
        if player.user_id is not None:
            return f"u{player.user_id}"
        if player.username:
            account = self.accounts.get(player.username.casefold())
            return f"u{account}" if account is not None else f"@{player.username.casefold()}"
        return f"n{player.name.casefold()}"


def account_key(user_id: int) -> PlayerKey:
    return f"u{user_id}"


# -- the statistics ------------------------------------------------------------------------------
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
        example = f"/stats {self.players[0].name}" if self.players else STATS_EXAMPLE
        raise GameError("unknown-stats-player", ref, {}, example)


def standings(
    chat_id: int, played: Sequence[Summary], filt: StatsFilter, zone: tzinfo
) -> ChatStats:
    """Tallies and ratings of the chat's played games (given in the order they ended)."""
    known = Identities.of(reversed(played))
    tables = [
        [(known.key(p), play) for p, play in zip(s.players, s.plays or (), strict=True)]
        for s in played
    ]
    tallies = tally_games([(s.game_id, seats) for s, seats in zip(played, tables, strict=True)])
    rated = ratings([(key, play.balance) for key, play in seats] for seats in tables)
    players = [
        PlayerStats(key, known.names[key], known.usernames.get(key), tally, rated.get(key, START))
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
    return sorted((s for s in found if s.played), key=lambda s: (s.when, s.game_id))


async def chat_stats(
    store: Store, chat_id: int, filt: StatsFilter, now: datetime, lang: str
) -> ChatStats:
    """The chat's statistics over the ended games `filt` keeps (`now` for the period)."""
    async with store.reading() as repo:
        settings = await repo.chat_settings(chat_id)
        rows = [r for r in await repo.chat_games(chat_id) if r.status is GameStatus.ENDED]
    zone = chat_zone(settings.time_zone, settings.locale or lang)
    played = [s for s in in_order(await summaries(store, rows)) if filt.keeps(s, now, zone)]
    kept = _standings.setdefault(store, OrderedDict())
    key = (chat_id, filt, str(zone), tuple(s.game_id for s in played))
    found = kept.get(key)
    if found is None:
        found = kept[key] = standings(chat_id, played, filt, zone)
        while len(kept) > STANDINGS_KEPT:
            kept.popitem(last=False)
    kept.move_to_end(key)
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
        place = next((i for i, p in enumerate(stats.players) if p.key == key), None)
        if place is not None:
            player = stats.players[place]
            found.append(ChatRecord(chat_id, title, player, place + 1, len(stats.players)))
    found.sort(key=lambda r: (-r.player.tally.games, r.chat_id))
    return found
