"""Settling up, read from the log: the debts a game's end opened and the marks paying them."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from bot.core.events import DebtMarked, DebtOpened, DebtSide, Player, decode
from bot.domain import EventRow, GameRow
from scoring.settle import settle_balances

Amount = Fraction | Decimal


@dataclass(frozen=True, slots=True)
class Debt:
    """One open (or closed) debt: `seq` is its `debt_opened` event in game `game_id`."""

    game_id: int
    seq: int
    chat_id: int
    number: int  # the game's number in its chat
    debtor: Player
    creditor: Player
    amount: Amount  # money when `money`, else whists
    money: bool
    at: datetime  # when the game's end opened it
    paid: bool = False  # the debtor said he paid
    received: bool = False  # the creditor said he received it: closed

    @property
    def open(self) -> bool:
        return not self.received


def person(player: Player) -> tuple[str, str]:
    """Who a player is across games: his account, else his @username, else his name."""
    if player.user_id is not None:
        return ("id", str(player.user_id))
    if player.username:
        return ("@", player.username.lower())
    return ("name", player.name.casefold())


def debts_of(game_id: int, chat_id: int, number: int, rows: Iterable[EventRow]) -> dict[int, Debt]:
    """The debts of one game (`number` in chat `chat_id`) from its events, by seq."""
    debts: dict[int, Debt] = {}
    for row in rows:
        event = decode(row.kind, row.payload, row.schema_version)
        if isinstance(event, DebtOpened):
            amount = Decimal(event.amount) if event.money else Fraction(event.amount)
            terms = (event.debtor, event.creditor, amount, event.money, row.at)
            debts[row.seq] = Debt(game_id, row.seq, chat_id, number, *terms)
        elif isinstance(event, DebtMarked) and event.debt in debts:
            debt, received = debts[event.debt], event.side is DebtSide.RECEIVED
            paid = debt.paid or not received
            debts[event.debt] = replace(debt, paid=paid, received=debt.received or received)
    return debts


def all_debts(games: Iterable[tuple[GameRow, Sequence[EventRow]]]) -> list[Debt]:
    """The debts of several games, oldest game first, each game's in the order it opened them."""
    found: list[Debt] = []
    for game, rows in sorted(games, key=lambda pair: pair[0].game_id):
        found += debts_of(game.game_id, game.chat_id, game.chat_number, rows).values()
    return found


def open_debts(debts: Iterable[Debt]) -> list[Debt]:
    return [debt for debt in debts if debt.open]


@dataclass(frozen=True, slots=True)
class Payment:
    """One payment of the netted list: `debtor` pays `creditor` `amount` (money or whists)."""

    debtor: Player
    creditor: Player
    amount: Amount
    money: bool


def balances(debts: Iterable[Debt], money: bool) -> tuple[list[Player], list[Fraction]]:
    """Each person's balance over these debts of one kind, exactly; positive: he is owed."""
    found: dict[tuple[str, str], tuple[Player, Fraction]] = {}  # by person, first seen first
    for debt in [debt for debt in debts if debt.money is money]:
        for player, sign in ((debt.debtor, -1), (debt.creditor, 1)):
            first, total = found.get(person(player), (player, Fraction(0)))
            found[person(player)] = (first, total + sign * Fraction(debt.amount))
    return [player for player, _ in found.values()], [total for _, total in found.values()]


def net(debts: Sequence[Debt]) -> list[Payment]:
    """The open debts netted, per kind of amount (`scoring.settle.settle_balances`)."""
    payments: list[Payment] = []
    for money in (True, False):
        players, sums = balances(open_debts(debts), money)
        for debtor, creditor, amount in settle_balances(sums) if players else ():
            shown: Amount = amount
            if money:  # a sum of money amounts, exact in cents
                shown = (Decimal(amount.numerator) / amount.denominator).quantize(Decimal("0.01"))
            payments.append(Payment(players[debtor], players[creditor], shown, money))
    return payments
