"""What a deal entered step by step may say at each step: the answers the engine accepts."""

from collections.abc import Sequence
from typing import Final

from scoring.deal import GAME_VALUE, TRICKS, Role, Suit
from scoring.seating import Seating

LEVELS: Final = tuple(sorted(GAME_VALUE))  # notation.md: "`LEVEL` 6–10"
SUITS: Final = tuple(Suit)  # ♠ ♣ ♦ ♥ NT
# notation.md "Errors": "half-whist on 8+ or beside a whist, two half-whists" are refused.
HALF_WHIST_LEVELS: Final = (6, 7)


def contracts() -> tuple[tuple[int, Suit], ...]:
    """Every contract, by level then suit: 6♠ … 10NT."""
    return tuple((level, suit) for level in LEVELS for suit in SUITS)


def words(level: int, said: Sequence[Role]) -> tuple[Role, ...]:
    """The words the next defender (clockwise from the declarer) may say after `said`."""
    if len(said) >= 2:
        return ()
    if said and said[0] is Role.HALF:
        return (Role.PASS,)
    half = level in HALF_WHIST_LEVELS and (not said or said[0] is Role.PASS)
    return (Role.WHIST, Role.PASS, Role.HALF) if half else (Role.WHIST, Role.PASS)


def was_played(said: Sequence[Role]) -> bool:
    """Whether cards were played: someone whisted and nobody took a half-whist."""
    return Role.WHIST in said and Role.HALF not in said


def both_whisted(said: Sequence[Role]) -> bool:
    """Both defenders whisted: each writes his own tricks (notation.md "`TRICKS`")."""
    return tuple(said) == (Role.WHIST, Role.WHIST)


def declarer_tricks() -> tuple[int, ...]:
    """The declarer's tricks, 0–10: in a played contract (result = tricks − level) and a misère."""
    return tuple(range(TRICKS + 1))


def tricks_left(taken: Sequence[int]) -> int:
    left = TRICKS - sum(taken)
    if left < 0:
        raise ValueError(f"more than {TRICKS} tricks placed: {tuple(taken)}")
    return left


def first_whister_tricks(declarer_took: int) -> tuple[int, ...]:
    """Both whisted: the first whister's tricks; the second has the rest of the defence's."""
    return tuple(range(tricks_left((declarer_took,)) + 1))


def raspasy_tricks(active: int, placed: Sequence[int]) -> tuple[int, ...]:
    """The next active player's raspasy tricks after `placed`; the last one takes the rest."""
    if len(placed) >= active:
        return ()
    left = tricks_left(placed)
    return (left,) if len(placed) == active - 1 else tuple(range(left + 1))


def may_concede(allowed: bool, said: Sequence[Role]) -> bool:
    """«Без трёх»: where the rules allow it, right after the contract, before any defender."""
    return allowed and not said


def prikup_tricks(bonus: bool, seating: Seating) -> tuple[int, ...]:
    """Odessa's quick tricks (`prikup:N`, 1–3) where `prikup_bonus` counts them: at four."""
    return (1, 2, 3) if bonus and len(seating.names) == 4 else ()


def dealer_whist_partners(
    odessa: bool, seating: Seating, declarer: int, said: Sequence[Role]
) -> tuple[int, ...]:
    """§6 dealer whist: the passers X of `vist:DEALER pass:X` when both defenders passed."""
    if not odessa or len(seating.names) != 4 or tuple(said) != (Role.PASS, Role.PASS):
        return ()
    return seating.defenders(declarer)
