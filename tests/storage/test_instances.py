"""Several bot instances on one database (issue 14, Deliver 3): the vote clock's lease, the FSM rows
of the step-by-step /deal (both backends), and commands of one chat from two instances on one
PostgreSQL — each a store and a dispatcher of its own, as two processes would have."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from aiogram import Dispatcher
from aiogram.fsm.storage.base import StorageKey
from aiogram.methods import AnswerCallbackQuery

from bot.app import build_dispatcher
from bot.core.health import Lease
from bot.domain import Store
from bot.settings import Settings
from bot.storage.postgres import PostgresStore
from bot.telegram.inbound.fsm import (
    DatabaseEventIsolation,
    DatabaseStorage,
    DealEntry,
    fsm_backend,
)
from tests.bot.factories import ChatDriver, FakeClock, TgUser
from tests.bot.mocked_bot import MockedBot, deliver_through
from tests.bot.test_deal_steps import ANNA, open_game, open_steps
from tests.pg import PostgresServer
from tests.storage.conftest import Backend

AT = datetime(2026, 1, 1, tzinfo=UTC)
KEEPER = TgUser(2001, "Keeper", "keeper")
DEALS = (
    "Anna 6♠ = vist:Boris pass:Clara",
    "Boris 7♥ -1 vist:Anna pass:Clara",
    "Clara misere 1",
    "Anna 6♣ -1 vist:Boris/3 vist:Clara/2",
)


async def test_a_lease_has_one_holder_until_it_expires(store: Store) -> None:
    until = AT + timedelta(seconds=10)
    async with store.transaction() as repo:
        assert await repo.take_lease("clock", "one", AT, until)
        assert not await repo.take_lease("clock", "two", AT + timedelta(seconds=5), until)
        assert await repo.take_lease("clock", "one", AT + timedelta(seconds=5), until)  # renewal
        assert await repo.lease_holder("clock", AT + timedelta(seconds=9)) == "one"
        assert await repo.lease_holder("clock", until) is None  # expired
        later = until + timedelta(seconds=10)
        assert await repo.take_lease("clock", "two", until, later)  # taken over after expiry
        assert not await repo.take_lease("clock", "one", until, later)
        await repo.release_lease("clock", "one")  # not its holder: nothing happens
        assert await repo.lease_holder("clock", until) == "two"
        await repo.release_lease("clock", "two")
        assert await repo.lease_holder("clock", until) is None


async def test_the_lease_moves_to_another_instance_when_its_holder_stops(
    backend: Backend,
) -> None:
    clock = FakeClock(AT)
    one_store, two_store = await backend.open(), await backend.open()
    try:
        one = Lease(one_store, holder="one", seconds=3, clock=clock)
        two = Lease(two_store, holder="two", seconds=3, clock=clock)
        assert await one.hold() and not await two.hold()
        clock.advance(2)
        assert await one.hold() and not await two.hold()  # renewed: still one's
        clock.advance(2.9)  # one died: it renews no more, and its lease runs 3 s
        assert not await two.hold()
        clock.advance(0.1)
        assert await two.hold() and not await one.hold()
        await two.release()
        assert await one.hold()
    finally:
        await one_store.close()
        await two_store.close()


async def test_fsm_rows_keep_state_and_data_apart_per_key(store: Store) -> None:
    async with store.transaction() as repo:
        assert await repo.fsm_state("k1") is None and await repo.fsm_data("k1") == {}
        await repo.set_fsm_state("k1", "DealEntry:steps")
        await repo.set_fsm_data("k1", {"steps": {"message": 7, "names": ["Аня"]}, "closed": [3]})
        await repo.set_fsm_data("k2", {"closed": []})
    async with store.reading() as repo:
        assert await repo.fsm_state("k1") == "DealEntry:steps"
        assert await repo.fsm_data("k1") == {
            "steps": {"message": 7, "names": ["Аня"]},
            "closed": [3],
        }
        assert await repo.fsm_state("k2") is None
    async with store.transaction() as repo:
        await repo.set_fsm_state("k1", None)
    async with store.reading() as repo:
        assert await repo.fsm_state("k1") is None
        assert (await repo.fsm_data("k1"))["closed"] == [3]


async def test_the_database_fsm_storage_is_seen_by_another_instance(backend: Backend) -> None:
    key = StorageKey(bot_id=42, chat_id=-100, user_id=1001)
    other = StorageKey(bot_id=42, chat_id=-100, user_id=1002)
    one_store, two_store = await backend.open(), await backend.open()
    try:
        one, two = DatabaseStorage(one_store), DatabaseStorage(two_store)
        await one.set_state(key, DealEntry.steps)
        await one.update_data(key, {"steps": {"message": 9}})
        assert await two.get_state(key) == DealEntry.steps.state
        assert await two.get_data(key) == {"steps": {"message": 9}}
        assert await two.get_state(other) is None and await two.get_data(other) == {}
        await two.set_state(key, None)
        assert await one.get_state(key) is None
    finally:
        await one_store.close()
        await two_store.close()


def test_the_fsm_storage_is_the_database_on_postgresql_and_memory_on_sqlite() -> None:
    settings = Settings(bot_token="42:TEST", database_url=None)
    assert type(fsm_backend(settings)[0]).__name__ == "MemoryStorage"
    pg = Settings(bot_token="42:TEST", database_url="postgresql://u@127.0.0.1:5432/db")
    assert isinstance(fsm_backend(pg, object())[0], DatabaseStorage)  # type: ignore[arg-type]


# ---- two instances, one PostgreSQL ----------------------------------------------------------


@pytest.fixture
async def two_instances(
    pg_server: PostgresServer,
) -> AsyncIterator[tuple[list[Dispatcher], list[Store]]]:
    url = await pg_server.new_database()
    stores: list[Store] = [await PostgresStore.open(url), await PostgresStore.open(url)]
    settings = Settings(bot_token="42:TEST", default_locale="en", database_url=url)
    clock = FakeClock()
    dispatchers = [build_dispatcher(settings, store, clock) for store in stores]
    yield dispatchers, stores
    for store in stores:
        await store.close()


async def deal_lines(store: Store, chat_id: int) -> list[tuple[int, str]]:
    async with store.reading() as repo:
        row = await repo.live_game(chat_id)
        assert row is not None
        return [
            (e.seq, e.payload["line"]) for e in await repo.events(row.game_id) if e.kind == "deal"
        ]


async def test_a_burst_of_deals_on_two_instances_records_each_deal_once(
    two_instances: tuple[list[Dispatcher], list[Store]],
) -> None:
    dispatchers, stores = two_instances
    bot = MockedBot()
    chats = [ChatDriver(dp, bot, chat_id=-30_000 - n) for n, dp in enumerate(dispatchers)]
    for chat in chats:
        chat.dispatcher = dispatchers[0]
        await chat.send(KEEPER, "/newgame sochi pool 1000 Anna Boris Clara")
    # Each chat's deals land on both instances at once, alternating, both chats in parallel.
    updates = [
        (dispatchers[n % 2], chat.message_update(KEEPER, f"/deal {DEALS[n % len(DEALS)]}"))
        for chat in chats
        for n in range(12)
    ]
    await asyncio.gather(*(dp.feed_update(bot, update) for dp, update in updates))
    for chat in chats:
        lines = await deal_lines(stores[1], chat.chat_id)
        assert len(lines) == 12
        seqs = [seq for seq, _ in lines]
        assert seqs == sorted(set(seqs))
        # stored in canonical form: compare the contract (declarer and bid) of each
        assert Counter(tuple(line.split()[:2]) for _, line in lines) == Counter(
            tuple(DEALS[n % len(DEALS)].split()[:2]) for n in range(12)
        )


async def test_an_update_delivered_to_both_instances_is_handled_once(
    two_instances: tuple[list[Dispatcher], list[Store]],
) -> None:
    dispatchers, stores = two_instances
    bot = MockedBot()
    chat = ChatDriver(dispatchers[0], bot, chat_id=-31_000)
    await chat.send(KEEPER, "/newgame sochi pool 1000 Anna Boris Clara")
    update = chat.message_update(KEEPER, f"/deal {DEALS[0]}")
    copy = update.model_copy(deep=True)
    await asyncio.gather(
        *(dp.feed_update(bot, u) for dp, u in zip(dispatchers, (update, copy), strict=True))
    )
    assert len(await deal_lines(stores[0], chat.chat_id)) == 1


async def test_a_deal_by_buttons_started_on_one_instance_is_finished_on_the_other(
    two_instances: tuple[list[Dispatcher], list[Store]],
) -> None:
    """The /deal steps' FSM is in the database: each press may land on either instance (and the
    step message shown as the record comes through the outbox, from either)."""
    dispatchers, stores = two_instances
    bot = MockedBot()
    for dispatcher in dispatchers:
        deliver_through(dispatcher, bot)
    chat = ChatDriver(dispatchers[0], bot, chat_id=-32_000)
    await open_game(chat)
    steps = await open_steps(chat)
    for n, label in enumerate(("Contract", "Clara", "7♠", "Whist", "Pass", "−1", "✅ Record")):
        chat.dispatcher = dispatchers[(n + 1) % 2]
        answer = await steps.press(ANNA, label)
        assert not any(isinstance(r, AnswerCallbackQuery) and r.show_alert for r in answer), answer
    assert steps.markup is None and "#1" in steps.text
    assert [line for _, line in await deal_lines(stores[0], chat.chat_id)] == [
        "Clara 7♠ -1 vist:Anna pass:Boris"
    ]


async def test_one_users_updates_in_a_chat_wait_for_each_other_across_instances(
    backend: Backend,
) -> None:
    """The FSM isolation in the database: the second instance enters only once the first has
    left; a lease left by a dead instance expires."""
    key = StorageKey(bot_id=42, chat_id=-100, user_id=1001)
    clock = FakeClock(AT)
    one_store, two_store = await backend.open(), await backend.open()
    try:
        one = DatabaseEventIsolation(one_store, clock=clock)
        two = DatabaseEventIsolation(two_store, clock=clock)
        entered: list[str] = []

        async def second() -> None:
            async with two.lock(key):
                entered.append("two")

        async with one.lock(key):
            entered.append("one")
            waiting = asyncio.create_task(second())
            await asyncio.sleep(0.2)  # the second instance keeps trying meanwhile
            assert entered == ["one"]
        await asyncio.wait_for(waiting, 30)
        assert entered == ["one", "two"]

        async with one_store.transaction() as repo:  # an instance died holding the key
            name = "fsm:" + one.key_builder.build(key)
            assert await repo.take_lease(name, "dead", AT, AT + timedelta(seconds=10))
        waiting = asyncio.create_task(second())
        await asyncio.sleep(0.1)
        assert entered == ["one", "two"]
        clock.advance(10)
        await asyncio.wait_for(waiting, 30)
        assert entered == ["one", "two", "two"]
    finally:
        await one_store.close()
        await two_store.close()
