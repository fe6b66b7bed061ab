"""One deal: whether the game takes it, and the entries it writes before the pool overflow rule."""

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from scoring.deal import (
    GAME_VALUE,
    MISERE_VALUE,
    Column,
    Contract,
    Deal,
    Defender,
    Misere,
    Raspasy,
    Role,
    obligation,
    remise_price,
    whist_price,
)
from scoring.errors import IllegalDeal
from scoring.rules import (
    ConsolationKind,
    GentlemanScope,
    Progression,
    RaspasyFamily,
    RaspasyZero,
    Responsibility,
    Rules,
    WhistRequirement,
    WhistSplit,
)
from scoring.seating import active_seats, clockwise
from scoring.sheet import Entry, Game, Reason


def exact(amount: Fraction | int) -> Fraction:
    # `type(…) is` rather than isinstance: Fraction's ABC check is a good part of writing an entry.
    return amount if type(amount) is Fraction else Fraction(amount)


def pool(player: int, amount: Fraction | int, reason: Reason) -> Entry:
    return Entry(player, Column.POOL, exact(amount), reason)


def mountain(player: int, amount: Fraction | int, reason: Reason) -> Entry:
    return Entry(player, Column.MOUNTAIN, exact(amount), reason)


def whists(writer: int, target: int, amount: Fraction | int, reason: Reason) -> Entry:
    return Entry(writer, Column.WHISTS, exact(amount), reason, target)


def consolation(rules: Rules, level: int) -> Fraction:
    """Whists written on a failed declarer per undertrick (§1, `consolation`)."""
    if rules.consolation is ConsolationKind.PRICE:
        return Fraction(whist_price(rules, level))
    if rules.consolation is ConsolationKind.VALUE:
        return Fraction(GAME_VALUE[level])
    return Fraction(0 if rules.consolation is ConsolationKind.NONE else rules.consolation)


_RESPONSIBILITY: Final = {Responsibility.FULL: Fraction(1), Responsibility.HALF: Fraction(1, 2)}


def responsibility_factor(rules: Rules) -> Fraction:
    """r: the share of the whist price a whister writes into his mountain per short trick."""
    return _RESPONSIBILITY.get(rules.responsibility, Fraction(0))  # none: 0


def raspasy_multiplier(rules: Rules, step: int) -> int:
    """The price multiplier of the step-th raspasy in a row (§1.2); the last step repeats."""
    k = step if rules.raspasy_cap == 0 else min(step, rules.raspasy_cap)
    if rules.raspasy_progression is Progression.ARITHMETIC:
        return k
    if rules.raspasy_progression is Progression.GEOMETRIC:
        return int(2 ** (k - 1))
    return 1


def short_tricks(rules: Rules, deal: Contract, whisters: Sequence[Defender]) -> dict[int, int]:
    """Tricks each whister answers for when the contract was made (§1.1.3)."""
    duty, side = obligation(rules, deal.level), deal.defence_tricks
    requirement = rules.whist_requirement
    if duty == 0:
        return {}
    if len(whisters) == 1 or deal.level >= 8 or requirement is WhistRequirement.TOGETHER:
        answering = whisters[-1]  # defenders are kept clockwise from the declarer: the second
        return {answering.player: duty - side} if side < duty else {}
    if requirement is WhistRequirement.SIDE_FIRST and side >= duty:
        return {}
    half = duty // 2  # 6 → 2 each, 7 → 1 each
    shorts = {w.player: half - (w.tricks or 0) for w in whisters}
    return {player: short for player, short in shorts.items() if short > 0}


