"""What a tournament's home chat is told about its tables: referred votes, standings."""

from __future__ import annotations

import logging
from functools import partial

from bot.core import UnitOfWork, attempts, tournaments
from bot.core.base import Core
from bot.core.events import ReferReason
from bot.core.results import VoteState
from bot.core.state import GameState
from bot.core.tournaments import Entry, fold
from bot.domain import Owed, OwedKind, TournamentRow
from bot.texts.i18n import Safe, translator
from bot.texts.tournaments import ended_home_text, handle, referred_text, standings_text
from bot.texts.views import chunks

log = logging.getLogger(__name__)


async def _home_lang(uow: UnitOfWork, row: TournamentRow, fallback: str) -> str:
    async with uow.reading() as repo:
        return (await repo.chat_settings(row.home_chat_id)).locale or fallback


def _owe_home(uow: UnitOfWork, row: TournamentRow, lang: str, text: Safe) -> None:
    thread = row.home_thread_id or None
    uow.owe(
        *(
            Owed(row.home_chat_id, OwedKind.TEXT, part, lang, thread_id=thread)
            for part in chunks(text.split("\n"))
        )
    )


async def referred(uow: UnitOfWork, lang: str, result: VoteState) -> None:
    """A table's vote went to the judge now: the home chat is told how he decides it."""
    if not result.referred or not isinstance(result.reason, ReferReason):
        return
    state = result.state
    tournament = await tournaments.of_table(uow, state.chat_id, state.thread_id)
    if tournament is None or tournament.judge is None:
        return
    table = tournament.table_at(state.chat_id, state.thread_id)
    if table is None or not state.is_arbiter(tournament.judge.user_id, tournament.judge.username):
        return
    home = await _home_lang(uow, tournament.row, lang)
    text = referred_text(translator(home), table, result.vote.seq, handle(tournament.judge))
    _owe_home(uow, tournament.row, home, text)


async def ended(uow: UnitOfWork, lang: str, state: GameState) -> None:
    """A table's game ended in this unit: once it is committed, the home gets the standings."""
    tournament = await tournaments.of_table(uow, state.chat_id, state.thread_id)
    if tournament is None:
        return
    entry = next((e for e in tournament.entries if e.game_id == state.game_id), None)
    if entry is None:
        return
    uow.then(partial(_post, uow.core, tournament.row, entry, lang))


async def _post(core: Core, row: TournamentRow, entry: Entry, lang: str) -> None:
    async def work(uow: UnitOfWork) -> None:
        async with uow.reading() as repo:
            events = await repo.tournament_events(row.tournament_id)
        state = fold(row, events)
        standings = await tournaments.standings_of(uow, state)
        home = await _home_lang(uow, row, lang)
        t = translator(home)
        table = state.table(entry.table)
        text = Safe(f"{ended_home_text(t, table, entry.round)}\n\n{standings_text(t, standings)}")
        _owe_home(uow, row, home, text)

    await attempts.run(core, work)
