"""`/calc`: settle a game played on paper, in a group or a private chat."""

import contextlib
from dataclasses import replace
from enum import StrEnum
from typing import Any, Final

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, MagicData, StateFilter
from aiogram.filters.callback_data import CallbackData
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State
from aiogram.types import CallbackQuery, Message, ReplyParameters
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.core import Caller
from bot.telegram.outbound import at_once
from bot.telegram.outbound.outbox import CAPTION_LIMIT, render_png
from bot.texts.i18n import Safe, Translator
from bot.texts.score import calc_error_text, calc_text
from bot.texts.views import chunks, plain_text
from scoring import calc
from scoring.paper import PaperSheet, as_sheet, format_calc
from scoring.rules import PRESETS, preset
from scoring.settle import settle

router = Router(name=__name__)

NAMES_EXAMPLE: Final = ("Anna", "Boris", "Clara", "Dima")


class CalcStep(StrEnum):
    """The steps in order; a step's lower-case name is its text's key and its picked value's."""

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


# Named as members of a `CalcForm` states group, the names steps already stored carry.
STATES: Final = {step: State(step.name.lower(), "CalcForm") for step in CalcStep}
ORDER: Final = tuple(CalcStep)


def choices(step: CalcStep, data: dict[str, Any]) -> tuple[str, ...]:
    """The values a step's buttons offer: for the pool, the usual targets and the convention's."""
    if step is CalcStep.POOL:
        own = preset(str(data.get("convention", "sochi"))).pool_target
        return tuple(str(pool) for pool in sorted({10, 20, 30, 40, 50, own}))
    return {CalcStep.CONVENTION: tuple(PRESETS), CalcStep.PLAYERS: ("3", "4")}.get(step, ())


# -- one message --------------------------------------------------------------------------------
@router.message(Command("calc"))
async def calc_cmd(
    message: Message, command: CommandObject, caller: Caller, t: Translator, state: FSMContext
) -> None:
    if command.args is None:
        opener = caller.first_name or caller.username or "?"
        await state.set_data({"owner": caller.user_id or 0, "opener": opener})  # a fresh start
        return await show(message, None, t, state, CalcStep.CONVENTION)
    try:
        sheet = calc.parse_calc(message.text or "")
    except calc.CalcError as error:
        await at_once.answer(message, calc_error_text(t, error))
    else:
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
@router.callback_query(CalcCb.filter())
async def calc_press(
    query: CallbackQuery, callback_data: CalcCb, t: Translator, state: FSMContext
) -> None:
    """A button of the steps: only its opener's press counts, and only on the latest prompt."""
    act, step, v = callback_data.act, callback_data.step, callback_data.v
    if callback_data.owner != query.from_user.id:
        owner = FSMContext(state.storage, replace(state.key, user_id=callback_data.owner))
        opener = (await owner.get_data()).get("opener", "?")
        return await at_once.toast(query, t("calc-not-yours", name=opener), alert=True)
    data = await state.get_data()
    message = query.message
    if (
        not isinstance(message, Message)
        or await state.get_state() != STATES[step].state
        or data.get("prompt") != message.message_id
    ):
        return await at_once.toast(query, t("calc-stale"), alert=True)
    at = ORDER.index(step)
    if act is CalcAct.CANCEL:
        await state.clear()
        await at_once.edit(message, t("calc-cancelled"))
    elif act is CalcAct.BACK and step is CalcStep.PLAYER and data.get("lines"):
        await state.update_data(lines=data["lines"][:-1])
        await show(message, message, t, state, step)
    elif act is CalcAct.BACK:
        await show(message, message, t, state, ORDER[max(at - 1, 0)])
    elif (str(int(v)) if step is CalcStep.POOL and v.isdigit() else v) in choices(step, data):
        picked = v if step is CalcStep.CONVENTION else int(v)
        await state.update_data({step.name.lower(): picked})
        await show(message, message, t, state, ORDER[at + 1])
    else:
        return await at_once.toast(query, t("calc-stale"), alert=True)
    await at_once.toast(query)


