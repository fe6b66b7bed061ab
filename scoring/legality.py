"""A deal against the game it is entered in: what the notation cannot know (notation.md "Errors")."""

from __future__ import annotations

from scoring.deal import Contract, Deal, Misere, Raspasy, Role
from scoring.errors import IllegalDeal
from scoring.rules import Rules
from scoring.sheet import Game


def check_deal(game: Game, rules: Rules, finished: bool, deal: Deal, dealer: int) -> None:
    """What the notation cannot know: the dealer's seat, the convention's options, the game's end."""
    size = game.size
    if finished:
        raise IllegalDeal("game-finished", "", {}, "")
    active = [s for s in range(size) if size == 3 or s != dealer]
    names = game.players
    if isinstance(deal, Raspasy):
        if sorted(p for p, _ in deal.tricks) != active:
            raise IllegalDeal(
                "player-not-active",
                " ".join(names[p] for p, _ in deal.tricks),
                {"dealer": names[dealer]},
                "pass "
                + " ".join(f"{names[s]}/{t}" for s, t in zip(active, (2, 3, 5), strict=False)),
            )
        return
    if deal.declarer not in active:
        raise IllegalDeal("dealer-in-play", names[deal.declarer], {"dealer": names[dealer]}, "")
    if isinstance(deal, Misere):
        return
    if deal.three_down and not rules.three_down:
        raise IllegalDeal("three-down-not-allowed", "three_down", {"convention": rules.convention})
    seats = [d.player for d in deal.defenders]
    dealer_whists = dealer in seats and size == 4
    if dealer_whists:
        roles = {d.player: d.role for d in deal.defenders}
        if (
            not rules.odessa_rules
            or roles[dealer] is not Role.WHIST
            or Role.WHIST in [r for s, r in roles.items() if s != dealer]
        ):
            raise IllegalDeal("dealer-in-play", names[dealer], {"dealer": names[dealer]}, "")
    elif seats and sorted([deal.declarer, *seats]) != active:
        wrong = next(s for s in seats if s not in active)
        raise IllegalDeal("player-not-active", names[wrong], {"dealer": names[dealer]}, "")
    if deal.extras.prikup and (not rules.prikup_bonus or size != 4 or dealer_whists):
        raise IllegalDeal(
            "prikup-not-allowed", f"prikup:{deal.extras.prikup}", {"convention": rules.convention}
        )


def raspasy_exit_warning(rules: Rules, deal: Deal, streak: int) -> tuple[str, ...]:
    """`raspasy_exit` (e.g. 6-7-8): the lowest contract right after the k-th raspasy — advice only."""
    if not streak or not isinstance(deal, Contract):
        return ()
    steps = [int(x) for x in rules.raspasy_exit.split("-")]
    lowest = steps[min(streak, len(steps)) - 1]
    return ("raspasy-exit",) if deal.level < lowest else ()
