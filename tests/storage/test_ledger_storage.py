"""Settling up's storage on both backends: the debt events of a chat's or an account's games (a
projection of the log), the accounts that started the bot in private, and the reminders, marked
once even by two instances."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.core import Core
from bot.domain import Account, GameStatus, Reminder, Store
from bot.telegram.outbound.outbox import remind_debts
from tests.storage.conftest import Backend

AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DEBTOR = {"name": "Anna", "user_id": 1, "username": "anna"}
CREDITOR = {"name": "Boris", "user_id": 2, "username": None}


def opened(amount: str) -> dict[str, object]:
    return {
        "debtor": DEBTOR,
        "creditor": CREDITOR,
        "debtor_seat": 0,
        "creditor_seat": 1,
        "amount": amount,
        "money": True,
    }


async def test_debt_events_are_read_game_by_game_without_the_rest_of_the_log(
    store: Store,
) -> None:
    async with store.transaction() as repo:
        games = []
        for chat_id in (-10, -10, -20):  # one live game a chat: each ends before the next
            game = await repo.create_game(chat_id, 1, AT)
            await repo.set_status(game.game_id, GameStatus.ENDED)
            games.append(game)
        first, second, elsewhere = games
        for game in games:
            await repo.append(game.game_id, "game_ended", {"reason": "agreed"}, None, AT)
            await repo.append(game.game_id, "debt_opened", opened("1.50"), None, AT)
            await repo.add_member(game.game_id, 1)
        await repo.append(first.game_id, "debt_marked", {"debt": 2, "side": "paid"}, 1, AT)
    async with store.reading() as repo:
        chat = await repo.debt_events(-10)
        account = await repo.account_debt_events(1)
        nobody = await repo.account_debt_events(3)
    assert [(game.game_id, [e.kind for e in events]) for game, events in chat] == [
        (first.game_id, ["debt_opened", "debt_marked"]),
        (second.game_id, ["debt_opened"]),
    ]
    assert chat[0][1][0].payload == opened("1.50") and chat[0][1][0].at == AT
    assert chat[0][0].number == 1 and chat[1][0].number == 2
    assert [game.game_id for game, _ in account] == [g.game_id for g in (first, second, elsewhere)]
    assert nobody == []


async def test_an_account_that_started_the_bot_is_known_with_its_language(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.start_account(1, AT, "ru", "anna")
        await repo.start_account(2, AT, "en", None)
        await repo.start_account(1, AT, "en", "Anna_P")  # a second /start: as it is now
    async with store.reading() as repo:
        assert await repo.accounts([1, 2, 3]) == [Account(1, "en", "Anna_P"), Account(2, "en")]
        assert await repo.accounts([], ["anna_p"]) == [Account(1, "en", "Anna_P")]
        assert await repo.accounts([2], ["ANNA_P", "nobody"]) == [
            Account(1, "en", "Anna_P"),
            Account(2, "en"),
        ]
        assert await repo.accounts([]) == []
    async with store.transaction() as repo:
        await repo.forget_account(2)  # blocked the bot
    async with store.reading() as repo:
        assert await repo.accounts([1, 2]) == [Account(1, "en", "Anna_P")]


async def test_a_reminder_is_set_changed_marked_once_and_removed(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.set_reminder(-10, 3 * 86400)
        await repo.set_reminder(-20, 3600)
        await repo.set_reminder(-20, 7200)
    async with store.reading() as repo:
        assert await repo.reminders() == [Reminder(-20, 7200), Reminder(-10, 3 * 86400)]
    async with store.transaction() as repo:
        assert await repo.reminded(-10, AT, None)
        assert not await repo.reminded(-10, AT + timedelta(hours=1), None)  # marked meanwhile
    async with store.transaction() as repo:
        assert await repo.reminder(-10) == Reminder(-10, 3 * 86400, AT)
        assert await repo.reminded(-10, AT + timedelta(days=3), AT)
        await repo.set_reminder(-20, None)
    async with store.reading() as repo:
        assert await repo.reminder(-20) is None
        assert [r.chat_id for r in await repo.reminders()] == [-10]


async def test_two_instances_marking_one_reminder_mark_it_once(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.set_reminder(-10, 60)

    async def mark() -> bool:
        """As the core does, but without the chat's lock: read, and mark if not marked yet."""
        async with store.transaction() as repo:
            reminder = await repo.reminder(-10)
            assert reminder is not None
            if reminder.last_at is not None:
                return False
            return await repo.reminded(-10, AT, reminder.last_at)

    results = await asyncio.gather(mark(), mark())
    assert sorted(results) == [False, True]


async def test_a_chat_that_moves_takes_its_reminder_along(store: Store) -> None:
    async with store.transaction() as repo:
        await repo.set_reminder(-10, 60)
        await repo.move_chat(-10, -100010)
    async with store.reading() as repo:
        assert await repo.reminders() == [Reminder(-100010, 60)]


async def test_two_instances_reminding_at_once_remind_the_chat_once(backend: Backend) -> None:
    """Two bots on one database (as if both held the vote clock) run the reminders together:
    the chat's debts are listed once, and not again before the period is over."""
    first, second = await backend.open(), await backend.open()
    try:
        async with first.transaction() as repo:
            game = await repo.create_game(-10, 1, AT)
            await repo.set_status(game.game_id, GameStatus.ENDED)
            await repo.append(game.game_id, "debt_opened", opened("2.50"), None, AT)
            await repo.set_reminder(-10, 3600)
        now = AT + timedelta(hours=2)
        services = [Core(store, lambda: now) for store in (first, second)]
        told = await asyncio.gather(*(remind_debts(service, "en") for service in services))
        assert sorted(told) == [0, 1]
        assert sum(await asyncio.gather(*(remind_debts(s, "en") for s in services))) == 0
        async with first.reading() as repo:
            assert await repo.owed_count() == 1
    finally:
        await first.close()
        await second.close()
