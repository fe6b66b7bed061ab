"""Inline buttons and their typed callback data (one CallbackData per flow, short prefixes).

The data a button carries is never trusted: handlers check the game and the vote against the log.
"""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.i18n import Translator


class JoinCb(CallbackData, prefix="j"):
    """The Join button under an opened game."""

    game: int


class VoteCb(CallbackData, prefix="v"):
    """✅/❌ under a vote; `vote` is the seq of the event that opened it."""

    game: int
    vote: int
    yes: bool


def join_keyboard(t: Translator, game_id: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text=t("button-join"), callback_data=JoinCb(game=game_id))
    return builder.as_markup()


def vote_keyboard(t: Translator, game_id: int, vote_seq: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(
        text=t("button-yes"), callback_data=VoteCb(game=game_id, vote=vote_seq, yes=True)
    )
    builder.button(
        text=t("button-no"), callback_data=VoteCb(game=game_id, vote=vote_seq, yes=False)
    )
    builder.adjust(2)
    return builder.as_markup()
