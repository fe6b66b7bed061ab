"""Hypothesis strategies: random valid games under every convention, for 3 and 4 players, with
preset rules or with random option sets (and mid-game `option` lines)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from hypothesis import strategies as st

from scoring.deal import (
    Adjust,
    Column,
    Contract,
    Defender,
    Extras,
    LastRound,
    Misere,
    Raspasy,
    Record,
    Role,
    RuleChange,
    Suit,
)
from scoring.errors import IllegalDeal, OptionError
from scoring.notation import format_record
from scoring.replay import replay
from scoring.rules import PRESETS, Rules, rules_for, with_option
from scoring.sheet import Game
from scoring.voting import record_penalty

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


# Every option of conventions.md §2.1 drawn from its values (integers over a sensible range).
_INTS = st.integers
OPTION_VALUES: dict[str, st.SearchStrategy[str]] = {
    "pool_target": _INTS(2, 20).map(str),
    "whist_factor": st.sampled_from(("1", "2")),
    "remise_factor": st.sampled_from(("1", "2")),
    "misere_price": _INTS(0, 20).map(str),
    "responsibility": st.sampled_from(("full", "half", "none")),
    "consolation": st.sampled_from(("price", "value", "none")) | _INTS(0, 20).map(str),
    "consolation_dealer": st.sampled_from(("true", "false")),
    "whist_split": st.sampled_from(("greedy", "gentleman")),
    "gentleman_scope": st.sampled_from(("remise", "always")),
    "ten_whisted": st.sampled_from(("true", "false")),
    "whist_requirement": st.sampled_from(("side_first", "each", "together")),
    "made_game": st.sampled_from(("pool", "mountain_first")),
    "three_down": st.sampled_from(("true", "false")),
    "misere_consolation": st.sampled_from(("true", "false")),
    "raspasy": st.sampled_from(("mountain", "whists")),
    "raspasy_price": _INTS(0, 5).map(str),
    "raspasy_progression": st.sampled_from(("none", "arithmetic", "geometric")),
    "raspasy_cap": _INTS(0, 5).map(str),
    "raspasy_zero": st.sampled_from(("pool_price", "pool_1", "mountain_off", "none")),
    "raspasy_dealer_pool": _INTS(0, 2).map(str),
    "raspasy_exit": st.sampled_from(("6", "7", "6-7-8", "6-7-7")),
    "overflow": st.sampled_from(("help", "own_mountain", "keep")),
    "end_rule": st.sampled_from(("all_closed", "pool_sum", "time_then_first_closed")),
    "duration_minutes": _INTS(0, 120).map(str),
    "pool_to_mountain": st.sampled_from(("1", "2")),
    "start_mountain": _INTS(-10, 30).map(str),
    "made_lowers_mountain": st.sampled_from(("true", "false")),
    "passer_consolation_to_whister": st.sampled_from(("true", "false")),
    "close_mountain_bonus": _INTS(0, 120).map(str),
    "close_pool_bonus": _INTS(0, 120).map(str),
    "prikup_bonus": st.sampled_from(("true", "false")),
    "record_penalties": st.sampled_from(("true", "false")),
    "pencil_seconds": _INTS(0, 600).map(str),
    "dispute_grace_seconds": _INTS(0, 600).map(str),
    "vote_seconds": _INTS(0, 1800).map(str),
}
_COHERENT = {"made_lowers_mountain": "false"}  # what makes `made_game=mountain_first` coherent


@st.composite
def option_games(draw: st.DrawFn) -> Game:
    """A game of any convention with a random set of §2.1 options over its preset."""
    convention = draw(st.sampled_from(sorted(PRESETS)))
    size = draw(st.sampled_from((3, 4)))
    names = draw(st.lists(st.sampled_from(sorted(OPTION_VALUES)), unique=True, max_size=12))
    overrides = {name: draw(OPTION_VALUES[name]) for name in names}
    try:
        rules = rules_for(convention, size, overrides)
    except OptionError:  # the one incoherent pair of §2.1
        rules = rules_for(convention, size, {**overrides, **_COHERENT})
    return Game(rules, NAMES[:size], draw(st.integers(0, size - 1)))


@st.composite
def option_played_games(draw: st.DrawFn, max_deals: int = 40) -> tuple[Game, list[Record]]:
    """A game with random options and its records, mid-game `option` lines among the deals; each
    deal is drawn under the rules in force when it is played."""
    game = draw(option_games())
    rules = game.rules
    records: list[Record] = []
    deals = 0
    for _ in range(draw(st.integers(0, max_deals))):
        if draw(st.integers(0, 7)) == 0:
            name = draw(st.sampled_from(sorted(OPTION_VALUES)))
            value = draw(OPTION_VALUES[name])
            try:
                rules = with_option(rules, name, value)
            except OptionError:
                continue
            records.append(RuleChange(name, value))
            continue
        now = replace(game, rules=rules)
        records.append(draw(deal_for(now, (game.first_dealer + deals) % game.size)))
        deals += 1
    return game, truncate_at_end(game, records)


# -- whole protocol files: deals with extras, adjustments, the last round, corrections ---------

_NOTE_WORDS = st.sampled_from(["late", "Миша", 'said "no"', "a\\b", "«ок»", "7♠", "x=y", "a,b"])


@st.composite
def _decorated(draw: st.DrawFn, record: Record, dealer: int) -> Record:
    """A deal with the extras a line may carry: its dealer named, open or closed, a note."""
    if not isinstance(record, Contract | Misere | Raspasy):
        return record
    extras = record.extras
    if draw(st.integers(0, 3)) == 0:
        extras = replace(extras, dealer=dealer)
    if not isinstance(record, Raspasy) and draw(st.integers(0, 3)) == 0:
        extras = replace(extras, open=draw(st.booleans()))
    if draw(st.integers(0, 3)) == 0:
        extras = replace(
            extras, note=" ".join(draw(st.lists(_NOTE_WORDS, min_size=1, max_size=3)))
        )
    return replace(record, extras=extras)


@st.composite
def _adjust(draw: st.DrawFn, size: int) -> Adjust:
    player = draw(st.integers(0, size - 1))
    column = draw(st.sampled_from(list(Column)))
    amount = Fraction(draw(st.integers(-30, 30).filter(bool)), draw(st.sampled_from((1, 1, 2, 3))))
    target = None
    if column is Column.WHISTS:
        target = draw(st.sampled_from([s for s in range(size) if s != player]))
    note = draw(st.sampled_from(("", "penalty", "arbiter")))
    return Adjust(player, column, amount, target, note)


def dealers(game: Game, records: Sequence[Record]) -> list[int | None]:
    """Who deals each record (None for a record that is not a deal), as the replay rotates."""
    out: list[int | None] = []
    dealer = game.first_dealer
    for record in records:
        if isinstance(record, Contract | Misere | Raspasy):
            this = record.extras.dealer if record.extras.dealer is not None else dealer
            out.append(this)
            dealer = (this + 1) % game.size
        else:
            out.append(None)
    return out


@st.composite
def protocol_games(
    draw: st.DrawFn,
) -> tuple[Game, list[Record], dict[int, list[str]]]:
    """A random game of any convention and table size — preset or random options, mid-game
    `option` lines — whose records also carry extras, adjustments, the last-round mark, and
    corrections as the bot exports them (the record as corrected, its penalties as `adjust`
    lines, the superseded line as a comment); with the comments to write after each record."""
    game, records = draw(option_played_games() if draw(st.booleans()) else played_games())
    if draw(st.booleans()):
        stake = draw(st.sampled_from((Fraction(1, 10), Fraction(1, 2), Fraction(2))))
        game = replace(game, stake=stake)
    rules_at = _rules_at(game, records)
    seats = dealers(game, records)
    records = [
        draw(_decorated(r, d)) if d is not None else r for r, d in zip(records, seats, strict=True)
    ]
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(records)))
        records.insert(at, draw(_adjust(game.size)) if draw(st.booleans()) else LastRound())
        rules_at.insert(at, rules_at[at - 1] if at else game.rules)
    records = truncate_at_end(game, records)
    comments: dict[int, list[str]] = {}
    deals = [i for i, r in enumerate(records) if isinstance(r, Contract | Misere | Raspasy)]
    if deals and draw(st.booleans()):  # a correction, as a passed /dispute leaves the log
        index = draw(st.sampled_from(deals))
        dealer = dealers(game, records)[index]
        assert dealer is not None
        now = replace(game, rules=rules_at[index])
        corrected = draw(deal_for(now, dealer))
        corrected = replace(corrected, extras=replace(corrected.extras, dealer=dealer))
        author = draw(st.integers(0, game.size - 1))
        try:
            penalties = record_penalty(game, records, index, corrected, author)
            fixed = [*records[:index], corrected, *penalties, *records[index + 1 :]]
            replay(game, fixed[: index + 1 + len(penalties)])
        except IllegalDeal:
            fixed = records
        else:
            comments[index] = [
                f"correction by vote: was {format_record(records[index], game.players)}"
            ]
        records = truncate_at_end(game, fixed)
        comments = {i: c for i, c in comments.items() if i < len(records)}
    return game, records, comments


def _rules_at(game: Game, records: Sequence[Record]) -> list[Rules]:
    """The rules in force at each record (before it)."""
    rules, out = game.rules, []
    for record in records:
        out.append(rules)
        if isinstance(record, RuleChange):
            rules = with_option(rules, record.option, record.value)
    return out
