"""`GET /healthz`: the database's `SELECT 1` (never a scan, never a wait for a unit of work) and the
heartbeats of the loops the entry point watches — 200 with their ages, 503 naming what is stale.
Its timing at a million events is a benchmark (bench/health_bench.py), not a test."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram import Dispatcher
from aiohttp.test_utils import TestClient, TestServer

from bot.core import Core
from bot.core.health import POLLER, SENDER, STALE_AFTER, VOTE_CLOCK, WEBHOOK, Heartbeats
from bot.storage import SqliteStore
from bot.web.server import build_web_app
from tests.bot.mocked_bot import MockedBot


class Clock:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def hearts(clock: Clock) -> Heartbeats:
    hearts = Heartbeats(clock)
    for name in (POLLER, SENDER, VOTE_CLOCK):
        hearts.watch(name)
    return hearts


@pytest.fixture
async def health(
    bot: MockedBot, game: Core, dispatcher: Dispatcher, hearts: Heartbeats
) -> AsyncIterator[TestClient[Any, Any]]:
    announce = dispatcher["announce"]
    app = build_web_app(bot, game, announce=announce, default_locale="en", health=hearts)
    async with TestClient(TestServer(app)) as test_client:
        yield test_client


async def ask(client: TestClient[Any, Any]) -> tuple[int, dict[str, Any]]:
    response = await client.get("/healthz")
    return response.status, await response.json()


async def test_all_loops_fresh_is_200_with_their_ages(
    health: TestClient[Any, Any], hearts: Heartbeats, clock: Clock
) -> None:
    clock.now += 3
    for name in (POLLER, SENDER, VOTE_CLOCK):
        hearts.beat(name)
    clock.now += 0.5
    status, body = await ask(health)
    assert status == 200
    assert body == {
        "ok": True,
        "database": "ok",
        "ages": {"poller": 0.5, "sender": 0.5, "vote_clock": 0.5},
    }


async def test_a_loop_that_stopped_beating_is_503_naming_it(
    health: TestClient[Any, Any], hearts: Heartbeats, clock: Clock
) -> None:
    hearts.beat(POLLER)
    hearts.beat(VOTE_CLOCK)
    hearts.beat(SENDER)
    limit = STALE_AFTER[SENDER]
    assert limit is not None
    clock.now += limit - 1
    hearts.beat(POLLER)
    hearts.beat(VOTE_CLOCK)
    assert (await ask(health))[0] == 200
    clock.now += 2  # the sender is now past its limit, the others are not
    hearts.beat(POLLER)
    hearts.beat(VOTE_CLOCK)
    status, body = await ask(health)
    assert status == 503 and body["ok"] is False
    assert body["stale"] == ["sender"] and body["database"] == "ok"
    assert body["ages"]["sender"] == pytest.approx(limit + 1)


async def test_a_loop_that_never_beat_counts_from_when_it_was_watched(
    health: TestClient[Any, Any], hearts: Heartbeats, clock: Clock
) -> None:
    assert (await ask(health))[0] == 200  # just started: fresh
    clock.now += 61
    hearts.beat(POLLER)
    status, body = await ask(health)
    assert status == 503 and body["stale"] == ["sender", "vote_clock"]


async def test_a_quiet_webhook_is_reported_and_never_stale(
    bot: MockedBot, game: Core, dispatcher: Dispatcher, clock: Clock
) -> None:
    hearts = Heartbeats(clock)
    hearts.watch(WEBHOOK)
    app = build_web_app(bot, game, announce=dispatcher["announce"], health=hearts)
    async with TestClient(TestServer(app)) as client:
        clock.now += 86_400  # a day without an update
        status, body = await ask(client)
    assert status == 200 and body["ages"] == {"webhook": 86_400.0}


async def test_a_database_that_does_not_answer_is_503_naming_it(
    health: TestClient[Any, Any], game: Core, hearts: Heartbeats
) -> None:
    for name in (POLLER, SENDER, VOTE_CLOCK):
        hearts.beat(name)
    await game.store.close()
    status, body = await ask(health)
    assert status == 503 and body["database"] == "down" and body["stale"] == ["database"]


async def test_the_health_check_answers_while_a_unit_of_work_holds_the_sqlite_store(
    health: TestClient[Any, Any], store: SqliteStore
) -> None:
    """`ping` never takes the store's lock: a long command (here one held open) does not make the
    health check wait for it, nor the health check the command."""
    held = asyncio.Event()
    release = asyncio.Event()

    async def long_unit() -> None:
        async with store.transaction() as repo:
            await repo.live_game(-1)  # the transaction is open on the connection
            held.set()
            await release.wait()

    unit = asyncio.create_task(long_unit())
    await held.wait()
    try:
        status, body = await asyncio.wait_for(ask(health), 30)  # a guard, not a timing
        assert status == 200 and body["database"] == "ok"
        assert not unit.done()  # still holding the store all along
    finally:
        release.set()
        await unit


async def test_the_web_app_without_the_entry_point_reports_the_database_alone(
    client: TestClient[Any, Any],
) -> None:
    """The web app built without the entry point (tests, the Mini App alone): nothing watched."""
    status, body = await ask(client)
    assert status == 200 and body == {"ok": True, "database": "ok", "ages": {}}


def test_forgotten_loops_are_no_longer_reported(clock: Clock) -> None:
    hearts = Heartbeats(clock)
    hearts.watch(POLLER)
    hearts.forget(POLLER)
    assert hearts.ages() == []
