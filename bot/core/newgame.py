"""Reading the arguments of `/newgame`."""

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from bot.core.errors import GameError
from bot.core.state import Player
from scoring.errors import OptionError
from scoring.rules import canonical_convention, rules_for
from scoring.seating import reserved_name

EXAMPLE: Final = "/newgame sochi pool 20 stake 0.1 Anna=@anna_k @boris_p Clara"
ARBITER_EXAMPLE: Final = "/newgame sochi arbiter=@eva_arbiter"
# Telegram usernames: a letter first, then letters, digits and underscores; 5–32 characters, and
# 4 for the short ones sold on Fragment.
_HANDLE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]{3,31}")
_ME: Final = frozenset({"me", "я"})
_FORBIDDEN: Final = frozenset(':/="“”„«»\\,;@')
NAME_MAX: Final = 20


@dataclass(slots=True)
class NewGame:
    """A /newgame command as read; `players` in seat order (may be fewer than `seats`)."""

    convention: str = "sochi"
    seats: int = 3
    overrides: dict[str, str] = field(default_factory=dict)
    stake: Fraction | None = None
    dealer: str | None = None
    players: list[Player] = field(default_factory=list)
    arbiter: Player | None = None  # decides tied and timed-out votes; not a player


def name_problem(name: str) -> str | None:
    """Why a name cannot stand in a deal line, or None."""
    if not name or len(name) > NAME_MAX:
        return "length"
    if any(c.isspace() or c in _FORBIDDEN for c in name):
        return "chars"
    if reserved_name(name):
        return "reserved"
    if not name[0].isalpha():
        return "start"
    return None


def check_name(name: str) -> str:
    if (problem := name_problem(name)) is not None:
        raise GameError("bad-name", name, {"problem": problem}, "/join Clara")
    return name


def name_from_profile(first_name: str | None, username: str | None, taken: set[str]) -> str:
    """A deal line's name for a Telegram user (first name, else username), unique in the game."""
    words = [*(first_name or "").split()[:1], username or ""]
    kept = ("".join(c for c in w if c.isalnum() or c in "_-'.")[:NAME_MAX] for w in words)
    cleaned = (w.lstrip("0123456789_-'.") for w in kept)
    base = next((w for w in cleaned if w and name_problem(w) is None), "Player")
    name, n = base, 1
    while name.casefold() in taken:
        n += 1
        name = f"{base[: NAME_MAX - len(str(n))]}{n}"
    return name


def _stake(raw: str) -> Fraction:
    """A stake per whist, a decimal (settlement.md: `0.5`, never `1/2`): `0.1`, `0,25`, `2`."""
    text = raw.replace(",", ".")
    if not re.fullmatch(r"\d{1,7}(\.\d{1,4})?", text) or Fraction(text) == 0:
        raise GameError("bad-stake", raw, {}, EXAMPLE)
    return Fraction(text)


def _pool(value: str | None, span: str) -> str:
    if value is None or not re.fullmatch(r"\d{1,4}", value) or int(value) == 0:
        raise GameError("bad-pool", span, {}, EXAMPLE)
    return value


def parse_newgame(args: str, me: Player, mentions: dict[str, Player] | None = None) -> NewGame:
    """Read the arguments of /newgame; raises GameError or OptionError with the part at fault."""
    mentions = mentions or {}
    spec = NewGame()
    seats_given: int | None = None
    tokens = iter(args.split())
    for i, tok in enumerate(tokens):
        low = tok.casefold()
        if low in {"pool", "пуля", "пулька", "пуля:", "pool:"}:
            nxt = next(tokens, None)
            spec.overrides["pool_target"] = _pool(nxt, f"{tok} {nxt or ''}".strip())
        elif low in {"stake", "ставка", "stake:", "ставка:"}:
            spec.stake = _stake(next(tokens, tok))  # none after it: the word is the bad stake
        elif "=" in tok and not tok.startswith("="):
            key, _, value = tok.partition("=")
            key_low = key.casefold().replace("-", "_")
            if key_low in {"players", "игроков", "игроки"}:
                if value not in ("3", "4"):
                    raise GameError("bad-player-count", tok, {}, "/newgame sochi players=4")
                seats_given = int(value)
            elif key_low in {"dealer", "сдаёт", "сдает", "сдатчик"}:
                spec.dealer = value
            elif key_low in {"arbiter", "арбитр"}:
                spec.arbiter = parse_arbiter(value, me)
            elif value.startswith("@") or value.casefold() in _ME:
                # `Миша=@misha_k`: a seat named Миша held by @misha_k; `Саша=me`: the sender's.
                check_name(key)
                held = me if value.casefold() in _ME else Player(key, None, _handle(value))
                spec.players.append(Player(key, held.user_id, held.username))
            elif key_low == "stake":
                spec.stake = _stake(value)
            elif key in ("pool", "pool_target"):
                spec.overrides["pool_target"] = _pool(value, tok)
            else:
                spec.overrides[key] = value  # §2.1: the exact lower-case name
        elif tok in mentions:
            spec.players.append(mentions[tok])
        elif low in _ME:
            spec.players.append(me)
        elif tok.startswith("@"):
            handle = _handle(tok)
            spec.players.append(Player(handle, None, handle))
        else:
            if i == 0:
                try:
                    spec.convention = canonical_convention(tok)
                    continue
                except OptionError:
                    if tok.isalpha() and tok == low:  # names start with a capital letter
                        raise
            spec.players.append(Player(check_name(tok)))

    if len(spec.players) > 4 or (seats_given is not None and len(spec.players) > seats_given):
        raise GameError("bad-player-count", " ".join(p.name for p in spec.players), {}, EXAMPLE)
    spec.seats = seats_given or (4 if len(spec.players) == 4 else 3)
    handles = [f"@{p.username}" for p in spec.players if p.username]
    for shown in ([p.name for p in spec.players], handles):
        folded = [name.casefold() for name in shown]
        if same := [name for i, name in enumerate(shown) if folded[i] in folded[:i]]:
            raise GameError("same-name", same[0], {}, EXAMPLE)
    if (arbiter := spec.arbiter) is not None:
        for player in spec.players:
            if player.is_same(arbiter) or player.name.casefold() == arbiter.name.casefold():
                raise GameError("arbiter-plays", f"arbiter=@{arbiter.name}", {}, EXAMPLE)
    try:
        rules_for(spec.convention, spec.seats, spec.overrides)
    except OptionError as error:
        option, valid = error.params.get("option", ""), error.params.get("valid", "")
        if error.code == "bad-option-value" and option:  # quoted as typed: `whist_split=nice`
            error.span = f"{option}={error.span}"
        if not error.example and option and valid:
            error.example = f"/newgame sochi {option}={valid.split(',')[0].strip()}"
        error.example = error.example or "/newgame sochi whist_split=gentleman"
        raise
    return spec


def _handle(tok: str) -> str:
    handle = tok.removeprefix("@")
    if not _HANDLE.fullmatch(handle):
        raise GameError("bad-name", tok, {"problem": "chars"}, EXAMPLE)
    return handle


def parse_arbiter(ref: str, me: Player, example: str = ARBITER_EXAMPLE) -> Player:
    """`@username` or `me`/`я`: a chat member who is to be the game's arbiter (corrections.md)."""
    ref = ref.strip()
    if ref.casefold() in _ME:
        return me
    handle = ref.removeprefix("@")
    if not ref.startswith("@") or not _HANDLE.fullmatch(handle):
        raise GameError("bad-arbiter", ref, {}, example)
    return Player(handle, None, handle)