def score_contract(rules: Rules, size: int, dealer: int, deal: Contract) -> list[Entry]:
    """A game of 6–10 (§1.1), including pass-pass, half-whist and «без трёх»."""
    declarer, level, u = deal.declarer, deal.level, deal.undertricks
    p = whist_price(rules, level)
    # §2.2: the dealer's whist exists only with 4 players; with 3 the dealer plays, and a
    # defender who deals is an ordinary defender.
    dealer_defends = size == 4 and any(d.player == dealer for d in deal.defenders)
    entries: list[Entry] = []
    if deal.extras.prikup and not dealer_defends:
        # Quick tricks: the dealer writes them on the declarer "as for tricks" — on a concession
        # too, since the declarer took the prikup before he conceded (§2.2).
        entries.append(whists(dealer, declarer, deal.extras.prikup * p, Reason.PRIKUP))
    if deal.three_down:
        entries.append(mountain(declarer, 3 * remise_price(rules, level), Reason.THREE_DOWN))
        return _ordered(entries, declarer, size)

    if u == 0:
        entries.insert(0, pool(declarer, GAME_VALUE[level], Reason.GAME))

    if not deal.played:
        for half in (d for d in deal.defenders if d.role is Role.HALF):
            tricks = Fraction(obligation(rules, level), 2)  # 6 → 2 tricks, 7 → 1 trick
            entries.append(whists(half.player, declarer, p * tricks, Reason.HALF_WHIST))
        return _ordered(entries, declarer, size)

    if u:
        entries.append(mountain(declarer, u * remise_price(rules, level), Reason.REMISE))
    per_consolation = u * consolation(rules, level)
    whisters = [d for d in deal.defenders if d.role is Role.WHIST]
    passers = [d for d in deal.defenders if d.role is Role.PASS]

    if len(whisters) == 2:
        for w in whisters:
            entries.append(whists(w.player, declarer, p * (w.tricks or 0), Reason.TRICKS))
            if u:
                entries.append(whists(w.player, declarer, per_consolation, Reason.CONSOLATION))
    else:
        dealer_whists = dealer_defends and rules.odessa_rules
        whister, passer = whisters[0].player, passers[0].player
        entries += one_whist(rules, deal, whister, passer, p, per_consolation, dealer_whists)

    if u and size == 4 and rules.consolation_dealer and not dealer_defends:
        entries.append(whists(dealer, declarer, per_consolation, Reason.CONSOLATION))

    r = responsibility_factor(rules)
    if not u and r:
        for player, short in short_tricks(rules, deal, whisters).items():
            entries.append(mountain(player, short * p * r, Reason.RESPONSIBILITY))
    return _ordered(entries, declarer, size)


def one_whist(
    rules: Rules, deal: Contract, whister: int, passer: int, p: int, cons: Fraction, alone: bool
) -> list[Entry]:
    """One whister and one passer (§1.1.3); `alone`: the 4-player dealer whists alone (§6)."""
    declarer, side, failed = deal.declarer, deal.defence_tricks, deal.undertricks > 0
    split = rules.whist_split is WhistSplit.GENTLEMAN and not alone
    if split and (failed or rules.gentleman_scope is GentlemanScope.ALWAYS):
        # Whister and passer each write half of everything the two of them write.
        half = (p * side + 2 * cons) / 2
        return [
            whists(whister, declarer, half, Reason.GENTLEMAN),
            whists(passer, declarer, half, Reason.GENTLEMAN),
        ]
    entries = [whists(whister, declarer, p * side, Reason.TRICKS)]
    if failed:
        entries.append(whists(whister, declarer, cons, Reason.CONSOLATION))
        # Odessa: «без записи консоляции пасовавшему» — the whister writes the passer's too.
        if rules.passer_consolation_to_whister:
            entries.append(whists(whister, declarer, cons, Reason.PASSER_CONSOLATION))
        elif not alone:
            entries.append(whists(passer, declarer, cons, Reason.CONSOLATION))
    return entries


