"""A tournament's log (its kinds) and the state it folds to: rules, tables, rounds, games entered."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from bot.core.errors import GameError
from bot.core.events import Player
from bot.domain import EventRow, Repo, TournamentRow
from scoring.tournament import Scoring


class TKind(StrEnum):  # the kinds of a tournament's log
    CREATED = "created"  # {name, convention, overrides, scoring, creator}
    TABLE_JOINED = "table_joined"  # {chat_id, thread_id, title}
    JUDGE_NAMED = "judge_named"  # {judge: player}
    ROUND_STARTED = "round_started"  # {round}
    ROUND_CLOSED = "round_closed"  # {round}
    GAME_ENTERED = "game_entered"  # {game_id, table, round}
    TABLE_MOVED = "table_moved"  # {from_chat, to_chat}: its group became a supergroup


@dataclass(frozen=True, slots=True)
class Table:
    number: int  # 1, 2, … in the order the tables joined
    chat_id: int
    thread_id: int
    title: str | None


@dataclass(frozen=True, slots=True)
class Entry:
    game_id: int
    table: int
    round: int


@dataclass(slots=True)
class Tournament:
    row: TournamentRow
    name: str = ""
    convention: str = "sochi"
    overrides: dict[str, str] = field(default_factory=dict)
    scoring: Scoring = Scoring.WHISTS
    creator: Player | None = None
    judge: Player | None = None
    tables: list[Table] = field(default_factory=list)
    round: int = 0  # the last round started
    open: bool = False  # whether that round is still open
    entries: list[Entry] = field(default_factory=list)

    def table_at(self, chat_id: int, thread_id: int) -> Table | None:
        return next(
            (t for t in self.tables if (t.chat_id, t.thread_id) == (chat_id, thread_id)), None
        )

    def table(self, number: int) -> Table:
        if not 1 <= number <= len(self.tables):
            raise GameError("tournament-no-table", str(number), {}, "/tournament tables")
        return self.tables[number - 1]

    def apply(self, kind: TKind, data: dict[str, Any]) -> None:
        """One event of the log, on the state before it."""
        if kind is TKind.CREATED:
            self.name, self.convention = data["name"], data["convention"]
            self.overrides = dict(data["overrides"])
            self.scoring = Scoring(data["scoring"])
            self.creator = Player.of(data["creator"])
        elif kind is TKind.TABLE_JOINED:
            number = len(self.tables) + 1
            self.tables.append(Table(number, data["chat_id"], data["thread_id"], data["title"]))
        elif kind is TKind.JUDGE_NAMED:
            self.judge = Player.of(data["judge"])
        elif kind is TKind.ROUND_STARTED:
            self.round, self.open = data["round"], True
        elif kind is TKind.ROUND_CLOSED:
            self.open = False
        elif kind is TKind.GAME_ENTERED:
            self.entries.append(Entry(data["game_id"], data["table"], data["round"]))
        elif kind is TKind.TABLE_MOVED:
            self.tables = [
                replace(t, chat_id=data["to_chat"]) if t.chat_id == data["from_chat"] else t
                for t in self.tables
            ]


def fold(row: TournamentRow, events: list[EventRow]) -> Tournament:
    """The tournament as its log stands."""
    state = Tournament(row)
    for event in events:
        state.apply(TKind(event.kind), event.payload)
    return state


async def read(repo: Repo, row: TournamentRow) -> Tournament:
    return fold(row, await repo.tournament_events(row.tournament_id))
