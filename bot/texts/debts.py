"""Settling up in words: a game's debts, `/debts`, the marks, `/paid`, and the reminders."""

from collections.abc import Sequence
from decimal import Decimal

from bot.core.debts import DebtsView, Marked
from bot.core.ledger import Debt, Payment
from bot.texts.i18n import Safe, Translator
from bot.texts.views import join_lines

_UNITS = (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60))


def sides(t: Translator, debt: Debt | Payment) -> dict[str, str]:
    """A debt's (or payment's) debtor, creditor and amount, as texts and the Mini App name them."""
    amount = debt.amount  # money (a `Decimal`) with two decimals, else whists: `22.5 whists`
    shown = t.money(amount) if isinstance(amount, Decimal) else t.count(amount, "whist")
    return {"debtor": debt.debtor.name, "creditor": debt.creditor.name, "amount": shown}


def period_text(t: Translator, seconds: int) -> str:
    """A reminder's period in its largest whole unit: `3 d`, `12 h`."""
    unit, size = next((pair for pair in _UNITS if seconds % pair[1] == 0), _UNITS[-1])
    return t(f"period-{unit}", n=seconds // size)


def _line(t: Translator, debt: Debt) -> Safe:
    paid = t("debt-paid-mark", creditor=debt.creditor.name) if debt.paid else ""
    return t("debt-line", **sides(t, debt), game=debt.number, paid=paid)


def chat_debts_text(t: Translator, view: DebtsView) -> Safe:
    """/debts in a group: every open debt, then the net payments that settle them all."""
    if not view.debts:
        return t("debts-none")
    lines: list[str] = [t("debts-title"), *(_line(t, debt) for debt in view.debts)]
    if view.net:
        lines += ["", t("debts-net-title")]
        lines += [t("debts-net-line", **sides(t, payment)) for payment in view.net]
    return join_lines(lines)


def account_debts_text(
    t: Translator, view: DebtsView, user_id: int | None, username: str | None
) -> Safe:
    """/debts in private: what the account owes and is owed, chat by chat."""
    if not view.debts:
        return t("debts-private-none")
    lines: list[str] = [t("debts-private-title")]
    for debt in view.debts:
        chat = view.titles.get(debt.chat_id) or t("debts-some-chat")
        key = "debts-you-owe" if debt.debtor.is_user(user_id, username) else "debts-owed-to-you"
        lines.append(t(key, **sides(t, debt), game=debt.number, chat=chat))
    return join_lines(lines)


def private_ended_text(
    t: Translator, debts: Sequence[Debt], owing: Sequence[Debt], chat: str | None
) -> Safe:
    """A player's message at a game's end: whom he owes (`owing`: buttons follow), who owes him."""
    chat = chat or t("debts-some-chat")
    lines: list[str] = [t("debt-private-ended", game=debts[0].number, chat=chat)]
    for debt in debts:
        key = "debt-private-owe" if debt in owing else "debt-private-owed"
        lines.append(t(key, **sides(t, debt)))
    if owing:
        lines += ["", t("debt-private-press")]
    return join_lines(lines)


def marked_text(t: Translator, marked: Marked) -> Safe:
    """What the game's chat is told of a mark."""
    return t(f"debt-marked-{marked.side.value}", **sides(t, marked.debt), game=marked.debt.number)


def marked_toast(t: Translator, marked: Marked) -> str:
    return t(f"debt-toast-{marked.side.value}", creditor=marked.debt.creditor.name)


def paid_text(t: Translator, closed: Sequence[Debt]) -> Safe:
    """`/paid`: the debts it closed."""
    lines = [t("paid-line", **sides(t, debt), game=debt.number) for debt in closed]
    return join_lines([t("paid-title", **sides(t, closed[0])), *lines])


def reminder_set_text(t: Translator, every: int | None) -> Safe:
    return t("remind-off") if every is None else t("remind-on", period=period_text(t, every))


def reminder_text(t: Translator, debts: Sequence[Debt], every: int) -> Safe:
    head = t("remind-title", period=period_text(t, every))
    return join_lines([head, *(_line(t, debt) for debt in debts), "", t("remind-how")])
