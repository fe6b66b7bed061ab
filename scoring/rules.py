"""The options of every convention and their presets — spec/conventions.md §2."""

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Final, get_type_hints

from scoring.errors import OptionError


class Responsibility(StrEnum):
    """How much a short whister writes into his mountain per trick he (or his side) owed."""

    FULL = "full"  # p × 1, «ответственный»
    HALF = "half"  # p × ½, «полуответственный»
    NONE = "none"


class ConsolationKind(StrEnum):
    """Consolation per undertrick; an integer option value means a fixed number of whists."""

    PRICE = "price"  # the whist price p
    VALUE = "value"  # the game value v
    NONE = "none"


class WhistSplit(StrEnum):
    """One whister and one passer against a failed declarer (§1.1.3)."""

    GREEDY = "greedy"  # «жлобский»: the whister writes the tricks, the passer only his consolation
    GENTLEMAN = "gentleman"  # «джентльменский»: the two split everything in half


class GentlemanScope(StrEnum):
    REMISE = "remise"  # split only when the declarer failed
    ALWAYS = "always"  # split on every one-whist deal


class WhistRequirement(StrEnum):
    """Two whisters on a six or a seven: who answers for the side's obligation."""

    SIDE_FIRST = "side_first"  # each for his half, once the side is short
    EACH = "each"  # each for his half, always
    TOGETHER = "together"  # the side's shortfall, charged to the second whister


class MadeGame(StrEnum):
    POOL = "pool"
    # Rostov: write off the own mountain first, the rest into the pool
    MOUNTAIN_FIRST = "mountain_first"


class RaspasyFamily(StrEnum):
    MOUNTAIN = "mountain"  # tricks into the own mountain
    WHISTS = "whists"  # Moscow: the player with the fewest tricks writes whists on the others


class Progression(StrEnum):
    NONE = "none"
    ARITHMETIC = "arithmetic"  # ×1, 2, 3 …
    GEOMETRIC = "geometric"  # ×1, 2, 4 …


class RaspasyZero(StrEnum):
    """The bonus of a player who took no trick on raspasy."""

    POOL_PRICE = "pool_price"  # pool += the current trick price (Кодекс)
    POOL_1 = "pool_1"  # pool += 1 (Moscow)
    MOUNTAIN_OFF = "mountain_off"  # mountain −= the current trick price
    NONE = "none"


class Overflow(StrEnum):
    """What happens to pool points past the target (§1.3)."""

    HELP = "help"
    OWN_MOUNTAIN = "own_mountain"
    KEEP = "keep"


class EndRule(StrEnum):
    ALL_CLOSED = "all_closed"
    POOL_SUM = "pool_sum"
    TIME_THEN_FIRST_CLOSED = "time_then_first_closed"


# 2: `dealer_whist` and `raspasy_zero=pool_then_mountain` retired (Odessa's own rules, §2.2);
# `stored_rules` still reads a version-1 snapshot.
RULES_VERSION: Final = 2


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of spec/conventions.md §2.1 (field names are the option names); Sochi by default."""

    convention: str = "sochi"
    pool_target: int = 20
    whist_factor: int = 1  # seed A table: 6 → 2 per whist trick
    remise_factor: int = 1  # seed A table: 6 → 2 in mountain per undertrick
    misere_price: int = 10  # seed A: misère 10 per trick
    responsibility: Responsibility = Responsibility.FULL  # seed A: «вист ответственный»
    # seed A: «в размере стоимости игры» (p = v in Sochi)
    consolation: ConsolationKind | int = ConsolationKind.PRICE
    consolation_dealer: bool = True  # Кодекс 3.8.1.2
    whist_split: WhistSplit = WhistSplit.GREEDY  # seed A: «вист жлобский»
    gentleman_scope: GentlemanScope = GentlemanScope.REMISE
    ten_whisted: bool = True
    whist_requirement: WhistRequirement = WhistRequirement.SIDE_FIRST
    made_game: MadeGame = MadeGame.POOL
    three_down: bool = True
    misere_consolation: bool = False
    raspasy: RaspasyFamily = RaspasyFamily.MOUNTAIN
    raspasy_price: int = 1
    raspasy_progression: Progression = Progression.ARITHMETIC
    raspasy_cap: int = 3
    raspasy_zero: RaspasyZero = RaspasyZero.POOL_PRICE
    raspasy_dealer_pool: int = 0
    raspasy_exit: str = "6"
    overflow: Overflow = Overflow.HELP
    end_rule: EndRule = EndRule.ALL_CLOSED
    duration_minutes: int = 60
    pool_to_mountain: int = 1
    start_mountain: int = 0
    made_lowers_mountain: bool = False
    passer_consolation_to_whister: bool = False
    close_mountain_bonus: int = 0
    close_pool_bonus: int = 0
    prikup_bonus: bool = False
    record_penalties: bool = False
    pencil_seconds: int = 120  # corrections.md
    dispute_grace_seconds: int = 300
    vote_seconds: int = 900

    @property
    def odessa_rules(self) -> bool:
        """Odessa's own rules (§6) hold in `odessa` only, whatever the options say (§2.2)."""
        return self.convention == "odessa"

    def overrides(self, players: int = 3) -> dict[str, str]:
        """The options that differ from this convention's preset, as option strings."""
        base = rules_for(self.convention, players)
        return {
            f.name: format_option(getattr(self, f.name))
            for f in fields(self)
            if f.name != "convention" and getattr(self, f.name) != getattr(base, f.name)
        }