def score_misere(rules: Rules, size: int, dealer: int, deal: Misere) -> list[Entry]:
    """Misère (§1.1.4): clean → 10 into the pool; else the tricks into the mountain."""
    declarer, t = deal.declarer, deal.tricks
    if t == 0:
        return [pool(declarer, MISERE_VALUE, Reason.GAME)]
    entries = [mountain(declarer, t * rules.misere_price, Reason.MISERE)]
    if rules.misere_consolation:
        each = rules.consolation if isinstance(rules.consolation, int) else 10 * rules.whist_factor
        for seat in clockwise(declarer, size)[1:]:
            if size == 3 or seat != dealer or rules.consolation_dealer:
                entries.append(whists(seat, declarer, t * each, Reason.CONSOLATION))
    return entries


def zero_bonus(rules: Rules, player: int, price: int) -> list[Entry]:
    """The bonus of a player with no trick on raspasy (`raspasy_zero`)."""
    zero = rules.raspasy_zero
    if zero is RaspasyZero.NONE:
        return []
    if zero is RaspasyZero.MOUNTAIN_OFF:
        return [mountain(player, -price, Reason.RASPASY_ZERO)]
    # POOL_PRICE or POOL_1; the replay routes Odessa's fall-backs
    return [pool(player, price if zero is RaspasyZero.POOL_PRICE else 1, Reason.RASPASY_ZERO)]


def score_raspasy(rules: Rules, size: int, dealer: int, deal: Raspasy, step: int) -> list[Entry]:
    """All passed (§1.2): the mountain family, or Moscow's whists family."""
    tricks = dict(deal.tricks)
    mountain_family = rules.raspasy is RaspasyFamily.MOUNTAIN
    price = rules.raspasy_price * (raspasy_multiplier(rules, step) if mountain_family else 1)
    order = [seat for seat in clockwise(dealer + 1, size) if seat in tricks]
    # whists family: each player with the fewest tricks writes his share of the others' tricks
    fewest = min(tricks.values())
    losers = [seat for seat in order if tricks[seat] > fewest]
    entries: list[Entry] = []
    for seat in order:
        if mountain_family and tricks[seat]:
            entries.append(mountain(seat, tricks[seat] * price, Reason.RASPASY))
        elif not mountain_family and seat not in losers:
            for other in losers:
                amount = Fraction(price * tricks[other], len(order) - len(losers))
                entries.append(whists(seat, other, amount, Reason.RASPASY))
        if tricks[seat] == 0:
            entries += zero_bonus(rules, seat, price)
    if size == 4 and rules.raspasy_dealer_pool:
        entries.append(pool(dealer, rules.raspasy_dealer_pool, Reason.RASPASY_DEALER))
    return entries


def score_deal(rules: Rules, size: int, dealer: int, deal: Deal, step: int) -> list[Entry]:
    """The entries one deal writes, in the order the sheet takes them."""
    if isinstance(deal, Contract):
        return score_contract(rules, size, dealer, deal)
    if isinstance(deal, Misere):
        return score_misere(rules, size, dealer, deal)
    return score_raspasy(rules, size, dealer, deal, step)


def _ordered(entries: list[Entry], declarer: int, size: int) -> list[Entry]:
    """Declarer first, then clockwise from him; a stable sort keeps each player's own order."""
    rank = {seat: i for i, seat in enumerate(clockwise(declarer, size))}
    return sorted(entries, key=lambda e: rank[e.player])


def check_deal(game: Game, rules: Rules, deal: Deal, dealer: int) -> None:
    """What the notation cannot know: the dealer's seat, the convention's options."""
    size, names = game.size, game.players
    active = list(active_seats(size, dealer))
    if isinstance(deal, Raspasy):
        if sorted(p for p, _ in deal.tricks) != active:
            pairs = zip(active, (2, 3, 5), strict=False)
            example = "pass " + " ".join(f"{names[s]}/{t}" for s, t in pairs)
            playing = " ".join(names[p] for p, _ in deal.tricks)
            raise IllegalDeal("player-not-active", playing, {"dealer": names[dealer]}, example)
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
        # §6 dealer whist: the dealer whists alone
        whisting = [d.player for d in deal.defenders if d.role is Role.WHIST]
        if not rules.odessa_rules or whisting != [dealer]:
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
