"""Inline buttons and their typed callback data (each within Telegram's 64 bytes); the bot's deep
links, whose game payload `game_<chat>_<number>` grants nothing."""

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.core import Player
from bot.core.ledger import Debt
from bot.texts import deal_steps as steps
from bot.texts import debts as debt_texts
from bot.texts.help import TOPICS, Topic, topic_label
from bot.texts.i18n import Translator
from scoring.seating import Seating

GROUP_PAYLOAD: Final = "added"  # ?startgroup=: the bot was added from its private /start
_GAME: Final = re.compile(r"game_(?P<chat>-?\d{1,20})_(?P<number>\d{1,9})")


def read_game_payload(payload: str) -> tuple[int, int] | None:
    match = _GAME.fullmatch(payload.strip())
    return None if match is None else (int(match["chat"]), int(match["number"]))


class JoinCb(CallbackData, prefix="j"):
    game: int


class ClaimCb(CallbackData, prefix="me"):
    """ "✋ This is me" under an opened game: the `@username` seat `seat` taken by the presser."""

    game: int
    seat: int


class VoteCb(CallbackData, prefix="v"):
    """✅/❌ under a vote; `vote` is the seq of the event that opened it."""

    game: int
    vote: int
    yes: bool


class DebtCb(CallbackData, prefix="db"):
    """ "✅ paid" under a debt; `debt` is the seq of its `debt_opened` event in game `game`."""

    game: int
    debt: int


def _button(text: str, data: CallbackData) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def _markup(buttons: Sequence[InlineKeyboardButton], per_row: int = 1) -> InlineKeyboardMarkup:
    rows = [list(buttons[i : i + per_row]) for i in range(0, len(buttons), per_row)]
    return InlineKeyboardMarkup(inline_keyboard=rows)


def as_json(markup: InlineKeyboardMarkup | None) -> str | None:
    return markup.model_dump_json(exclude_none=True) if markup is not None else None


DEBT_BUTTONS = 30  # a message's "✅ paid" buttons at most (Telegram takes 100 a keyboard)


def debts_keyboard(t: Translator, debts: Sequence[Debt]) -> InlineKeyboardMarkup | None:
    buttons = [
        _button(
            t("debt-button", **debt_texts.sides(t, debt)), DebtCb(game=debt.game_id, debt=debt.seq)
        )
        for debt in debts[:DEBT_BUTTONS]
    ]
    return _markup(buttons) if buttons else None


def without_button(markup: InlineKeyboardMarkup, data: str) -> InlineKeyboardMarkup | None:
    rows = [
        kept
        for row in markup.inline_keyboard
        if (kept := [button for button in row if button.callback_data != data])
    ]
    return InlineKeyboardMarkup(inline_keyboard=rows) if rows else None


def opening_keyboard(
    t: Translator, game_id: int, players: Sequence[Player], open_seats: bool
) -> InlineKeyboardMarkup | None:
    """Under an opened game: Join, and "✋ This is me" per unheld @username seat; or None."""
    buttons = [_button(t("button-join"), JoinCb(game=game_id))] if open_seats else []
    buttons += [
        _button(t("button-claim", handle=f"@{player.username}"), ClaimCb(game=game_id, seat=seat))
        for seat, player in enumerate(players)
        if player.username and player.user_id is None
    ]
    return _markup(buttons) if buttons else None


def vote_keyboard(t: Translator, game_id: int, vote_seq: int) -> InlineKeyboardMarkup:
    yes, no = (VoteCb(game=game_id, vote=vote_seq, yes=answer) for answer in (True, False))
    return _markup([_button(t("button-yes"), yes), _button(t("button-no"), no)], per_row=2)


class Act(StrEnum):
    PICK = "p"
    BACK = "b"
    CANCEL = "x"
    RECORD = "ok"
    EXTRA = "e"  # an extra at the confirmation (`deal_steps.Extra`): open, closed, a note


class DealCb(CallbackData, prefix="ds"):
    """A deal-steps button: the draft version it was drawn for, and who opened the steps."""

    game: int
    ver: int
    act: Act
    step: steps.DealStep
    v: int = 0
    by: int = 0


def deal_keyboard(
    t: Translator,
    game_id: int,
    opener: int,
    version: int,
    seating: Seating,
    draft: steps.Draft,
    *,
    back: bool,
    concede: bool = False,
    prikup: bool = False,
    odessa: bool = False,
) -> InlineKeyboardMarkup:
    current = steps.step(seating, draft)

    def button(text: str, act: Act, value: int = 0) -> InlineKeyboardButton:
        data = DealCb(game=game_id, ver=version, act=act, step=current, v=value, by=opener)
        return InlineKeyboardButton(text=text, callback_data=data.pack())

    grid = [
        [button(steps.label(t, choice), act, choice.value) for choice in row]
        for act, row in (
            *((Act.PICK, row) for row in steps.rows(seating, draft)),
            (Act.EXTRA, steps.extras(seating, draft, concede, prikup, odessa)),
        )
        if row
    ]
    tail = (
        ("steps-record", Act.RECORD, current is steps.DealStep.CONFIRM),
        ("steps-back", Act.BACK, back),
        ("steps-cancel", Act.CANCEL, True),
    )
    grid.append([button(t.template(key), act) for key, act, shown in tail if shown])
    return InlineKeyboardMarkup(inline_keyboard=grid)


def game_link_keyboard(
    t: Translator, username: str, chat_id: int, number: int
) -> InlineKeyboardMarkup | None:
    """Under a shared score: the private /start that opens the game (its players see it there)."""
    if not username:
        return None
    url = f"https://t.me/{username}?start=game_{chat_id}_{number}"
    return _markup([InlineKeyboardButton(text=t.template("button-open-game"), url=url)])


class HelpCb(CallbackData, prefix="hp"):
    topic: Topic


def help_keyboard(t: Translator, topic: Topic) -> InlineKeyboardMarkup:
    if topic is not Topic.HOME:
        return _markup([_button(t.template("help-button-back"), HelpCb(topic=Topic.HOME))])
    return _markup([_button(topic_label(t, shown), HelpCb(topic=shown)) for shown in TOPICS], 2)


def greeting_keyboard(t: Translator) -> InlineKeyboardMarkup:
    """Under the greeting in a group the bot was added to: how to start (the recording topic)."""
    return _markup([_button(t.template("button-how-to-start"), HelpCb(topic=Topic.RECORDING))])


def private_start_keyboard(t: Translator, username: str) -> InlineKeyboardMarkup:
    """Under the private /start: add the bot to a group, and how to play (/help)."""
    url = f"https://t.me/{username}?startgroup={GROUP_PAYLOAD}"
    add = InlineKeyboardButton(text=t.template("button-add-to-group"), url=url)
    play = _button(t.template("button-how-to-play"), HelpCb(topic=Topic.HOME))
    return _markup([add, play] if username else [play])
