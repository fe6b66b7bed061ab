"""Callback data stays within Telegram's 64 bytes, for every CallbackData of bot/telegram/keyboards.py."""

from __future__ import annotations

import inspect

from aiogram.filters.callback_data import CallbackData

from bot.telegram import keyboards
from bot.telegram.keyboards import Act, ClaimCb, DealCb, DebtCb, HelpCb, JoinCb, VoteCb
from bot.texts.deal_steps import DealStep
from bot.texts.help import Topic

BIG = 2**62
# Telegram user ids have at most 52 significant bits; game ids, versions and values are ours.
LARGEST: tuple[CallbackData, ...] = (
    JoinCb(game=BIG),
    ClaimCb(game=BIG, seat=3),
    VoteCb(game=BIG, vote=BIG, yes=False),
    DebtCb(game=BIG, debt=BIG),
    *(
        DealCb(game=BIG, ver=10**9, act=act, step=step, v=999, by=BIG)
        for act in Act
        for step in DealStep
    ),
    *(HelpCb(topic=topic) for topic in Topic),
)


def test_callback_data_fits_in_64_bytes() -> None:
    for data in LARGEST:
        assert len(data.pack().encode()) <= 64, data.pack()


def test_every_callback_data_of_the_keyboards_is_measured() -> None:
    kinds = {
        cls
        for _, cls in inspect.getmembers(keyboards, inspect.isclass)
        if issubclass(cls, CallbackData) and cls is not CallbackData
    }
    assert kinds == {type(data) for data in LARGEST}


def test_callback_prefixes_are_distinct() -> None:
    prefixes = [
        JoinCb.__prefix__,
        VoteCb.__prefix__,
        DealCb.__prefix__,
        HelpCb.__prefix__,
        DebtCb.__prefix__,
        ClaimCb.__prefix__,
    ]
    assert len(set(prefixes)) == len(prefixes)


def test_a_packed_deal_button_unpacks_to_the_same_values() -> None:
    data = DealCb(game=7, ver=3, act=Act.PICK, step=DealStep.CONTRACT, v=63, by=1001)
    assert DealCb.unpack(data.pack()) == data
