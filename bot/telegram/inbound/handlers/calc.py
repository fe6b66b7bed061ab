"""`/calc`: settle a game played on paper, in a group or a private chat."""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from typing import Any, Final

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, MagicData, StateFilter
from aiogram.filters.callback_data import CallbackData
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message, ReplyParameters
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.core import Caller
from bot.telegram.outbound import at_once
from bot.telegram.outbound.outbox import CAPTION_LIMIT, render_png
from bot.texts.calc import (
    calc_error_text,
    calc_message_text,
    calc_text,
    convention_prompt,
    names_prompt,
    player_prompt,
    players_prompt,
    pool_prompt,
)
from bot.texts.i18n import Safe, Translator
from bot.texts.views import chunks, plain_text
from scoring.calc import (
    CalcError,
    Header,
    as_sheet,
    build_sheet,
    line_example,
    parse_calc,
    parse_player_line,
    read_names,
    split_words,
)
from scoring.paper import PaperSheet
from scoring.rules import PRESETS, preset
from scoring.settle import settle

router = Router(name=__name__)

POOL_CHOICES: Final = (10, 20, 30, 40, 50)
NAMES_EXAMPLE: Final = ("Anna", "Boris", "Clara", "Dima")


class CalcStep(StrEnum):
    CONVENTION = "c"
    PLAYERS = "n"
    POOL = "p"
    NAMES = "m"
    PLAYER = "l"


class CalcAct(StrEnum):
    PICK = "p"
    BACK = "b"
    CANCEL = "x"


class CalcCb(CallbackData, prefix="calc"):
    """A button of `/calc` step by step: `owner` is the user who opened it, `v` the value picked."""

    owner: int
    step: CalcStep
    act: CalcAct
    v: str = ""


class CalcForm(StatesGroup):
    convention = State()
    players = State()
    pool = State()
    names = State()
    player = State()


STATES: Final = {step: getattr(CalcForm, step.name.lower()) for step in CalcStep}


def step_view(
    t: Translator, step: CalcStep, data: dict[str, Any]
) -> tuple[Safe, InlineKeyboardMarkup]:
    owner = int(data.get("owner", 0))
    builder = InlineKeyboardBuilder()
    convention = str(data.get("convention", "sochi"))
    if step is CalcStep.CONVENTION:
        text = convention_prompt(t, str(data.get("opener", "?")))
        for name in PRESETS:
            builder.button(text=t(f"convention-{name}"), callback_data=calc_cb(owner, step, name))
        builder.adjust(2)
    elif step is CalcStep.PLAYERS:
        text = players_prompt(t, convention)
        for size in ("3", "4"):
            builder.button(text=size, callback_data=calc_cb(owner, step, size))
        builder.adjust(2)
    elif step is CalcStep.POOL:
        text = pool_prompt(t, convention, int(data["players"]))
        for pool in pool_choices(data):
            builder.button(text=str(pool), callback_data=calc_cb(owner, step, str(pool)))
        builder.adjust(3)
    elif step is CalcStep.NAMES:
        count = int(data["players"])
        text = names_prompt(
            t, convention, int(data["pool"]), " ".join(NAMES_EXAMPLE[:count]), count
        )
    else:
        names = tuple(data["names"])
        number = len(data.get("lines", ())) + 1
        example = line_example(names[number - 1], names, t.lang).split(" ", 1)[1]
        text = player_prompt(t, names, number, int(data["pool"]), example)
    rows = InlineKeyboardBuilder()
    if step is not CalcStep.CONVENTION:
        rows.button(
            text=t("calc-button-back"), callback_data=calc_cb(owner, step, act=CalcAct.BACK)
        )
    rows.button(
        text=t("calc-button-cancel"), callback_data=calc_cb(owner, step, act=CalcAct.CANCEL)
    )
    rows.adjust(2)
    builder.attach(rows)
    return text, builder.as_markup()


def pool_choices(data: dict[str, Any]) -> tuple[int, ...]:
    """The usual targets and the convention's own."""
    own = preset(str(data.get("convention", "sochi"))).pool_target
    return tuple(sorted({*POOL_CHOICES, own}))


def calc_cb(owner: int, step: CalcStep, v: str = "", act: CalcAct = CalcAct.PICK) -> CalcCb:
    return CalcCb(owner=owner, step=step, act=act, v=v)


# -- one message --------------------------------------------------------------------------------
@router.message(Command("calc"))
async def calc_cmd(
    message: Message, command: CommandObject, caller: Caller, t: Translator, state: FSMContext
) -> None:
    if not (command.args or "").strip():
        await start_steps(message, caller, t, state)
        return
    try:
        sheet = parse_calc(message.text or "")
    except CalcError as error:
        await at_once.answer(message, calc_error_text(t, error))
        return
    await answer_settled(message, t, sheet)


async def answer_settled(message: Message, t: Translator, sheet: PaperSheet) -> None:
    """The balances, payments and sheet in text — under the sheet's picture when it can be drawn."""
    settlement = settle(sheet.rules, sheet.totals, sheet.stake)
    text = calc_text(t, sheet, settlement)
    png = await render_png(as_sheet(sheet), t.lang, settlement)
    if png is not None:
        fits = len(plain_text(text)) <= CAPTION_LIMIT
        await at_once.answer_photo(message, png, "calc.png", text if fits else None)
        if fits:
            return
    for part in chunks(text.split("\n")):
        await at_once.answer(message, part)


