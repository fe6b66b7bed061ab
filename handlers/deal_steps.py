"""`/deal` without arguments: the deal as inline-keyboard steps, recorded like a typed `/deal`.

The steps live in a small in-memory draft per message (bot/deal_steps.py is the machine); a button
carries only the game, the draft's version, the step and the value pressed, and nothing of it is
trusted: every press is checked against the chat's live game in the database (the game, the
presser's seat or scorekeeping, the records since the steps were opened) and against the draft (its
opener, its version, the values the step offers). ✅ builds the canonical line and calls
`GameService.record` — the same path, rules and refusals as a typed `/deal`.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Final

from aiogram import Bot, Dispatcher, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot import deal_steps as steps
from bot.deal_steps import DealStep, Draft, Seating
from bot.i18n import Safe, Translator
from bot.posting import post_result
from bot.service import Caller, GameError, GameService, GameState
from bot.service.game import DEAL_EXAMPLE
from bot.storage import GameStatus
from bot.views import error_text, number_label, plain_text, recorded_text, shown_line
from scoring.errors import IllegalDeal, ScoringError

router = Router(name=__name__)
log = logging.getLogger(__name__)

DRAFTS_KEY: Final = "deal_drafts"
MAX_DRAFTS: Final = 512  # open step messages kept per bot; the oldest is forgotten first
DRAFT_LIFETIME: Final = timedelta(hours=6)


class Act(StrEnum):
    PICK = "p"
    BACK = "b"
    CANCEL = "x"
    RECORD = "ok"


class DealCb(CallbackData, prefix="ds"):
    """A button of the deal steps: `ver` is the draft's version the keyboard was drawn for."""

    game: int
    ver: int
    act: Act
    step: DealStep
    v: int = 0


@dataclass(slots=True)
class Steps:
    """One step message: who opened it, for which game and records, and its drafts so far."""

    opener: int | None
    opener_name: str
    game_id: int
    records: int  # fingerprint of the records in force when it was opened
    seating: Seating
    opened_at: datetime
    drafts: list[Draft] = field(default_factory=lambda: [Draft()])
    version: int = 0

    @property
    def draft(self) -> Draft:
        return self.drafts[-1]


class StepBook:
    """The open step messages of one bot, by (chat, message); lost on a restart (then stale)."""

    def __init__(self, limit: int = MAX_DRAFTS) -> None:
        self.limit = limit
        self._open: OrderedDict[tuple[int, int], Steps] = OrderedDict()
        self._closed: OrderedDict[tuple[int, int], None] = OrderedDict()

    def put(self, chat_id: int, message_id: int, entry: Steps) -> None:
        self._open[chat_id, message_id] = entry
        while len(self._open) > self.limit:
            self._open.popitem(last=False)

    def get(self, chat_id: int, message_id: int, now: datetime) -> Steps | None:
        entry = self._open.get((chat_id, message_id))
        if entry is not None and now - entry.opened_at > DRAFT_LIFETIME:
            self.drop(chat_id, message_id)
            return None
        return entry

    def drop(self, chat_id: int, message_id: int) -> None:
        """The message is done with (recorded, cancelled, stale): later presses change nothing."""
        self._open.pop((chat_id, message_id), None)
        self._closed[chat_id, message_id] = None
        while len(self._closed) > self.limit:
            self._closed.popitem(last=False)

    def closed(self, chat_id: int, message_id: int) -> bool:
        return (chat_id, message_id) in self._closed

    def __len__(self) -> int:
        return len(self._open)


def book_of(dispatcher: Dispatcher) -> StepBook:
    """The dispatcher's step book (one per bot, made on first use)."""
    book = dispatcher.workflow_data.get(DRAFTS_KEY)
    if not isinstance(book, StepBook):
        book = dispatcher.workflow_data[DRAFTS_KEY] = StepBook()
    return book


def fingerprint(state: GameState) -> int:
    """Changes whenever a record is added, undone or corrected: a draft made before is stale."""
    return hash(tuple((item.seq, item.line) for item in state.records))


def keyboard(t: Translator, game_id: int, entry: Steps) -> InlineKeyboardMarkup:
    draft, seating, ver = entry.draft, entry.seating, entry.version
    current = steps.step(seating, draft)

    def button(text: str, act: Act, value: int = 0) -> InlineKeyboardButton:
        data = DealCb(game=game_id, ver=ver, act=act, step=current, v=value)
        return InlineKeyboardButton(text=text, callback_data=data.pack())

    rows = [
        [button(steps.label(t, choice), Act.PICK, choice.value) for choice in row]
        for row in steps.rows(seating, draft)
    ]
    last = [button(t.template("steps-cancel"), Act.CANCEL)]
    if len(entry.drafts) > 1:
        last.insert(0, button(t.template("steps-back"), Act.BACK))
    if current is DealStep.CONFIRM:
        last.insert(0, button(t.template("steps-record"), Act.RECORD))
    return InlineKeyboardMarkup(inline_keyboard=[*rows, last])


