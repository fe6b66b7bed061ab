"""aiogram's FSM storage in the bot's own database (issue 14, Deliver 3): a step-by-step `/deal`
started on one bot instance continues on any other, and survives a restart.

One row per FSM key (a user in a chat: aiogram's `DefaultKeyBuilder` string) with its state and its
JSON data, read and written through the `Store` (both backends), each call in a short unit of work
of its own. The data are the plain JSON values `bot.tg.fsm` keeps (the open steps and their drafts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiogram.fsm.state import State
from aiogram.fsm.storage.base import (
    BaseStorage,
    DefaultKeyBuilder,
    KeyBuilder,
    StateType,
    StorageKey,
)

from bot.storage import Store


class DatabaseStorage(BaseStorage):
    """`BaseStorage` over the bot's `Store` (the `fsm` table)."""

    def __init__(self, store: Store, key_builder: KeyBuilder | None = None) -> None:
        self.store = store
        self.key_builder = key_builder or DefaultKeyBuilder(with_bot_id=True)

    def _key(self, key: StorageKey) -> str:
        return self.key_builder.build(key)

    async def set_state(self, key: StorageKey, state: StateType = None) -> None:
        value = state.state if isinstance(state, State) else state
        async with self.store.transaction() as repo:
            await repo.set_fsm_state(self._key(key), value)

    async def get_state(self, key: StorageKey) -> str | None:
        async with self.store.reading() as repo:
            return await repo.fsm_state(self._key(key))

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        async with self.store.transaction() as repo:
            await repo.set_fsm_data(self._key(key), dict(data))

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        async with self.store.reading() as repo:
            return await repo.fsm_data(self._key(key))

    async def close(self) -> None:
        """The store belongs to the bot, which closes it itself."""