@router.message(
    StateFilter(STATES[CalcStep.NAMES], STATES[CalcStep.PLAYER]),
    MagicData(F.event.text),
    MagicData(~F.event.text.startswith("/")),
)
async def calc_reply(message: Message, caller: Caller, t: Translator, state: FSMContext) -> None:
    """The opener's names or one player's numbers: in a group, only as a reply to the prompt."""
    data = await state.get_data()
    replied = message.reply_to_message
    text = message.text or ""
    naming = await state.get_state() == STATES[CalcStep.NAMES].state
    problem = answer_problem(t, text, data, naming)
    if not caller.private and (replied is None or replied.message_id != data.get("prompt")):
        if problem is None:
            await at_once.answer(message, t("calc-reply-hint"))
        return
    if problem is not None:
        await at_once.answer(message, problem)
        return
    if naming:
        await state.update_data(names=list(calc.read_names(calc.split_words(text))), lines=[])
        return await show(message, None, t, state, CalcStep.PLAYER)
    names, lines = tuple(data["names"]), [*data["lines"], text]
    if len(lines) < len(names):
        await state.update_data(lines=lines)
        return await show(message, None, t, state, CalcStep.PLAYER)
    await state.clear()
    players = [calc.parse_player_line(s, names, name=n) for s, n in zip(lines, names, strict=True)]
    sheet = calc.build_sheet(data["convention"], {"pool_target": str(data["pool"])}, None, players)
    await answer_settled(message, t, sheet)
    await at_once.answer(message, t("calc-as-message", text=format_calc(sheet)))


def answer_problem(t: Translator, text: str, data: dict[str, Any], naming: bool) -> Safe | None:
    """What is wrong with the opener's answer (names, or the next player's numbers); None: none."""
    if naming:
        count = int(data["players"])
        with contextlib.suppress(calc.CalcError):
            if len(calc.read_names(calc.split_words(text))) == count:
                return None
        return t("calc-names-expected", players=count, example=" ".join(NAMES_EXAMPLE[:count]))
    names = tuple(data["names"])
    try:
        calc.parse_player_line(text, names, name=names[len(data["lines"])], lang=t.lang)
    except calc.CalcError as error:
        return calc_error_text(t, error)
    return None


async def show(
    origin: Message, edit: Message | None, t: Translator, state: FSMContext, step: CalcStep
) -> None:
    """Show a step: edit the pressed message, or send a new prompt in reply to `origin`."""
    await state.set_state(STATES[step])
    data = await state.get_data()
    owner, count = int(data.get("owner", 0)), int(data.get("players", 0))
    names, number = tuple(data.get("names", ())), len(data.get("lines", ())) + 1
    name, example = str(data.get("opener", "?")), " ".join(NAMES_EXAMPLE[:count])
    if step is CalcStep.PLAYER:
        name = names[number - 1]
        example = calc.line_example(name, names, t.lang).split(" ", 1)[1]
    text = t(
        f"calc-step-{step.name.lower()}",
        convention=t(f"convention-{data.get('convention', 'sochi')}"),
        name=name,
        number=number,
        players=count,
        pool=data.get("pool", ""),
        example=example,
    )
    builder = InlineKeyboardBuilder()
    for v in choices(step, data):
        label = t(f"convention-{v}") if step is CalcStep.CONVENTION else v
        picked = CalcCb(owner=owner, step=step, act=CalcAct.PICK, v=v)
        builder.button(text=label, callback_data=picked)
    builder.adjust(3 if step is CalcStep.POOL else 2)
    rows = InlineKeyboardBuilder()
    for act in (CalcAct.BACK, CalcAct.CANCEL)[step is CalcStep.CONVENTION :]:
        text_key = f"calc-button-{act.name.lower()}"
        rows.button(text=t(text_key), callback_data=CalcCb(owner=owner, step=step, act=act))
    builder.attach(rows)
    keyboard = builder.as_markup()
    if edit is not None:
        await at_once.edit(edit, text, keyboard)
        return
    reply = ReplyParameters(message_id=origin.message_id, allow_sending_without_reply=True)
    sent = await at_once.answer(origin, text, reply_markup=keyboard, reply_parameters=reply)
    if sent is not None:
        await state.update_data(prompt=sent.message_id)