# -- step by step -------------------------------------------------------------------------------
async def start_steps(message: Message, caller: Caller, t: Translator, state: FSMContext) -> None:
    opener = caller.first_name or caller.username or "?"
    await state.clear()
    await state.update_data(owner=caller.user_id or 0, opener=opener)
    await show(message, None, t, state, CalcStep.CONVENTION)


@router.callback_query(CalcCb.filter())
async def calc_press(
    query: CallbackQuery, callback_data: CalcCb, t: Translator, state: FSMContext
) -> None:
    """A button of the steps: only its opener's press counts, and only on the latest prompt."""
    if callback_data.owner != query.from_user.id:
        owner = FSMContext(state.storage, replace(state.key, user_id=callback_data.owner))
        opener = (await owner.get_data()).get("opener", "?")
        await at_once.toast(query, t("calc-not-yours", name=opener), alert=True)
        return
    data = await state.get_data()
    message = query.message
    current = await state.get_state()
    if (
        not isinstance(message, Message)
        or current != STATES[callback_data.step].state
        or data.get("prompt") != message.message_id
    ):
        await at_once.toast(query, t("calc-stale"), alert=True)
        return
    act, step = callback_data.act, callback_data.step
    if act is CalcAct.CANCEL:
        await state.clear()
        await at_once.edit(message, t("calc-cancelled"))
    elif act is CalcAct.BACK:
        await go_back(message, t, state, step, data)
    elif not await pick(message, t, state, step, callback_data.v):
        await at_once.toast(query, t("calc-stale"), alert=True)
        return
    await at_once.toast(query)


async def pick(message: Message, t: Translator, state: FSMContext, step: CalcStep, v: str) -> bool:
    """A value picked by a button; False when the step does not offer it."""
    if step is CalcStep.CONVENTION and v in PRESETS:
        await state.update_data(convention=v)
        await show(message, message, t, state, CalcStep.PLAYERS)
    elif step is CalcStep.PLAYERS and v in ("3", "4"):
        await state.update_data(players=int(v))
        await show(message, message, t, state, CalcStep.POOL)
    elif step is CalcStep.POOL and v.isdigit() and int(v) in pool_choices(await state.get_data()):
        await state.update_data(pool=int(v))
        await show(message, message, t, state, CalcStep.NAMES)
    else:
        return False
    return True


async def go_back(
    message: Message, t: Translator, state: FSMContext, step: CalcStep, data: dict[str, Any]
) -> None:
    if step is CalcStep.PLAYER and data.get("lines"):
        await state.update_data(lines=data["lines"][:-1])
        await show(message, message, t, state, CalcStep.PLAYER)
        return
    order = tuple(CalcStep)
    await show(message, message, t, state, order[max(order.index(step) - 1, 0)])


@router.message(
    StateFilter(CalcForm.names, CalcForm.player),
    MagicData(F.event.text),
    MagicData(~F.event.text.startswith("/")),
)
async def calc_reply(message: Message, caller: Caller, t: Translator, state: FSMContext) -> None:
    """The opener's names or one player's numbers."""
    data = await state.get_data()
    replied = message.reply_to_message
    text = message.text or ""
    if not caller.private and (replied is None or replied.message_id != data.get("prompt")):
        if reads_as_answer(text, data, await state.get_state() == CalcForm.names.state):
            await at_once.answer(message, t("calc-reply-hint"))
        return
    if await state.get_state() == CalcForm.names.state:
        count = int(data["players"])
        try:
            names = read_names(split_words(text))
        except CalcError:
            names = ()
        if len(names) != count:
            example = " ".join(NAMES_EXAMPLE[:count])
            await at_once.answer(message, t("calc-names-expected", players=count, example=example))
            return
        await state.update_data(names=list(names), lines=[])
        await show(message, None, t, state, CalcStep.PLAYER)
        return
    names = tuple(data["names"])
    lines = [*data["lines"]]
    try:
        parse_player_line(text, names, name=names[len(lines)], lang=t.lang)
    except CalcError as error:
        await at_once.answer(message, calc_error_text(t, error))
        return
    lines.append(text)
    if len(lines) < len(names):
        await state.update_data(lines=lines)
        await show(message, None, t, state, CalcStep.PLAYER)
        return
    await state.clear()
    header = Header(data["convention"], (("pool_target", str(data["pool"])),))
    players = [
        parse_player_line(line, names, name=n) for line, n in zip(lines, names, strict=True)
    ]
    sheet = build_sheet(header, players)
    await answer_settled(message, t, sheet)
    await at_once.answer(message, calc_message_text(t, sheet))


def reads_as_answer(text: str, data: dict[str, Any], naming: bool) -> bool:
    """Whether the opener's message beside the prompt answers it (names or numbers)."""
    if naming:
        try:
            return len(read_names(split_words(text))) == int(data["players"])
        except CalcError:
            return False
    names = tuple(data.get("names", ()))
    if not names:
        return False
    try:
        parse_player_line(text, names, name=names[min(len(data.get("lines", ())), len(names) - 1)])
    except CalcError:
        return False
    return True


async def show(
    origin: Message, edit: Message | None, t: Translator, state: FSMContext, step: CalcStep
) -> None:
    """Show a step: edit the pressed message, or send a new prompt in reply to `origin`."""
    await state.set_state(STATES[step])
    data = await state.get_data()
    text, keyboard = step_view(t, step, data)
    if edit is not None:
        await at_once.edit(edit, text, keyboard)
        return
    sent = await at_once.answer(
        origin,
        text,
        reply_markup=keyboard,
        reply_parameters=ReplyParameters(
            message_id=origin.message_id, allow_sending_without_reply=True
        ),
    )
    if sent is not None:
        await state.update_data(prompt=sent.message_id)
