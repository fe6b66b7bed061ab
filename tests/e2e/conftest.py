"""Fixtures of the end-to-end tests: the fake Telegram server and the bot processes run on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import BotProcess

StartBot = Callable[..., Awaitable[BotProcess]]


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegram]:
    """A fresh fake Telegram server on 127.0.0.1 (a free port)."""
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def start_bot(server: FakeTelegram, tmp_path: Path) -> AsyncIterator[StartBot]:
    """`bot = await start_bot(locale="en")`: a bot process polling the server, killed at teardown.

    Each call gets its own working directory and database; the log tail is printed at teardown
    (pytest shows it when the test fails).
    """
    bots: list[BotProcess] = []

    async def start(*, wait: bool = True, **options: Any) -> BotProcess:
        bot = BotProcess(server, tmp_path / f"bot{len(bots)}", **options)
        bots.append(bot)
        if wait:
            await bot.start()
        else:
            await bot.launch()
        return bot

    yield start
    for bot in bots:
        await bot.kill()
        print(bot.log_tail(80))


# One server and one bot process for a whole module (mark its tests
# `pytest.mark.asyncio(loop_scope="module")`): a start costs a second or more even forked
# (tests/e2e/zygote.py).
# Tests sharing them play in chats of their own.


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_server() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_bot(
    module_server: FakeTelegram, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[BotProcess]:
    bot = BotProcess(module_server, tmp_path_factory.mktemp("bot"), locale="en")
    await bot.start()
    yield bot
    await bot.kill()
    print(bot.log_tail(80))


@pytest_asyncio.fixture(loop_scope="module")
async def shared_bot(module_bot: BotProcess) -> BotProcess:
    """The module's bot process (English by default), started again if a test left it dead."""
    if not module_bot.running:
        await module_bot.start()
    return module_bot
