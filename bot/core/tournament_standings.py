"""A tournament's standings across its tables, and each table's game as the judge sees it."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction

from bot.core.events import EndReason
from bot.core.ledger import person
from bot.core.summaries import Summary, summaries
from bot.core.tournament_state import Tournament
from bot.core.uow import UnitOfWork
from bot.domain import GameRow, GameStatus
from scoring.tournament import Line, Scoring, game_points, standings


@dataclass(frozen=True, slots=True)
class Standings:
    tournament: Tournament
    lines: tuple[Line, ...]
    names: dict[Hashable, str]  # a player's key → his name as his last game shows it
    played: int  # games counted
    playing: int  # games entered and not ended yet


async def standings_of(uow: UnitOfWork, state: Tournament) -> Standings:
    """The standings: every entered game that ended (not cancelled), scored and summed."""
    rows: list[GameRow] = []
    async with uow.reading() as repo:
        for entry in state.entries:
            row = await repo.game(entry.game_id)
            if row is not None:
                rows.append(row)
    rounds = {e.game_id: e.round for e in state.entries}
    ended = await summaries(uow.core.store, rows)
    results: list[tuple[int, dict[Hashable, Fraction]]] = []
    names: dict[Hashable, str] = {}
    for summary in ended:
        points = _points(state.scoring, summary)
        if points is None:
            continue
        for player in summary.players:
            names[person(player)] = player.name
        results.append((rounds[summary.game_id], points))
    playing = sum(1 for row in rows if row.status is not GameStatus.ENDED)
    lines = tuple(standings(max(state.round, 1), results))
    return Standings(state, lines, names, len(results), playing)


def _points(scoring: Scoring, summary: Summary) -> dict[Hashable, Fraction] | None:
    if summary.plays is None or summary.reason is EndReason.CANCELLED:
        return None
    balances = [play.balance for play in summary.plays]
    points = game_points(scoring, balances)
    return {person(p): v for p, v in zip(summary.players, points, strict=True)}


@dataclass(frozen=True, slots=True)
class TableGame:
    """A table's live game: its number in its chat, status, and the votes waiting for the judge."""

    number: int
    status: GameStatus
    waiting: tuple[int, ...]


async def table_games(uow: UnitOfWork, state: Tournament) -> dict[int, TableGame]:
    """Each table's live game, else its last (by table number)."""
    found: dict[int, TableGame] = {}
    async with uow.reading() as repo:
        for table in state.tables:
            row = await repo.live_game(table.chat_id, table.thread_id)
            row = row or await repo.last_game(table.chat_id, table.thread_id)
            if row is None:
                continue
            waiting: tuple[int, ...] = ()
            if row.status is not GameStatus.ENDED:
                game = await uow.core.fold(repo, row)
                waiting = tuple(v.seq for v in game.open_votes() if v.referred is not None)
            found[table.number] = TableGame(row.chat_number, row.status, waiting)
    return found
