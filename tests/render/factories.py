"""Sheets for the renderer's tests: seeded random deals (bot.sheet.examples) replayed by the engine.

`random_sheet(players=3, deals=50, seed=1)` is deterministic; its pool is large enough that the game
goes on to the last deal. `closed_pool_sheet()` is a short game where Anna's pool is closed.
"""

from __future__ import annotations

import io
from fractions import Fraction

from PIL import Image

from bench.sheets import NAMES, random_game
from scoring.deal import Contract, Defender, Record, Role, Suit
from scoring.replay import replay
from scoring.rules import rules_for
from scoring.sheet import Band, Game, Sheet, Totals

ANNA, BORIS, CLARA = 0, 1, 2


def picture(png: bytes) -> tuple[str, tuple[int, int], bytes]:
    """What a PNG shows: its mode, size and pixels."""
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.mode, image.size, image.tobytes()


def random_sheet(
    players: int = 3,
    deals: int = 50,
    seed: int = 1,
    convention: str = "sochi",
    stake: Fraction | None = Fraction(1, 10),
) -> Sheet:
    sheet = random_game(
        players, deals, seed, convention=convention, pool_target=2 * deals + 20, stake=stake
    )
    assert sheet.deals == deals
    return sheet


def contract(declarer: int, level: int, suit: Suit, result: int, *roles: Role) -> Contract:
    """A contract of a 3-player game, the defenders clockwise from the declarer in `roles` order."""
    seats = [(declarer + 1) % 3, (declarer + 2) % 3]
    return Contract(
        declarer,
        level,
        suit,
        result,
        tuple(Defender(s, r) for s, r in zip(seats, roles, strict=True)),
    )


def sheet_of(
    *records: Record, convention: str = "sochi", pool_target: int = 10, **options: str
) -> Sheet:
    rules = rules_for(convention, 3, {"pool_target": str(pool_target), **options})
    return replay(Game(rules, NAMES[:3], 0, Fraction(1, 10)), records)


def closed_pool_sheet() -> Sheet:
    """Anna plays a ten (pass, pass) into a pool of 10, then Boris goes down one on a seven ♥."""
    return sheet_of(
        contract(ANNA, 10, Suit.SPADES, 0, Role.PASS, Role.PASS),
        contract(BORIS, 7, Suit.HEARTS, -1, Role.WHIST, Role.PASS),
    )


def finished_sheet() -> Sheet:
    """Each of the three plays a ten (pass, pass) into a pool of 10: every pool closed, game over."""
    return sheet_of(
        *(contract(seat, 10, Suit.CLUBS, 0, Role.PASS, Role.PASS) for seat in (ANNA, BORIS, CLARA))
    )


def synthetic_sheet(
    history: dict[Band, tuple[tuple[int, Fraction], ...]], players: int = 3
) -> Sheet:
    """A Sheet built by hand (no replay): any history, zero totals."""
    zero = (Fraction(0),) * players
    return Sheet(
        game=Game(rules_for("sochi", players), NAMES[:players], 0, None),
        records=(),
        totals=Totals(pool=zero, mountain=zero, whists=(zero,) * players),
        history=history,
    )