SOCHI: Final = Rules()

LENINGRAD: Final = replace(
    SOCHI,
    convention="leningrad",
    whist_factor=2,  # §4: 6 → 4 per whist trick
    remise_factor=2,  # §4: 6 → 4 per undertrick
    misere_price=20,
    responsibility=Responsibility.HALF,  # §4: 6 → 2 per whister's short trick
    consolation=ConsolationKind.PRICE,  # §4: 2v, confirmed by the Odessa examples
    whist_split=WhistSplit.GENTLEMAN,
    raspasy_price=2,  # §2: 2-4-6-6…
    raspasy_exit="6-7-8",
    overflow=Overflow.OWN_MOUNTAIN,  # §2: pool points past the target off the own mountain ×2
    pool_to_mountain=2,
)

MOSCOW: Final = replace(
    SOCHI,
    convention="moscow",
    responsibility=Responsibility.HALF,  # seed A: «вист полуответственный»
    consolation=10,  # seed A: «10 вистов за каждую недобранную взятку»
    whist_split=WhistSplit.GENTLEMAN,  # seed A: «вист джентльменский»
    raspasy=RaspasyFamily.WHISTS,  # seed A: «распасовка на висты … по пять вистов»
    raspasy_price=5,
    raspasy_progression=Progression.NONE,  # seed A: «распасовка не прогрессирует»
    raspasy_zero=RaspasyZero.POOL_1,  # seed A: «пишет в пульку стоимость одной взятки» (0-1-9 → 1)
    raspasy_dealer_pool=1,  # seed A: «сдатчик пишет единицу в пульку»
)

ODESSA: Final = replace(
    LENINGRAD,
    convention="odessa",
    responsibility=Responsibility.FULL,  # seed B 5: «ответственный»
    whist_split=WhistSplit.GREEDY,  # seed B 5: «вист жлобский»
    three_down=False,
    raspasy_price=2,  # seed B 7: «2-2-2… без прогрессии»
    raspasy_progression=Progression.NONE,  # (the cap stays Sochi's 3, §2.1)
    raspasy_zero=RaspasyZero.POOL_PRICE,  # seed B 7: 2 into the pool; the fall-backs are §6's own
    raspasy_exit="6",
    pool_target=40,  # seed B 9
    overflow=Overflow.HELP,  # seed B 10: 20 whists per 2 points
    end_rule=EndRule.TIME_THEN_FIRST_CLOSED,  # seed B 12
    pool_to_mountain=1,  # seed B 13: «в одинарном размере»
    start_mountain=20,  # seed B 2
    made_lowers_mountain=True,  # seed B 4
    passer_consolation_to_whister=True,  # seed B 5: «без записи консоляции пасовавшему»
    close_mountain_bonus=80,  # seed B 8: 80 with three players, 60 with four (see rules_for)
    close_pool_bonus=120,  # seed B 9
    prikup_bonus=True,  # seed B 11
)

RUSSIAN: Final = replace(
    SOCHI,
    convention="russian",
    three_down=False,
    pool_target=50,  # seed C: «пульку до 50»
    overflow=Overflow.KEEP,  # seed C: «результат любой игры пишется полностью»
    end_rule=EndRule.POOL_SUM,  # seed C: «суммарная запись … 150»
    pool_to_mountain=2,  # seed C: «вдвойне»
    record_penalties=True,  # Кодекс 4.2.7
)

PRESETS: Final[Mapping[str, Rules]] = {
    rules.convention: rules for rules in (SOCHI, LENINGRAD, MOSCOW, ODESSA, RUSSIAN)
}

ALIASES: Final[Mapping[str, str]] = {
    **dict.fromkeys(("сочи", "сочинка"), "sochi"),
    **dict.fromkeys(("ленинград", "ленинградка", "питер"), "leningrad"),
    # Лесной: «московская пулька … другое название: Ростов»
    **dict.fromkeys(("rostov", "москва", "ростов"), "moscow"),
    **dict.fromkeys(("одесса", "финка"), "odessa"),
    "русский": "russian",
}

OPTION_NAMES: Final = tuple(f.name for f in fields(Rules) if f.name != "convention")


