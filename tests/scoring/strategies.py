"""Hypothesis strategies: random valid games under every convention, for 3 and 4 players."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from scoring.deal import Contract, Defender, Extras, Misere, Raspasy, Record, Role, Suit
from scoring.errors import IllegalDeal
from scoring.replay import replay
from scoring.rules import PRESETS, rules_for
from scoring.sheet import Game

NAMES = ("Anna", "Boris", "Clara", "Dima")


@st.composite
def games(draw: st.DrawFn) -> Game:
    convention = draw(st.sampled_from(sorted(PRESETS)))
    size = draw(st.sampled_from((3, 4)))
    pool = draw(st.sampled_from((4, 10, 20)))
    rules = rules_for(convention, size, {"pool_target": str(pool)})
    return Game(rules, NAMES[:size], draw(st.integers(0, size - 1)))


def split_ten(draw: st.DrawFn, parts: int) -> list[int]:
    cuts = sorted(draw(st.lists(st.integers(0, 10), min_size=parts - 1, max_size=parts - 1)))
    bounds = [0, *cuts, 10]
    return [bounds[i + 1] - bounds[i] for i in range(parts)]


@st.composite
def deal_for(draw: st.DrawFn, game: Game, dealer: int) -> Record:
    """One valid deal for the seat that deals it."""
    size, rules = game.size, game.rules
    active = [s for s in range(size) if size == 3 or s != dealer]
    kind = draw(st.sampled_from(("contract", "contract", "contract", "misere", "raspasy")))
    if kind == "raspasy":
        return Raspasy(tuple(zip(active, split_ten(draw, 3), strict=True)))
    declarer = draw(st.sampled_from(active))
    if kind == "misere":
        return Misere(declarer, draw(st.integers(0, 10)))
    level = draw(st.integers(6, 10))
    suit = draw(st.sampled_from([*Suit, None]))
    first, second = [s for s in active if s != declarer]
    if rules.three_down and draw(st.integers(0, 9)) == 0:
        return Contract(declarer, level, suit, 0, (), three_down=True)
    words = [(Role.WHIST, Role.PASS), (Role.PASS, Role.WHIST), (Role.WHIST, Role.WHIST)]
    words += [(Role.PASS, Role.PASS)]
    if level <= 7:
        words += [(Role.PASS, Role.HALF), (Role.HALF, Role.PASS)]
    roles = draw(st.sampled_from(words))
    seats = (first, second)
    dealer_may_whist = rules.odessa_rules and size == 4 and roles == (Role.PASS, Role.PASS)
    if dealer_may_whist and draw(st.booleans()):
        seats, roles = (first, dealer), (Role.PASS, Role.WHIST)
    prikup = 0
    if rules.prikup_bonus and size == 4 and dealer not in seats:
        prikup = draw(st.integers(0, 3))
    played = Role.WHIST in roles and Role.HALF not in roles
    declarer_tricks = draw(st.integers(0, 10)) if played else level
    defence = 10 - declarer_tricks
    tricks: list[int | None] = [None, None]
    if roles == (Role.WHIST, Role.WHIST):
        one = draw(st.integers(0, defence))
        tricks = [one, defence - one]
    defenders = sorted(
        (Defender(s, r, t) for s, r, t in zip(seats, roles, tricks, strict=True)),
        key=lambda d: (d.player - declarer) % size,
    )
    return Contract(
        declarer,
        level,
        suit,
        declarer_tricks - level,
        tuple(defenders),
        False,
        Extras(prikup=prikup),
    )


@st.composite
def played_games(draw: st.DrawFn, max_deals: int = 40) -> tuple[Game, list[Record]]:
    """A game and its records up to its end (a deal after the end would be refused)."""
    game = draw(games())
    count = draw(st.integers(0, max_deals))
    records: list[Record] = []
    for n in range(count):
        records.append(draw(deal_for(game, (game.first_dealer + n) % game.size)))
    return game, truncate_at_end(game, records)


def truncate_at_end(game: Game, records: Sequence[Record]) -> list[Record]:
    try:
        replay(game, records)
    except IllegalDeal as err:
        assert err.code == "game-finished", err.code
        return list(records[: int(err.params["record"])])
    return list(records)
