"""Reading a table's game as it stands: for a look, for the sender's sheet, for an update."""

import logging
from datetime import UTC, tzinfo

from bot.core import archive, lobby
from bot.core.archive import CorrectedValues, exported
from bot.core.base import Caller, Core, records_of, settlement
from bot.core.errors import GameError
from bot.core.results import Arrival, Exported, Snapshot
from bot.core.state import GameState, fold
from bot.core.uow import UnitOfWork
from scoring.replay import replay
from scoring.sheet import Sheet

log = logging.getLogger(__name__)


def _snap(state: GameState, sheet: Sheet | None) -> Snapshot:
    return Snapshot(state, sheet, None if sheet is None else settlement(state, sheet))


async def snapshot(
    core: Core, chat_id: int, uow: UnitOfWork | None = None, topic: int = 0
) -> Snapshot:
    """The table's live game, or else its last one (ended games stay readable)."""
    own = uow is not None and uow.sees_own_writes
    async with core.store.reading() if uow is None else uow.reading() as repo:
        row = await repo.live_game(chat_id, topic) or await repo.last_game(chat_id, topic)
        if row is None:
            raise GameError("no-game", "", {}, "/newgame sochi")
        state = await core.fold(repo, row, apart=own)
    if state.rules is None:
        return _snap(state, None)
    return _snap(state, replay(state.game(), records_of(state)) if own else core.sheet(state))


async def sheet_at(core: Core, game_id: int, seq: int) -> Snapshot | None:
    """The game as its log stood at event `seq`: what an owed sheet shows (None: the game is gone)."""
    recent = core.recent(game_id, seq)
    if recent is not None:  # as the command that owed it committed it: no fold
        return _snap(*recent)
    async with core.store.reading() as repo:
        row = await repo.game(game_id)
        if row is None:
            return None
        state = await core.fold(repo, row)
        if state.last_seq != seq:  # the log has moved on since: the state then, folded
            state = fold(game_id, [ev for ev in await repo.events(game_id) if ev.seq <= seq])
            state.chat_id, state.thread_id = row.chat_id, row.thread_id
    if state.rules is None:
        return _snap(state, None)
    sheet = core.sheet(state) if state.last_seq == seq else replay(state.game(), records_of(state))
    return _snap(state, sheet)


async def look(core: Core, uow: UnitOfWork, caller: Caller) -> Snapshot:
    """`snapshot` for a look by `caller`; his first act in the chat links his `@username` seat."""
    snap = await snapshot(core, caller.chat_id, uow, caller.topic)
    if not lobby.needs_link(snap.state, caller):
        return snap
    async with uow.command(caller) as unit:  # links the seat, records nothing else
        return _snap(unit.state, unit.sheet() if unit.state.rules is not None else None)


def corrected_values(core: Core, state: GameState, sheet: Sheet) -> CorrectedValues:
    return archive.corrected_values(state, sheet, core.corrected)


async def export(
    core: Core, chat_id: int, uow: UnitOfWork | None = None, zone: tzinfo = UTC, topic: int = 0
) -> Exported:
    state = (await snapshot(core, chat_id, uow, topic)).state
    return await exported(uow or core.store, state, core.clock(), zone)


async def open_games(core: Core, user_id: int) -> list[tuple[GameState, str | None]]:
    async with core.store.reading() as repo:
        rows = await repo.games_of_user(user_id)
        return [(await core.fold(repo, row), await repo.chat_title(row.chat_id)) for row in rows]


async def locale(core: Core, chat_id: int, uow: UnitOfWork | None = None) -> str | None:
    """The chat's language, read now (a /lang taken by any instance is seen at once)."""
    async with core.store.reading() if uow is None else uow.reading() as repo:
        return await repo.chat_locale(chat_id)


async def arrival(core: Core, caller: Caller) -> Arrival:
    async with core.store.reading() as repo:
        seen = caller.update_id is not None and await repo.update_seen(
            caller.update_id, caller.chat_id, caller.message_id
        )
        return Arrival(seen, await repo.chat_settings(caller.chat_id))


async def was_handled(core: Core, update_id: int) -> bool:
    async with core.store.reading() as repo:
        return await repo.update_seen(update_id, None, None)


async def migrate_chat(uow: UnitOfWork, old_chat_id: int, new_chat_id: int) -> None:
    """A group became a supergroup: its games and settings move to the new id."""
    if old_chat_id == new_chat_id:
        return
    repo = await uow.holding(old_chat_id, new_chat_id)
    moved = await repo.move_chat(old_chat_id, new_chat_id)
    if moved:
        log.info("moving %d game(s) from chat %s to %s", moved, old_chat_id, new_chat_id)
