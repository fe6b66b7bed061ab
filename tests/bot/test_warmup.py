"""After a start, the games in play are read back and drawn before their next deal: that deal
neither reads the game from the database again nor draws its picture from nothing; a game gone
quiet, or ended, is left alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiogram import Dispatcher
from aiogram.methods import SendPhoto

import bot.sheet
from bot.app import build_dispatcher
from bot.core import GameService
from bot.settings import Settings
from bot.sheet import layout
from bot.sheet.canvas import IDLE, Canvas
from bot.storage import SqliteStore
from bot.telegram.outbound.warmup import RECENT, Warmed, warm_up
from tests.bot.factories import EVA, ChatDriver, FakeClock
from tests.bot.mocked_bot import MockedBot, deliver_through

DEALS = (
    "Anna 6♠ -1 vist:Boris pass:Clara",
    "Boris 6♠ -1 vist:Clara pass:Anna",
    "Clara 6♠ -1 vist:Anna pass:Boris",
)
PLAYING, QUIET = -100901, -100902


@dataclass
class Running:
    """A bot process over the database: its dispatcher, its game service, its mocked Bot."""

    path: Path
    store: SqliteStore
    dispatcher: Dispatcher
    game: GameService
    bot: MockedBot

    def chat(self, chat_id: int) -> ChatDriver:
        return ChatDriver(self.dispatcher, self.bot, chat_id=chat_id)


async def started(path: Path, clock: FakeClock) -> Running:
    """What a start has: a new store, dispatcher and caches, and no picture kept."""
    bot.sheet.canvas = Canvas()
    layout._BANDS.clear()
    store = await SqliteStore.open(path)
    dispatcher = build_dispatcher(
        Settings(bot_token="42:TEST", database_path=path, default_locale="en"), store, clock
    )
    mocked = MockedBot()
    deliver_through(dispatcher, mocked)
    return Running(path, store, dispatcher, dispatcher["game"], mocked)


async def play(chat: ChatDriver, deals: int) -> None:
    for n in range(deals):
        await chat.send(EVA, f"/deal {DEALS[n % 3]}")


@pytest.fixture
async def restarted(tmp_path: Path) -> AsyncIterator[tuple[Running, FakeClock]]:
    """Two games were played before the restart: one in the last minutes, one an hour ago."""
    path, clock = tmp_path / "warm.sqlite3", FakeClock()
    before = await started(path, clock)
    quiet = before.chat(QUIET)
    await quiet.send(EVA, "/newgame sochi pool 500 Anna Boris Clara")
    await play(quiet, 5)
    clock.advance(IDLE + 60)
    playing = before.chat(PLAYING)
    await playing.send(EVA, "/newgame sochi pool 500 Anna Boris Clara")
    await play(playing, 30)
    await before.store.close()
    clock.advance(30)
    after = await started(path, clock)
    yield after, clock
    await after.store.close()


async def test_a_start_warms_the_games_in_play_and_leaves_a_quiet_one_alone(
    restarted: tuple[Running, FakeClock],
) -> None:
    running, clock = restarted
    warmed = await warm_up(running.game, None, "en", 40, clock())
    assert warmed == Warmed(games=1, pictures=1)
    assert len(bot.sheet.canvas) == 1  # the playing game's picture, kept


async def test_the_next_deal_of_a_warmed_game_is_neither_read_back_nor_drawn_from_nothing(
    restarted: tuple[Running, FakeClock],
) -> None:
    running, clock = restarted
    await warm_up(running.game, None, "en", 40, clock())
    games = running.game.core.games
    folds, resumed, tiles = games.folds, games.resumed, bot.sheet.canvas.tiles_drawn
    await running.chat(PLAYING).send(EVA, f"/deal {DEALS[0]}")
    assert any(isinstance(sent, SendPhoto) for sent in running.bot.requests)
    assert (games.folds, games.resumed) == (folds, resumed)  # the game was kept
    drawn = bot.sheet.canvas.tiles_drawn - tiles
    cold = await started(running.path, clock)  # for comparison: no warm-up
    try:
        await cold.chat(PLAYING).send(EVA, f"/deal {DEALS[1]}")
        assert any(isinstance(sent, SendPhoto) for sent in cold.bot.requests)
        assert 0 < drawn * 4 < bot.sheet.canvas.tiles_drawn  # a deal's rows, not the picture
    finally:
        await cold.store.close()


def test_a_game_is_warmed_while_its_picture_would_be_kept() -> None:
    assert RECENT == IDLE


async def test_no_warm_up_when_it_is_switched_off(restarted: tuple[Running, FakeClock]) -> None:
    running, clock = restarted
    assert await warm_up(running.game, None, "en", 0, clock()) == Warmed(0, 0)
    assert len(bot.sheet.canvas) == 0
