"""The open step messages of `/deal` by buttons, and the checks a press passes first."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from aiogram import Bot
from aiogram.fsm.context import FSMContext
from aiogram.fsm.middleware import FSMContextMiddleware
from aiogram.types import Message

from bot.core import Caller, GameState
from bot.core.results import Snapshot
from bot.domain import GameStatus
from bot.telegram.inbound import fsm
from bot.telegram.inbound.fsm import DealEntry, OpenSteps
from bot.telegram.keyboards import DealCb
from bot.texts import deal_steps as steps

LIFETIME: Final = timedelta(hours=6)


def fingerprint(state: GameState) -> str:
    """Changes whenever a record is added, undone or corrected: a draft made before is stale."""
    text = "\n".join(f"{item.seq} {item.line}" for item in state.records)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Refused:
    """Why a press does nothing: the toast's key, and whether the message is now stale."""

    key: str
    params: dict[str, object] = field(default_factory=dict)
    alert: bool = False
    close: bool = False


STALE: Final = Refused("steps-stale-toast", alert=True, close=True)


def opener_of(message: Message) -> int | None:
    """Who opened a step message, as its buttons (Telegram's copy, not the press) say."""
    markup = message.reply_markup
    for row in markup.inline_keyboard if markup is not None else ():
        for button in row:
            try:
                return DealCb.unpack(button.callback_data or "").by
            except (TypeError, ValueError):
                continue
    return None


@dataclass(frozen=True, slots=True)
class StepsBook:
    """The presser's open steps and, through the dispatcher's FSM, anyone else's."""

    state: FSMContext
    contexts: FSMContextMiddleware
    bot: Bot

    async def open(self, entry: OpenSteps) -> None:
        await self.state.set_state(DealEntry.steps)
        await self.state.update_data({fsm.STEPS_KEY: entry.to_data()})

    async def save(self, entry: OpenSteps) -> None:
        await self.state.update_data({fsm.STEPS_KEY: entry.to_data()})

    async def done(self, message_id: int) -> None:
        """The message is done with (recorded, cancelled, stale): later presses change nothing."""
        data = fsm.with_closed(await self.state.get_data(), message_id)
        await self.state.set_data(data)
        if fsm.STEPS_KEY not in data:
            await self.state.set_state(None)

    async def opener_name(self, message: Message, presser: int) -> str | None:
        """The name of someone else who has `message` open (his FSM state confirms it)."""
        opener = opener_of(message)
        if opener is None or opener == presser:
            return None
        context = self.contexts.resolve_context(self.bot, message.chat.id, opener)
        entry = fsm.open_steps(await context.get_data(), message.message_id) if context else None
        return entry.opener_name if entry is not None else None

    async def check(
        self,
        message: Message,
        data: DealCb,
        caller: Caller,
        snap: Snapshot | None,
        now: datetime,
    ) -> OpenSteps | Refused:
        """The steps this press may act on, or why it may not (a stale message is forgotten)."""
        live = snap.state if snap is not None else None
        if live is None or live.game_id != data.game:
            return Refused("error-stale-button")
        if not live.may_record(caller.user_id, caller.username):
            return Refused("steps-not-player")
        saved = await self.state.get_data()
        if fsm.closed(saved, message.message_id):
            return Refused("steps-moved-on")
        entry = fsm.open_steps(saved, message.message_id)
        if entry is None:
            name = await self.opener_name(message, caller.user_id or 0)
            if name is not None:
                return Refused("steps-not-opener", {"name": name})
        playing = live.status is GameStatus.PLAYING and snap is not None and snap.sheet is not None
        if (
            entry is None
            or not playing
            or entry.game_id != live.game_id
            or entry.records != fingerprint(live)
            or now - entry.opened_at > LIFETIME
        ):
            await self.done(message.message_id)
            return STALE
        current = steps.step(entry.seating, entry.draft)
        if data.ver != entry.version or data.step is not current:
            return Refused("steps-moved-on")
        return entry
