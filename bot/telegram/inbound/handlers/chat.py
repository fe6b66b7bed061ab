"""The chat itself: a group upgraded to a supergroup moves its games to the new chat id."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import MagicData
from aiogram.types import Message

from bot.core import GameService, UnitOfWork, tournaments

router = Router(name=__name__)


@router.message(MagicData(F.event.migrate_to_chat_id))
async def migrated_to(message: Message, game: GameService, uow: UnitOfWork) -> None:
    assert message.migrate_to_chat_id is not None
    await game.migrate_chat(uow, message.chat.id, message.migrate_to_chat_id)
    await tournaments.migrate(uow, message.chat.id, message.migrate_to_chat_id)


@router.message(MagicData(F.event.migrate_from_chat_id))
async def migrated_from(message: Message, game: GameService, uow: UnitOfWork) -> None:
    assert message.migrate_from_chat_id is not None
    await game.migrate_chat(uow, message.migrate_from_chat_id, message.chat.id)
    await tournaments.migrate(uow, message.migrate_from_chat_id, message.chat.id)
