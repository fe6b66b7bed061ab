"""The archive's buttons: callback data within Telegram's 64 bytes, prefixes of their own, and ◀ ▶
only where there is a page to go to."""

from __future__ import annotations

import inspect
from datetime import UTC

from aiogram.filters.callback_data import CallbackData

from bot.core.archive import GamesPage, page_bounds
from bot.telegram import keyboards
from bot.telegram.inbound.handlers import view as archive
from bot.telegram.inbound.handlers.calc import CalcCb
from bot.telegram.inbound.handlers.view import GameAct, GameCb, GamesCb, pages_keyboard
from bot.texts.i18n import translator


def test_the_archive_s_callback_data_fits_in_64_bytes() -> None:
    largest = [GamesCb(page=10**9), *(GameCb(game=10**9, act=act) for act in GameAct)]
    for data in largest:
        assert len(data.pack().encode()) <= 64, data.pack()
    kinds = {
        cls
        for _, cls in inspect.getmembers(archive, inspect.isclass)
        if issubclass(cls, CallbackData) and cls is not CallbackData
    }
    assert kinds == {type(data) for data in largest}


def test_no_two_kinds_of_buttons_share_a_prefix() -> None:
    kinds = [GamesCb, GameCb, CalcCb]
    kinds += [
        cls
        for _, cls in inspect.getmembers(keyboards, inspect.isclass)
        if issubclass(cls, CallbackData) and cls is not CallbackData
    ]
    prefixes = [cls.__prefix__ for cls in kinds]
    assert len(set(prefixes)) == len(prefixes)


def test_a_page_is_kept_within_the_list() -> None:
    assert page_bounds(0, 5) == (0, 1)
    assert page_bounds(10, 1) == (0, 1)
    assert page_bounds(11, 1) == (1, 2)
    assert page_bounds(25, -3) == (0, 3) and page_bounds(25, 99) == (2, 3)


def test_the_buttons_lead_to_the_neighbouring_pages_only() -> None:
    t = translator("ru")

    def page(number: int, pages: int) -> GamesPage:
        return GamesPage((), number, pages, pages * 10, UTC)

    assert pages_keyboard(t, page(0, 1)) is None
    (first,) = pages_keyboard(t, page(0, 3)).inline_keyboard  # type: ignore[union-attr]
    assert [b.text for b in first] == ["2 ▶"]
    (middle,) = pages_keyboard(t, page(1, 3)).inline_keyboard  # type: ignore[union-attr]
    assert [b.text for b in middle] == ["◀ 1", "3 ▶"]
    assert [GamesCb.unpack(b.callback_data or "").page for b in middle] == [0, 2]