def canonical_convention(name: str) -> str:
    """The preset's canonical name for a name or alias, case-insensitive; raises OptionError."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in PRESETS:
        raise OptionError("unknown-convention", name, {"valid": ", ".join([*PRESETS, "rostov"])})
    return key


def preset(name: str) -> Rules:
    return PRESETS[canonical_convention(name)]


def format_option(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)  # a StrEnum's str is its value


# §2.1 "Values are exactly as written here": plain integers (no `+`, no leading zero, ASCII digits),
# booleans `true`/`false`, lower-case names. Nine digits at most: a bound far above any real table.
_INTEGER: Final = re.compile(r"-?(?:0|[1-9][0-9]{0,8})")
_CONTRACTS: Final = r"(?:[6-9]|10)"
_RASPASY_EXIT: Final = re.compile(rf"{_CONTRACTS}(?:-{_CONTRACTS})*")
# The options of a few values: each value as written, to what it means.
_CHOICES: Final[Mapping[str, Mapping[str, object]]] = {
    **{
        name: {"true": True, "false": False} if kind is bool else {m.value: m for m in kind}
        for name, kind in get_type_hints(Rules).items()
        if kind is bool or (isinstance(kind, type) and issubclass(kind, StrEnum))
    },
    **{name: {"1": 1, "2": 2} for name in ("whist_factor", "remise_factor", "pool_to_mountain")},
}


def _bad_value(name: str, raw: str, valid: str) -> OptionError:
    example = f"{name}={format_option(getattr(SOCHI, name))}"
    return OptionError("bad-option-value", raw, {"option": name, "valid": valid}, example)


def parse_option(name: str, raw: str) -> object:
    """One `name=value` option typed, exactly as §2.1 writes it; raises OptionError."""
    if name not in OPTION_NAMES:
        raise OptionError(
            "unknown-option", name, {"valid": ", ".join(OPTION_NAMES)}, "pool_target=20"
        )
    if (choices := _CHOICES.get(name)) is not None:
        if raw not in choices:
            raise _bad_value(name, raw, ", ".join(choices))
        return choices[raw]
    if name == "consolation" and raw in [m.value for m in ConsolationKind]:
        return ConsolationKind(raw)
    if name == "raspasy_exit":
        if _RASPASY_EXIT.fullmatch(raw):
            return raw
        raise _bad_value(name, raw, "6, 7, 6-7-8")
    least = 1 if name == "pool_target" else 0
    signed = name == "start_mountain"  # `-10` is a mountain, not a mistake
    valid = "an integer such as -10" if signed else f"N ≥ {least}"
    if name == "consolation":
        valid = f"price, value, none, {valid}"
    if _INTEGER.fullmatch(raw) is None or (not signed and int(raw) < least):
        raise _bad_value(name, raw, valid)
    return int(raw)


def check_rules(rules: Rules) -> Rules:
    """The rules, unless `made_game=mountain_first` meets `made_lowers_mountain` (twice off)."""
    if rules.made_game is MadeGame.MOUNTAIN_FIRST and rules.made_lowers_mountain:
        raise OptionError(
            "incoherent-options",
            "made_game=mountain_first made_lowers_mountain=true",
            {"option": "made_game", "other": "made_lowers_mountain"},
            "made_game=mountain_first made_lowers_mountain=false",
        )
    return rules


# Rules version 1 held an option and a value §2.1 has since retired: Odessa's dealer whist
# and zero fall-backs are the convention's own rules now, not options.
_RETIRED_OPTIONS: Final = frozenset({"dealer_whist"})
_RETIRED_VALUES: Final = {("raspasy_zero", "pool_then_mountain"): "pool_price"}


def rules_for(convention: str, players: int, overrides: Mapping[str, str] | None = None) -> Rules:
    """One game's rules: the preset, its table-size defaults, then the overrides (§2.1)."""
    rules = preset(convention)
    if players == 4 and rules.close_mountain_bonus == 80:
        rules = replace(rules, close_mountain_bonus=60)  # seed B 8: 60 each with four players
    typed = {name: parse_option(name, raw) for name, raw in (overrides or {}).items()}
    return check_rules(replace(rules, **typed))  # type: ignore[arg-type]


def stored_rules(convention: str, players: int, options: Mapping[str, str]) -> Rules:
    """A game's frozen rules from stored options of any version, kept as frozen (§1.4)."""
    typed = {
        name: parse_option(name, _RETIRED_VALUES.get((name, raw), raw))
        for name, raw in options.items()
        if name not in _RETIRED_OPTIONS
    }
    return replace(rules_for(convention, players), **typed)  # type: ignore[arg-type]


def with_option(rules: Rules, name: str, raw: str) -> Rules:
    """The same rules with one option changed (a mid-game change, conventions.md §1.4)."""
    return check_rules(replace(rules, **{name: parse_option(name, raw)}))  # type: ignore[arg-type]