# -- opening ---------------------------------------------------------------------------------
def _without_args(message: Message, command: CommandObject) -> bool:
    return not (command.args or "").strip()


@router.message(Command("deal", "d"), _without_args)
async def deal_steps_cmd(
    message: Message, caller: Caller, t: Translator, game: GameService, dispatcher: Dispatcher
) -> None:
    """`/deal` alone: the first step, for a player (or the scorekeeper) of the live game."""
    snap = await game.snapshot(caller.chat_id)
    state, sheet = snap.state, snap.sheet
    if state.status is GameStatus.ENDED:
        raise GameError("no-game", "", {}, "/newgame sochi")
    if state.status is GameStatus.FORMING or sheet is None:
        missing = str(state.seats - len(state.players))
        raise GameError("game-not-started", "", {"missing": missing}, "/join")
    if not state.may_record(caller.user_id, caller.username):
        players = ", ".join(state.names)
        raise IllegalDeal("not-a-player", caller.shown, {"players": players}, DEAL_EXAMPLE)
    if sheet.finished:
        raise IllegalDeal("game-finished", "/deal", {}, "/endgame")
    seating = Seating(state.names, sheet.next_dealer, sheet.deals + 1)
    entry = Steps(
        caller.user_id, caller.shown, state.game_id, fingerprint(state), seating, game.clock()
    )
    sent = await message.answer(
        steps.step_text(t, seating, entry.draft), reply_markup=keyboard(t, state.game_id, entry)
    )
    book_of(dispatcher).put(caller.chat_id, sent.message_id, entry)


# -- presses ---------------------------------------------------------------------------------
async def _toast(query: CallbackQuery, text: str, *, alert: bool = False) -> None:
    await query.answer(plain_text(text), show_alert=alert)


async def _close(message: Message, text: Safe) -> None:
    """The step message becomes `text`, without buttons."""
    try:
        await message.edit_text(text, reply_markup=None)
    except TelegramAPIError as error:
        log.info("the deal steps message could not be closed: %s", error)


async def _checked(
    query: CallbackQuery,
    data: DealCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    book: StepBook,
) -> tuple[Message, Steps] | None:
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
    state = snap.state if snap is not None else None
    if state is None or state.game_id != data.game:
        await _toast(query, t("error-stale-button"))
        return None
    if not state.may_record(caller.user_id, caller.username):
        await _toast(query, t("steps-not-player"))
        return None
    key = (caller.chat_id, message.message_id)
    if book.closed(*key):
        await _toast(query, t("steps-moved-on"))
        return None
    entry = book.get(*key, game.clock())
    if entry is not None and entry.opener != caller.user_id:
        await _toast(query, t("steps-not-opener", name=entry.opener_name))
        return None
    live = state.status is GameStatus.PLAYING and snap is not None and snap.sheet is not None
    if (
        entry is None
        or not live
        or entry.game_id != state.game_id
        or entry.records != fingerprint(state)
    ):
        book.drop(*key)
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
    bot: Bot,
    dispatcher: Dispatcher,
) -> None:
    """✅: the canonical line goes through `GameService.record`, as a typed `/deal` would."""
    book = book_of(dispatcher)
    checked = await _checked(query, callback_data, caller, t, game, book)
    if checked is None:
        return
    message, entry = checked
    if steps.step(entry.seating, entry.draft) is not DealStep.CONFIRM:
        await _toast(query, t("steps-moved-on"))
        return
    text = steps.notation(entry.seating, entry.draft)
    book.drop(caller.chat_id, message.message_id)  # a second ✅ finds nothing to record
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
    await post_result(bot, game, t, caller.chat_id, result, recorded_text(t, result))


@router.callback_query(DealCb.filter())
async def step_press(
    query: CallbackQuery,
    callback_data: DealCb,
    caller: Caller,
    t: Translator,
    game: GameService,
    dispatcher: Dispatcher,
) -> None:
    """A value, ↩ or ✖: the draft moves and the message shows the next step."""
    book = book_of(dispatcher)
    checked = await _checked(query, callback_data, caller, t, game, book)
    if checked is None:
        return
    message, entry = checked
    if callback_data.act is Act.CANCEL:
        book.drop(caller.chat_id, message.message_id)
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
    await query.answer()
    await message.edit_text(
        steps.step_text(t, entry.seating, entry.draft),
        reply_markup=keyboard(t, entry.game_id, entry),
    )


@router.callback_query(F.data.startswith(DealCb.__prefix__ + DealCb.__separator__))
async def unreadable_press(query: CallbackQuery, t: Translator) -> None:
    """Deal-steps data that does not unpack (forged, or from an older version of the bot)."""
    await _toast(query, t("error-stale-button"))
