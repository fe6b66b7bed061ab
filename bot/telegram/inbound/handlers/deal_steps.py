"""`/deal` without arguments: the deal as inline-keyboard steps, recorded like a typed `/deal`."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from aiogram import Bot, Dispatcher, F, Router
from aiogram.filters import Command, CommandObject, MagicData, StateFilter
from aiogram.fsm.context import FSMContext
from aiogram.fsm.middleware import FSMContextMiddleware
from aiogram.types import CallbackQuery, ForceReply, InlineKeyboardMarkup, Message

from bot.core import Caller, GameError, GameState, looks, records
from bot.core.records import DEAL_EXAMPLE
from bot.core.results import Snapshot
from bot.domain import GameStatus
from bot.telegram.inbound.context import Ctx
from bot.telegram.inbound.fsm import (
    STEPS_KEY,
    DealEntry,
    OpenSteps,
    closed,
    open_steps,
    with_closed,
)
from bot.telegram.keyboards import Act, DealCb, deal_keyboard
from bot.telegram.outbound import at_once
from bot.texts import deal_steps as steps
from bot.texts.deal_draft import DealStep
from bot.texts.i18n import Safe, Translator
from bot.texts.views import error_text, number_label, plain_text, recorded_text, shown_line
from scoring.errors import IllegalDeal, ScoringError
from scoring.seating import Seating

router = Router(name=__name__)
log = logging.getLogger(__name__)
NOTE_KEY = "note_for"  # FSM data: the step message whose note the sender's next text is


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
        await self.state.update_data({STEPS_KEY: entry.to_data()})

    async def save(self, entry: OpenSteps) -> None:
        await self.state.update_data({STEPS_KEY: entry.to_data()})

    async def done(self, message_id: int) -> None:
        """The message is done with (recorded, cancelled, stale): later presses change nothing."""
        data = with_closed(await self.state.get_data(), message_id)
        await self.state.set_data(data)
        if STEPS_KEY not in data:
            await self.state.set_state(None)

    async def opener_name(self, message: Message, presser: int) -> str | None:
        """The name of someone else who has `message` open (his FSM state confirms it)."""
        opener = opener_of(message)
        if opener is None or opener == presser:
            return None
        context = self.contexts.resolve_context(self.bot, message.chat.id, opener)
        entry = open_steps(await context.get_data(), message.message_id) if context else None
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
        if closed(saved, message.message_id):
            return Refused("steps-moved-on")
        entry = open_steps(saved, message.message_id)
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


def keyboard(t: Translator, opener: int, entry: OpenSteps) -> InlineKeyboardMarkup:
    back = len(entry.drafts) > 1
    flags = {"concede": entry.concede, "prikup": entry.prikup, "odessa": entry.odessa}
    return deal_keyboard(
        t, entry.game_id, opener, entry.version, entry.seating, entry.draft, back=back, **flags
    )


# -- opening ---------------------------------------------------------------------------------
async def _without_args(message: Message, command: CommandObject) -> bool:
    return not (command.args or "").strip()


@router.message(Command("deal", "d"), _without_args)
async def deal_steps_cmd(
    message: Message,
    ctx: Ctx,
    state: FSMContext,
    dispatcher: Dispatcher,
    bot: Bot,
) -> None:
    """`/deal` alone: the first step, for a player (or the scorekeeper) of the live game."""
    caller, t = ctx.caller, ctx.t
    snap = await looks.snapshot(ctx.core, caller.chat_id, topic=caller.topic)
    live, sheet = snap.state, snap.sheet
    if live.status is GameStatus.ENDED:
        raise GameError("no-game", "", {}, "/newgame sochi")
    if live.status is GameStatus.FORMING or sheet is None:
        missing = str(live.seats - len(live.players))
        raise GameError("game-not-started", "", {"missing": missing}, "/join")
    if not live.may_record(caller.user_id, caller.username):
        players = ", ".join(live.names)
        raise IllegalDeal("not-a-player", caller.shown, {"players": players}, DEAL_EXAMPLE)
    if sheet.finished:
        raise IllegalDeal("game-finished", "/deal", {}, "/endgame")
    seating = Seating(live.names, sheet.next_dealer, sheet.deals + 1)
    entry = OpenSteps(0, caller.shown, live.game_id, fingerprint(live), seating, ctx.now())
    entry.concede, entry.prikup = sheet.rules.three_down, sheet.rules.prikup_bonus
    entry.odessa = sheet.rules.odessa_rules
    sent = await at_once.answer(
        message,
        steps.step_text(t, seating, entry.draft),
        reply_markup=keyboard(t, caller.user_id or 0, entry),
    )
    if sent is None:  # not shown (Telegram refused it, or kept failing): nothing to open
        return
    entry.message_id = sent.message_id
    await StepsBook(state, dispatcher.fsm, bot).open(entry)


# -- presses ---------------------------------------------------------------------------------
async def _toast(query: CallbackQuery, text: str, *, alert: bool = False) -> None:
    await at_once.toast(query, plain_text(text), alert=alert)


async def _checked(
    query: CallbackQuery,
    data: DealCb,
    ctx: Ctx,
    book: StepsBook,
) -> tuple[Message, OpenSteps] | None:
    """The step message and its draft when this press may act on it; else the presser is told."""
    message, caller, t = query.message, ctx.caller, ctx.t
    if not isinstance(message, Message):
        await _toast(query, t("steps-stale-toast"), alert=True)
        return None
    try:
        snap = await looks.snapshot(ctx.core, caller.chat_id, topic=caller.topic)
    except GameError:
        snap = None
    verdict = await book.check(message, data, caller, snap, ctx.now())
    if isinstance(verdict, Refused):
        await _toast(query, t(verdict.key, **verdict.params), alert=verdict.alert)
        if verdict.close:
            await at_once.edit(message, t("steps-stale"))
        return None
    return message, verdict


@router.callback_query(DealCb.filter(F.act == Act.RECORD))
async def record_press(
    query: CallbackQuery,
    callback_data: DealCb,
    ctx: Ctx,
    state: FSMContext,
    dispatcher: Dispatcher,
    bot: Bot,
) -> None:
    """✅: the canonical line goes through `records.record`, as a typed `/deal` would."""
    t = ctx.t
    book = StepsBook(state, dispatcher.fsm, bot)
    checked = await _checked(query, callback_data, ctx, book)
    if checked is None:
        return
    message, entry = checked
    if steps.step(entry.seating, entry.draft) is not DealStep.CONFIRM:
        await _toast(query, t("steps-moved-on"))
        return
    text = steps.notation(entry.seating, entry.draft)
    try:
        async with ctx.work() as uow:
            result = await records.record(uow, ctx.caller, text)
            names = result.state.names
            number = number_label(t, result.scored)
            line = shown_line(t, result.scored.record, names)
            await ctx.out.edit(
                uow, message.message_id, t("deal-recorded", number=number, line=line)
            )
            await ctx.out.sheet(uow, result, recorded_text(t, result))
    except ScoringError as error:
        await book.done(message.message_id)  # the refused draft is done with
        await at_once.edit(message, Safe(f"{error_text(t, error)}\n{t('steps-start-again')}"))
        raise  # the errors router answers the press with the same refusal
    await book.done(message.message_id)  # committed: a second ✅ records nothing
    await _toast(query, t("steps-recorded-toast"))


@router.callback_query(DealCb.filter())
async def step_press(
    query: CallbackQuery,
    callback_data: DealCb,
    ctx: Ctx,
    state: FSMContext,
    dispatcher: Dispatcher,
    bot: Bot,
) -> None:
    """A value, ↩ or ✖: the draft moves and the message shows the next step."""
    caller, t = ctx.caller, ctx.t
    book = StepsBook(state, dispatcher.fsm, bot)
    checked = await _checked(query, callback_data, ctx, book)
    if checked is None:
        return
    message, entry = checked
    if callback_data.act is Act.CANCEL:
        await book.done(message.message_id)
        await at_once.toast(query)
        await at_once.edit(message, t("steps-cancelled"))
        return
    if callback_data.act is Act.EXTRA and callback_data.v == steps.Extra.NOTE:
        await at_once.toast(query)
        await state.update_data({NOTE_KEY: message.message_id})
        ask = t("steps-note-ask", name=caller.shown, number=entry.seating.number)
        await at_once.answer(message, ask, reply_markup=ForceReply(selective=True))
        return
    if callback_data.act is Act.BACK:
        if len(entry.drafts) > 1:
            entry.drafts.pop()
    else:
        seating, draft, value = entry.seating, entry.draft, callback_data.v
        try:
            if callback_data.act is Act.EXTRA:
                moved = steps.toggle(
                    seating, draft, value, entry.concede, entry.prikup, entry.odessa
                )
            else:
                moved = steps.press(seating, draft, value)
        except steps.BadPress:
            await _toast(query, t("steps-moved-on"))
            return
        entry.drafts.append(moved)
    entry.version += 1
    await book.save(entry)
    await at_once.toast(query)
    await at_once.edit(
        message,
        steps.step_text(t, entry.seating, entry.draft),
        keyboard(t, caller.user_id or 0, entry),
    )


async def awaiting_note(message: Message, state: FSMContext) -> bool:
    """The sender pressed 📝 on his open steps and this is his text (not a command)."""
    text = message.text or ""
    return bool(text) and not text.startswith("/") and NOTE_KEY in await state.get_data()


@router.message(StateFilter(DealEntry.steps), awaiting_note)
async def note_reply(message: Message, caller: Caller, t: Translator, state: FSMContext) -> None:
    """The note typed after 📝: it joins the draft, and the step message shows the new line."""
    data = await state.get_data()
    message_id = int(data.pop(NOTE_KEY))
    await state.set_data(data)
    entry = open_steps(data, message_id)
    if entry is None or steps.step(entry.seating, entry.draft) is not DealStep.CONFIRM:
        await at_once.answer(message, t("steps-moved-on"))
        return
    entry.drafts.append(steps.with_note(entry.draft, message.text or ""))
    entry.version += 1
    await state.update_data({STEPS_KEY: entry.to_data()})
    bot = message.bot
    assert bot is not None
    await at_once.edit_in(
        bot,
        caller.chat_id,
        message_id,
        steps.step_text(t, entry.seating, entry.draft),
        keyboard(t, caller.user_id or 0, entry),
    )
    await at_once.answer(message, t("steps-note-added"))


@router.callback_query(
    MagicData(F.event.data.startswith(DealCb.__prefix__ + DealCb.__separator__))
)
async def unreadable_press(query: CallbackQuery, t: Translator) -> None:
    """Deal-steps data that does not unpack (forged, or from an older version of the bot)."""
    await _toast(query, t("error-stale-button"))
