"""The yardstick of bench/cli_bench.py: a plain single-file script that does what
`python -m scoring replay --json GAME` does — read the protocol file, replay it, settle it and
print one JSON object — importing the rules engine's modules directly, with no command line.

Run: `.venv/bin/python bench/cli_reference.py GAME.pref` (from the repository's root).
"""

import json
import sys
from fractions import Fraction

from scoring.notation import parse_protocol
from scoring.replay import replay
from scoring.settle import settle


def number(value: Fraction) -> int | float:
    return value.numerator if value.denominator == 1 else round(float(value), 2)


def main(path: str) -> None:
    with open(path, encoding="utf-8-sig") as file:
        protocol = parse_protocol(file.read())
    game = protocol.game()
    sheet = replay(game, [record for _, record in protocol.records])
    settlement = settle(sheet.rules, sheet.totals, game.stake)
    names, totals = game.players, sheet.totals
    data = {
        "convention": sheet.rules.convention,
        "players": list(names),
        "deals": sheet.deals,
        "finished": sheet.finished,
        "pool": {n: number(v) for n, v in zip(names, totals.pool, strict=True)},
        "mountain": {n: number(v) for n, v in zip(names, totals.mountain, strict=True)},
        "whists": {
            a: {b: number(totals.whists[i][j]) for j, b in enumerate(names) if j != i}
            for i, a in enumerate(names)
        },
        "balances": {n: number(b) for n, b in zip(names, settlement.balances, strict=True)},
        "balances_exact": {n: str(b) for n, b in zip(names, settlement.balances, strict=True)},
        "transfers": [
            {"from": names[t.debtor], "to": names[t.creditor], "whists": number(t.whists)}
            for t in settlement.transfers
        ],
    }
    print(json.dumps(data, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1])
