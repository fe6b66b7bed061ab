"""Inline buttons and their typed callback data (each within Telegram's 64 bytes)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.core import Player
from bot.core.ledger import Debt
from bot.telegram import deeplinks
from bot.texts import deal_steps as steps
from bot.texts import debts as debt_texts
from bot.texts.deal_steps import DealStep, Draft
from bot.texts.help import TOPICS, Topic, topic_label
from bot.texts.i18n import Translator
from scoring.seating import Seating


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


def as_json(markup: InlineKeyboardMarkup | None) -> str | None:
    """A keyboard as an owed row keeps it (None: no keyboard)."""
    return markup.model_dump_json(exclude_none=True) if markup is not None else None


DEBT_BUTTONS = 30  # a message's "✅ paid" buttons at most (Telegram takes 100 a keyboard)


def debts_keyboard(t: Translator, debts: Sequence[Debt]) -> InlineKeyboardMarkup | None:
    """One "✅ paid" button a row for the first DEBT_BUTTONS debts (None when there is none)."""
    if not debts:
        return None
    builder = InlineKeyboardBuilder()
    for debt in debts[:DEBT_BUTTONS]:
        data = DebtCb(game=debt.game_id, debt=debt.seq)
        builder.button(text=debt_texts.button_text(t, debt), callback_data=data)
    builder.adjust(1)
    return builder.as_markup()


def without_button(markup: InlineKeyboardMarkup, data: str) -> InlineKeyboardMarkup | None:
    """`markup` without the buttons whose data is `data`; None when no button is left."""
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
    builder = InlineKeyboardBuilder()
    if open_seats:
        builder.button(text=t("button-join"), callback_data=JoinCb(game=game_id))
    for seat, player in enumerate(players):
        if player.username and player.user_id is None:
            builder.button(
                text=t("button-claim", handle=f"@{player.username}"),
                callback_data=ClaimCb(game=game_id, seat=seat),
            )
    if not list(builder.buttons):
        return None
    builder.adjust(1)
    return builder.as_markup()


def vote_keyboard(t: Translator, game_id: int, vote_seq: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for key, yes in (("button-yes", True), ("button-no", False)):
        builder.button(text=t(key), callback_data=VoteCb(game=game_id, vote=vote_seq, yes=yes))
    builder.adjust(2)
    return builder.as_markup()


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
    step: DealStep
    v: int = 0
    by: int = 0


def deal_keyboard(
    t: Translator,
    game_id: int,
    opener: int,
    version: int,
    seating: Seating,
    draft: Draft,
    *,
    back: bool,
    concede: bool = False,
    prikup: bool = False,
    odessa: bool = False,
) -> InlineKeyboardMarkup:
    """The buttons of the draft's step, then ✅ at the confirmation, ↩ when possible, and ✖."""
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
        ("steps-record", Act.RECORD, current is DealStep.CONFIRM),
        ("steps-back", Act.BACK, back),
        ("steps-cancel", Act.CANCEL, True),
    )
    grid.append([button(t.template(key), act) for key, act, shown in tail if shown])
    return InlineKeyboardMarkup(inline_keyboard=grid)


def game_link_keyboard(
    t: Translator, username: str, chat_id: int, number: int
) -> InlineKeyboardMarkup | None:
    """Under a shared score: open the game in the private chat (its players see it there)."""
    if not username:
        return None
    builder = InlineKeyboardBuilder()
    url = deeplinks.start_url(username, deeplinks.game_payload(chat_id, number))
    builder.button(text=t.template("button-open-game"), url=url)
    return builder.as_markup()


class HelpCb(CallbackData, prefix="hp"):
    """A /help topic button: the screen to show in the same message."""

    topic: Topic


def help_keyboard(t: Translator, topic: Topic) -> InlineKeyboardMarkup:
    """The short screen's topic buttons, two a row; a topic's screen has ◀ back."""
    builder = InlineKeyboardBuilder()
    if topic is not Topic.HOME:
        builder.button(text=t.template("help-button-back"), callback_data=HelpCb(topic=Topic.HOME))
        return builder.as_markup()
    for shown in TOPICS:
        builder.button(text=topic_label(t, shown), callback_data=HelpCb(topic=shown))
    builder.adjust(2)
    return builder.as_markup()


def greeting_keyboard(t: Translator) -> InlineKeyboardMarkup:
    """Under the greeting in a group the bot was added to: how to start (the recording topic)."""
    builder = InlineKeyboardBuilder()
    builder.button(
        text=t.template("button-how-to-start"), callback_data=HelpCb(topic=Topic.RECORDING)
    )
    return builder.as_markup()


def private_start_keyboard(t: Translator, username: str) -> InlineKeyboardMarkup:
    """Under the private /start: add the bot to a group, and how to play (/help)."""
    builder = InlineKeyboardBuilder()
    if username:
        builder.button(
            text=t.template("button-add-to-group"), url=deeplinks.add_to_group_url(username)
        )
    builder.button(text=t.template("button-how-to-play"), callback_data=HelpCb(topic=Topic.HOME))
    builder.adjust(1)
    return builder.as_markup()
