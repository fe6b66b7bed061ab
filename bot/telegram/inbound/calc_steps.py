"""The buttons of `/calc` step by step: CallbackData, FSM states, keyboards."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from aiogram.filters.callback_data import CallbackData
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import (
    InlineKeyboardMarkup,
)
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.texts.calc import (
    convention_prompt,
    names_prompt,
    player_prompt,
    players_prompt,
    pool_prompt,
)
from bot.texts.i18n import Safe, Translator
from scoring.calc import (
    line_example,
)
from scoring.rules import PRESETS, preset

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


STATES: Final = {
    CalcStep.CONVENTION: CalcForm.convention,
    CalcStep.PLAYERS: CalcForm.players,
    CalcStep.POOL: CalcForm.pool,
    CalcStep.NAMES: CalcForm.names,
    CalcStep.PLAYER: CalcForm.player,
}


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
