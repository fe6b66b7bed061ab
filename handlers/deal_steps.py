"""`/deal` without arguments: the deal as inline-keyboard steps, recorded like a typed `/deal`.

The steps live in aiogram's FSM (bot/tg/fsm.py: the storage, and what one open step message keeps),
one open step message per user in a chat; bot/texts/deal_steps.py is the machine, which asks the
engine what each step may offer. A button carries only the game, the draft's version, the step, the
value pressed and who opened the steps, and nothing of it is trusted: every press is checked
against the chat's live game in the database (the game, the presser's seat or scorekeeping, the
records since the steps were opened) and against the presser's FSM state (this message, its
version, the values the step offers). Who opened the steps is read from the message as Telegram
sends it with the press (its own buttons), and confirmed in that user's FSM state. ✅ builds the canonical line and calls `GameService.record` —
the same path, rules and refusals as a typed `/deal`.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Final

from aiogram import Bot, Dispatcher, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message

from bot.i18n import Safe, Translator
from bot.service import Caller, GameError, GameService, GameState
from bot.service.game import DEAL_EXAMPLE
from bot.storage import GameStatus
from bot.texts import deal_steps as steps
from bot.texts.deal_steps import DealStep, Seating
from bot.tg import fsm
from bot.tg.fsm import DealEntry, OpenSteps
from bot.tg.keyboards import Act, DealCb, deal_keyboard
from bot.tg.reply import Reply
from bot.views import error_text, number_label, plain_text, recorded_text, shown_line
from scoring.errors import IllegalDeal, ScoringError

router = Router(name=__name__)
log = logging.getLogger(__name__)

DRAFT_LIFETIME_SECONDS: Final = 6 * 3600


def fingerprint(state: GameState) -> str:
    """Changes whenever a record is added, undone or corrected: a draft made before is stale."""
    text = "\n".join(f"{item.seq} {item.line}" for item in state.records)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def keyboard(t: Translator, opener: int, entry: OpenSteps) -> InlineKeyboardMarkup:
    return deal_keyboard(
        t,
        entry.game_id,
        opener,
        entry.version,
        entry.seating,
        entry.draft,
        back=len(entry.drafts) > 1,
    )


# -- opening ---------------------------------------------------------------------------------
def _without_args(message: Message, command: CommandObject) -> bool:
    return not (command.args or "").strip()


@router.message(Command("deal", "d"), _without_args)
async def deal_steps_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, state: FSMContext
) -> None:
    """`/deal` alone: the first step, for a player (or the scorekeeper) of the live game."""
    snap = await game.snapshot(caller.chat_id)
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
    opener = caller.user_id or 0
    entry = OpenSteps(0, caller.shown, live.game_id, fingerprint(live), seating, game.clock())
    sent = await message.answer(
        steps.step_text(t, seating, entry.draft), reply_markup=keyboard(t, opener, entry)
    )
    entry.message_id = sent.message_id
    await state.set_state(DealEntry.steps)
    await state.update_data({fsm.STEPS_KEY: entry.to_data()})


# -- presses ---------------------------------------------------------------------------------
async def _toast(query: CallbackQuery, text: str, *, alert: bool = False) -> None:
    await query.answer(plain_text(text), show_alert=alert)


async def _close(message: Message, text: Safe) -> None:
    """The step message becomes `text`, without buttons."""
    try:
        await message.edit_text(text, reply_markup=None)
    except TelegramAPIError as error:
        log.info("the deal steps message could not be closed: %s", error)


async def _done(state: FSMContext, message_id: int) -> None:
    """The message is done with (recorded, cancelled, stale): later presses change nothing."""
    data = fsm.with_closed(await state.get_data(), message_id)
    await state.set_data(data)
    if fsm.STEPS_KEY not in data:
        await state.set_state(None)


def _opener_of(message: Message) -> int | None:
    """Who opened a step message, as its buttons (Telegram's copy, not the press) say."""
    markup = message.reply_markup
    for row in markup.inline_keyboard if markup is not None else ():
        for button in row:
            try:
                return DealCb.unpack(button.callback_data or "").by
            except (TypeError, ValueError):
                continue
    return None


async def _opener_name(
    dispatcher: Dispatcher, bot: Bot, message: Message, presser: int
) -> str | None:
    """The name of someone else who has `message` open (his FSM state confirms it), or None."""
    opener = _opener_of(message)
    if opener is None or opener == presser:
        return None
    context = dispatcher.fsm.resolve_context(bot, message.chat.id, opener)
    entry = fsm.open_steps(await context.get_data(), message.message_id) if context else None
    return entry.opener_name if entry is not None else None


async def _checked(
    query: CallbackQuery,
    data: DealCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    state: FSMContext,
    dispatcher: Dispatcher,
    bot: Bot,
) -> tuple[Message, OpenSteps] | None:
    """The step message and its draft when this press may act on it; otherwise the presser is
    told why (nothing changes for anyone who may not record in the live game)."""
    message = query.message
    if not isinstance(message, Message):
        await _toast(query, t("steps-stale-toast"), alert=True)
        return None
    try:
        snap = await game.snapshot(caller.chat_id)
    except GameError:
        snap = None
    live = snap.state if snap is not None else None
    if live is None or live.game_id != data.game:
        await _toast(query, t("error-stale-button"))
        return None
    if not live.may_record(caller.user_id, caller.username):
        await _toast(query, t("steps-not-player"))
        return None
    saved = await state.get_data()
    if fsm.closed(saved, message.message_id):
        await _toast(query, t("steps-moved-on"))
        return None
    entry = fsm.open_steps(saved, message.message_id)
    if entry is None:
        name = await _opener_name(dispatcher, bot, message, caller.user_id or 0)
        if name is not None:
            await _toast(query, t("steps-not-opener", name=name))
            return None
    playing = live.status is GameStatus.PLAYING and snap is not None and snap.sheet is not None
    if (
        entry is None
        or not playing
        or entry.game_id != live.game_id
        or entry.records != fingerprint(live)
        or (game.clock() - entry.opened_at).total_seconds() > DRAFT_LIFETIME_SECONDS
    ):
        await _done(state, message.message_id)
        await _toast(query, t("steps-stale-toast"), alert=True)
        await _close(message, t("steps-stale"))
        return None
    current = steps.step(entry.seating, entry.draft)
    if data.ver != entry.version or data.step is not current:
        await _toast(query, t("steps-moved-on"))
        return None
    return message, entry


@router.callback_query(DealCb.filter(F.act == Act.RECORD))
async def record_press(
    query: CallbackQuery,
    callback_data: DealCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    state: FSMContext,
    dispatcher: Dispatcher,
    bot: Bot,
    reply: Reply,
) -> None:
    """✅: the canonical line goes through `GameService.record`, as a typed `/deal` would."""
    checked = await _checked(query, callback_data, caller, t, game, state, dispatcher, bot)
    if checked is None:
        return
    message, entry = checked
    if steps.step(entry.seating, entry.draft) is not DealStep.CONFIRM:
        await _toast(query, t("steps-moved-on"))
        return
    text = steps.notation(entry.seating, entry.draft)
    await _done(state, message.message_id)  # a second ✅ finds nothing to record
    try:
        result = await game.record(caller, text)
    except ScoringError as error:
        await _close(message, Safe(f"{error_text(t, error)}\n{t('steps-start-again')}"))
        raise  # the errors router answers the press with the same refusal
    await query.answer(plain_text(t("steps-recorded-toast")))
    names = result.state.names
    await _close(
        message,
        t(
            "deal-recorded",
            number=number_label(t, result.scored),
            line=shown_line(t, result.scored.record, names),
        ),
    )
    await reply.sheet(result, recorded_text(t, result))


@router.callback_query(DealCb.filter())
async def step_press(
    query: CallbackQuery,
    callback_data: DealCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    state: FSMContext,
    dispatcher: Dispatcher,
    bot: Bot,
) -> None:
    """A value, ↩ or ✖: the draft moves and the message shows the next step."""
    checked = await _checked(query, callback_data, caller, t, game, state, dispatcher, bot)
    if checked is None:
        return
    message, entry = checked
    if callback_data.act is Act.CANCEL:
        await _done(state, message.message_id)
        await query.answer()
        await _close(message, t("steps-cancelled"))
        return
    if callback_data.act is Act.BACK:
        if len(entry.drafts) > 1:
            entry.drafts.pop()
    else:
        try:
            entry.drafts.append(steps.press(entry.seating, entry.draft, callback_data.v))
        except steps.BadPress:
            await _toast(query, t("steps-moved-on"))
            return
    entry.version += 1
    await state.update_data({fsm.STEPS_KEY: entry.to_data()})
    await query.answer()
    await message.edit_text(
        steps.step_text(t, entry.seating, entry.draft),
        reply_markup=keyboard(t, caller.user_id or 0, entry),
    )


@router.callback_query(F.data.startswith(DealCb.__prefix__ + DealCb.__separator__))
async def unreadable_press(query: CallbackQuery, t: Translator) -> None:
    """Deal-steps data that does not unpack (forged, or from an older version of the bot)."""
    await _toast(query, t("error-stale-button"))
