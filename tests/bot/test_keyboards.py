"""Callback data stays within Telegram's 64 bytes."""

from __future__ import annotations

from bot.tg.keyboards import JoinCb, VoteCb

BIG = 2**62


def test_callback_data_fits_in_64_bytes() -> None:
    for data in (JoinCb(game=BIG), VoteCb(game=BIG, vote=BIG, yes=False)):
        assert len(data.pack().encode()) <= 64
