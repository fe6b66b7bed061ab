"""The debts' netting and their projection (settlement.md "Who pays whom" over several games).

The net of a chat's open debts is `scoring.settle.settle_balances` of each person's summed
balance: at most N − 1 payments among the N people, rebuilding every balance exactly (money and
whists apart). The store's projection query (`Repo.debt_events`) gives the same debts as the fold
of every game's whole log, whatever was pressed.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from bot.core.events import Player
from bot.core.ledger import Debt, all_debts, balances, debts_of, net, person
from bot.storage import SqliteStore
from scoring.settle import settle_balances
from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver
from tests.bot.test_debts import FIRST, SECOND, USERS, debt_buttons, parties, play

PEOPLE = (
    Player("Anna", 1),
    Player("Boris", 2),
    Player("Clara", None, "clara"),
    Player("Dmitry"),
    Player("Eva", 5),
)
AT = datetime(2026, 1, 1, tzinfo=UTC)


@st.composite
def debts(draw: st.DrawFn) -> list[Debt]:
    found: list[Debt] = []
    for seq in range(draw(st.integers(0, 12))):
        debtor, creditor = draw(st.permutations(PEOPLE))[:2]
        money = draw(st.booleans())
        amount: Fraction | Decimal = (
            Decimal(draw(st.integers(1, 99999))).scaleb(-2)
            if money
            else Fraction(draw(st.integers(1, 3000)), draw(st.sampled_from([1, 2, 3, 4, 6])))
        )
        closed = draw(st.booleans()) and draw(st.booleans())
        found.append(
            Debt(seq % 3 + 1, seq + 1, -1, 1, debtor, creditor, amount, money, AT, received=closed)
        )
    return found


@given(debts())
def test_the_net_rebuilds_every_open_balance_in_at_most_n_minus_1_payments(
    found: list[Debt],
) -> None:
    payments = net(found)
    for money in (True, False):
        players, sums = balances([d for d in found if d.open], money)
        mine = [p for p in payments if p.money is money]
        assert len(mine) <= max(len(players) - 1, 0)
        rebuilt = {person(p): Fraction(0) for p in players}
        for payment in mine:
            rebuilt[person(payment.debtor)] -= Fraction(payment.amount)
            rebuilt[person(payment.creditor)] += Fraction(payment.amount)
        assert [rebuilt[person(p)] for p in players] == sums
        assert all(payment.amount > 0 for payment in mine)


@given(debts())
def test_the_net_is_the_rules_settlement_of_the_summed_balances(found: list[Debt]) -> None:
    """The netted list equals `settle_balances` of the summed balances, pair by pair."""
    for money in (True, False):
        players, sums = balances([d for d in found if d.open], money)
        expected = [
            (person(players[d]), person(players[c]), amount)
            for d, c, amount in (settle_balances(sums) if players else ())
        ]
        got = [
            (person(p.debtor), person(p.creditor), Fraction(p.amount))
            for p in net(found)
            if p.money is money
        ]
        assert got == expected


def test_closed_debts_are_left_out_of_the_net() -> None:
    anna, boris = PEOPLE[:2]
    owed = Debt(1, 1, -1, 1, anna, boris, Decimal("5.00"), True, AT)
    back = Debt(2, 1, -1, 2, boris, anna, Decimal("2.00"), True, AT)
    assert [(p.debtor, p.amount) for p in net([owed, back])] == [(anna, Decimal("3.00"))]
    closed = Debt(2, 1, -1, 2, boris, anna, Decimal("2.00"), True, AT, received=True)
    assert [(p.debtor, p.amount) for p in net([owed, closed])] == [(anna, Decimal("5.00"))]


async def fold_of_every_log(store: SqliteStore, chat_id: int, games: int) -> list[Debt]:
    async with store.reading() as repo:
        found: list[Debt] = []
        for game_id in range(1, games + 1):
            row = await repo.game(game_id)
            assert row is not None
            if row.chat_id == chat_id:
                events = await repo.events(game_id)
                found += debts_of(game_id, row.chat_id, row.chat_number, events).values()
        return found


async def test_the_projection_query_equals_the_fold_of_every_games_log(
    chat: ChatDriver, store: SqliteStore
) -> None:
    """Random presses (the debtor's, the creditor's, a stranger's, /paid) over three games in two
    chats: after each, the projection and the logs' fold agree, in the chat and per account."""
    other = ChatDriver(chat.dispatcher, chat.bot, chat_id=-1007, title="Other")
    buttons = debt_buttons(await play(chat, 1, FIRST))
    buttons += debt_buttons(await play(other, 2, SECOND, stake=None))
    buttons += debt_buttons(await play(chat, 3, SECOND))
    rng = random.Random(25)
    for _ in range(14):
        text, data = rng.choice(buttons)
        where = other if data.game == 2 else chat
        debtor, creditor = parties(text)
        if rng.random() < 0.15:
            await where.send(creditor, f"/paid {debtor.first_name}")
        else:
            await where.press(rng.choice([debtor, creditor, DMITRY, *USERS.values()]), data)
        for driver in (chat, other):
            async with store.reading() as repo:
                projected = all_debts(await repo.debt_events(driver.chat_id))
            assert projected == await fold_of_every_log(store, driver.chat_id, 3)
    for user in (ANNA, BORIS, CLARA):
        async with store.reading() as repo:
            mine = all_debts(await repo.account_debt_events(user.id))
        everywhere = [
            *await fold_of_every_log(store, chat.chat_id, 3),
            *await fold_of_every_log(store, other.chat_id, 3),
        ]
        assert sorted(mine, key=lambda d: (d.game_id, d.seq)) == sorted(
            everywhere, key=lambda d: (d.game_id, d.seq)
        )
