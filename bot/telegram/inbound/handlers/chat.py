"""The chat itself: a group upgraded to a supergroup moves its games to the new chat id."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import MagicData
from aiogram.types import Message

from bot.core import looks, tournaments
from bot.telegram.inbound.context import Ctx

router = Router(name=__name__)


async def _move(ctx: Ctx, old: int, new: int) -> None:
    async with ctx.unit() as uow:
        await looks.migrate_chat(uow, old, new)
        await tournaments.migrate(uow, old, new)
        await uow.commit()


@router.message(MagicData(F.event.migrate_to_chat_id))
async def migrated_to(message: Message, ctx: Ctx) -> None:
    assert message.migrate_to_chat_id is not None
    await _move(ctx, message.chat.id, message.migrate_to_chat_id)


@router.message(MagicData(F.event.migrate_from_chat_id))
async def migrated_from(message: Message, ctx: Ctx) -> None:
    assert message.migrate_from_chat_id is not None
    await _move(ctx, message.migrate_from_chat_id, message.chat.id)
