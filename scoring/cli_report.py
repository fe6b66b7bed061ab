"""What `replay` and `settle` print (spec/cli.md): a table, or JSON rounded to 2 decimals."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from math import floor
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from scoring.rules import Rules
    from scoring.settle import Settlement
    from scoring.sheet import Totals

CLI_LANG: Final = "en"  # the command line speaks English (numbers written the English way)


@dataclass(frozen=True, slots=True)
class Report:
    rules: Rules
    players: tuple[str, ...]
    totals: Totals
    stake: Fraction | None
    settlement: Settlement
    deals: int | None = None  # replay only
    finished: bool | None = None

    def data(self) -> dict[str, object]:
        """The JSON object of cli.md; numbers rounded to 2 decimals, whole ones as integers."""
        names, totals, settlement = self.players, self.totals, self.settlement
        data: dict[str, object] = {"convention": self.rules.convention, "players": list(names)}
        if self.deals is not None:
            data |= {"deals": self.deals, "finished": self.finished}
        data["pool"] = {n: json_number(v) for n, v in zip(names, totals.pool, strict=True)}
        data["mountain"] = {n: json_number(v) for n, v in zip(names, totals.mountain, strict=True)}
        data["whists"] = {
            writer: {on: json_number(row[j]) for j, on in enumerate(names) if j != i}
            for i, (writer, row) in enumerate(zip(names, totals.whists, strict=True))
        }
        balances = settlement.balances
        data["balances"] = {n: json_number(b) for n, b in zip(names, balances, strict=True)}
        data["balances_exact"] = {n: str(b) for n, b in zip(names, balances, strict=True)}
        if self.stake is not None and settlement.money is not None:
            data["stake"] = _decimal_text(self.stake)
            data["money"] = {n: str(m) for n, m in zip(names, settlement.money, strict=True)}
        data["transfers"] = [
            {"from": names[t.debtor], "to": names[t.creditor], "whists": json_number(t.whists)}
            | ({} if t.money is None else {"money": str(t.money)})
            for t in settlement.transfers
        ]
        return data

    def text(self, as_json: bool) -> str:
        return dump_json(self.data()) + "\n" if as_json else self.table()

    def table(self) -> str:
        names, totals, settlement = self.players, self.totals, self.settlement
        overrides = self.rules.overrides(len(names))
        overrides.pop("pool_target", None)  # said just below
        head = f"{self.rules.convention}, pool {self.rules.pool_target}"
        if overrides:
            head += "; " + " ".join(f"{k}={v}" for k, v in overrides.items())
        if self.stake is not None:
            head += f"; stake {_decimal_text(self.stake)} a whist"
        if self.deals is not None:
            deals = f"{self.deals} deal" + ("" if self.deals == 1 else "s")
            head += f"; {deals}, {'finished' if self.finished else 'not finished'}"
        rows = [["", "pool", "mountain", *(f"on {n}" for n in names)]]
        for i, name in enumerate(names):
            whists = ["-" if i == j else short_number(w) for j, w in enumerate(totals.whists[i])]
            pool, mountain = totals.pool[i], totals.mountain[i]
            rows.append([name, short_number(pool), short_number(mountain), *whists])
        lines = [head, "", *columns(rows, right=range(1, len(rows[0])))]

        exact = any(b.denominator != 1 for b in settlement.balances)
        money = settlement.money
        rows = [
            ["balance", "whists", *(["exact"] if exact else []), *(["money"] if money else [])]
        ]
        for i, (name, balance) in enumerate(zip(names, settlement.balances, strict=True)):
            fraction = ["" if balance.denominator == 1 else str(balance)] if exact else []
            owed = [] if money is None else [str(money[i])]
            rows.append([name, short_number(balance, sign=True), *fraction, *owed])
        lines += ["", *columns(rows, right=range(1, len(rows[0])))]

        lines += ["", "transfers:" if settlement.transfers else "transfers: none"]
        for t in settlement.transfers:
            paid = "" if t.money is None else f" = {t.money}"
            who = f"{names[t.debtor]} → {names[t.creditor]}"
            lines.append(f"  {who}: {short_number(t.whists)} whists{paid}")
        return "\n".join(lines) + "\n"


def json_number(value: Fraction) -> int | Decimal:
    """The exact value rounded to 2 decimals (halves away from zero); a whole number as an int."""
    magnitude = floor(abs(value) * 100 + Fraction(1, 2))
    hundredths = magnitude if value >= 0 else -magnitude
    if hundredths % 100 == 0:
        return hundredths // 100
    return Decimal(hundredths).scaleb(-2).normalize()


def short_number(value: Fraction, sign: bool = False) -> str:
    """Whole, or one decimal with an ASCII minus (settlement.md "Exactness and rounding")."""
    from locales import numbers

    return numbers.decimal(value, CLI_LANG, signed=sign, minus="-")


def dump_json(value: object) -> str:
    """JSON text with `Decimal` numbers written exactly (the standard encoder would need floats)."""
    ascii_only = (sys.stdout.encoding or "").lower().replace("-", "") != "utf8"
    if isinstance(value, Mapping):
        items = (f"{dump_json(str(k))}: {dump_json(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(dump_json(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value, ensure_ascii=ascii_only)


def _decimal_text(value: Fraction) -> str:
    """A stake as money is written: at least two decimals ("0.10"), more only when it has them."""
    if (value * 100).denominator == 1:
        return str(Decimal(int(value * 100)).scaleb(-2))
    return str(Decimal(value.numerator) / Decimal(value.denominator))


def columns(rows: Sequence[Sequence[str]], right: Sequence[int]) -> list[str]:
    """Rows as aligned text columns; the columns in `right` (numbers) are right-aligned."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(widths[k]) if k in right else cell.ljust(widths[k])
            for k, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]
