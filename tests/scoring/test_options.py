"""conventions.md §2.1: option names and values are strict, and one pair is refused together."""

from __future__ import annotations

import pytest

from locales import catalog
from scoring.errors import OptionError
from scoring.rules import (
    OPTION_NAMES,
    PRESETS,
    ConsolationKind,
    format_option,
    parse_option,
    rules_for,
    stored_rules,
    with_option,
)

# Every value §2.1 lists for each option (integers: a few plain ones).
GOOD_VALUES: dict[str, tuple[str, ...]] = {
    "pool_target": ("1", "20", "50"),
    "whist_factor": ("1", "2"),
    "remise_factor": ("1", "2"),
    "misere_price": ("0", "10", "20"),
    "responsibility": ("full", "half", "none"),
    "consolation": ("price", "value", "none", "0", "10"),
    "consolation_dealer": ("true", "false"),
    "whist_split": ("greedy", "gentleman"),
    "gentleman_scope": ("remise", "always"),
    "ten_whisted": ("true", "false"),
    "whist_requirement": ("side_first", "each", "together"),
    "made_game": ("pool", "mountain_first"),
    "three_down": ("true", "false"),
    "misere_consolation": ("true", "false"),
    "raspasy": ("mountain", "whists"),
    "raspasy_price": ("1", "2", "5"),
    "raspasy_progression": ("none", "arithmetic", "geometric"),
    "raspasy_cap": ("0", "3"),
    "raspasy_zero": ("pool_price", "pool_1", "mountain_off", "none"),
    "raspasy_dealer_pool": ("0", "1"),
    "raspasy_exit": ("6", "7", "6-7-8", "10"),
    "overflow": ("help", "own_mountain", "keep"),
    "end_rule": ("all_closed", "pool_sum", "time_then_first_closed"),
    "duration_minutes": ("0", "60"),
    "pool_to_mountain": ("1", "2"),
    "start_mountain": ("0", "20", "-10"),
    "made_lowers_mountain": ("true", "false"),
    "passer_consolation_to_whister": ("true", "false"),
    "close_mountain_bonus": ("0", "60", "80"),
    "close_pool_bonus": ("0", "120"),
    "prikup_bonus": ("true", "false"),
    "record_penalties": ("true", "false"),
    "pencil_seconds": ("0", "120"),
    "dispute_grace_seconds": ("300",),
    "vote_seconds": ("900",),
}

BAD_VALUES: list[tuple[str, str]] = [
    ("three_down", "True"),
    ("three_down", "yes"),
    ("three_down", "1"),
    ("three_down", "да"),
    ("record_penalties", "on"),
    ("remise_factor", "3"),
    ("remise_factor", "0"),
    ("whist_factor", "4"),
    ("pool_to_mountain", "3"),
    ("pool_target", "+10"),
    ("pool_target", "10.0"),
    ("pool_target", "1/2"),
    ("pool_target", "0"),
    ("pool_target", "-5"),
    ("pool_target", "０１"),
    ("pool_target", "1_0"),
    ("pool_target", " 10"),
    ("pool_target", "010"),
    ("misere_price", "-1"),
    ("consolation", "-1"),
    ("consolation", "Price"),
    ("start_mountain", "+5"),
    ("whist_split", "Greedy"),
    ("whist_split", "nice"),
    ("raspasy_zero", "pool_then_mountain"),
    ("raspasy_exit", "5"),
    ("raspasy_exit", "6-11"),
    ("raspasy_exit", "6--7"),
]


def test_every_option_of_section_2_1_has_its_values_listed_here() -> None:
    assert sorted(GOOD_VALUES) == sorted(OPTION_NAMES)


@pytest.mark.parametrize(
    ("name", "raw"), [(name, raw) for name, values in GOOD_VALUES.items() for raw in values]
)
def test_every_value_section_2_1_lists_is_accepted_and_prints_back(name: str, raw: str) -> None:
    """§2.1: the values as written there — booleans `true`/`false`, plain integers, names."""
    assert format_option(parse_option(name, raw)) == raw


@pytest.mark.parametrize(("name", "raw"), BAD_VALUES)
def test_any_other_value_is_an_error_naming_the_option(name: str, raw: str) -> None:
    """§2.1: "Values are exactly as written here: booleans `true`/`false`; integers plain (`20`,
    `-10`; no `+`); names lower-case. Any other name or value is an error"."""
    with pytest.raises(OptionError) as err:
        parse_option(name, raw)
    assert err.value.code == "bad-option-value"
    assert err.value.params["option"] == name
    assert err.value.span == raw
    assert err.value.example.startswith(f"{name}=")
    parse_option(name, err.value.example.partition("=")[2])  # the example itself is good


@pytest.mark.parametrize("name", ["Pool_Target", "POOL_TARGET", "pool-target", "dealer_whist"])
def test_only_the_exact_lower_case_names_of_section_2_1_are_options(name: str) -> None:
    """§2.1 "names lower-case"; issue 9: "the invented `dealer_whist` option … go[es]"."""
    with pytest.raises(OptionError) as err:
        parse_option(name, "true")
    assert (err.value.code, err.value.span) == ("unknown-option", name)


def test_the_retired_odessa_option_and_value_are_gone() -> None:
    """Issue 9: "Odessa's behaviour is the convention's own, not an option value"."""
    assert "dealer_whist" not in OPTION_NAMES
    assert PRESETS["odessa"].raspasy_zero.value == "pool_price"
    assert PRESETS["odessa"].odessa_rules and not PRESETS["sochi"].odessa_rules


def test_integer_consolation_stays_an_integer() -> None:
    assert parse_option("consolation", "10") == 10
    assert parse_option("consolation", "value") is ConsolationKind.VALUE


@pytest.mark.parametrize(
    "overrides",
    [
        {"made_game": "mountain_first", "made_lowers_mountain": "true"},
        {"made_game": "mountain_first"},  # odessa below has made_lowers_mountain on
    ],
)
def test_mountain_first_with_made_lowers_mountain_is_refused_naming_both(
    overrides: dict[str, str],
) -> None:
    """§2.1: "and so is the incoherent pair `made_game=mountain_first` with
    `made_lowers_mountain=true` (the error names both)"."""
    convention = "sochi" if "made_lowers_mountain" in overrides else "odessa"
    with pytest.raises(OptionError) as err:
        rules_for(convention, 3, overrides)
    assert err.value.code == "incoherent-options"
    assert (err.value.params["option"], err.value.params["other"]) == (
        "made_game",
        "made_lowers_mountain",
    )
    assert "made_game" in err.value.span and "made_lowers_mountain" in err.value.span


def test_the_pair_is_refused_mid_game_too_and_accepted_once_coherent() -> None:
    """§1.4 with §2.1: a rule change to an incoherent pair is refused like the header."""
    odessa = rules_for("odessa", 3)
    with pytest.raises(OptionError) as err:
        with_option(odessa, "made_game", "mountain_first")
    assert err.value.code == "incoherent-options"
    coherent = with_option(
        with_option(odessa, "made_lowers_mountain", "false"), "made_game", "mountain_first"
    )
    assert coherent.made_game.value == "mountain_first"
    assert rules_for("odessa", 3, {"made_game": "mountain_first", "made_lowers_mountain": "false"})


def test_a_game_frozen_under_rules_version_1_still_reads_back() -> None:
    """§1.4: a game's rules are frozen when it starts; a version-1 snapshot held `dealer_whist`
    and `raspasy_zero=pool_then_mountain`, which now mean Odessa's own rules."""
    snapshot = {"dealer_whist": "true", "raspasy_zero": "pool_then_mountain", "raspasy_cap": "0"}
    rules = stored_rules("odessa", 4, snapshot)
    assert rules.raspasy_zero.value == "pool_price"
    assert rules.raspasy_cap == 0  # frozen as it was
    assert rules.close_mountain_bonus == 60


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_option_has_its_meaning_in_every_language(lang: str) -> None:
    """The option texts live in `locales/` (the engine holds no user text): one line for each
    §2.1 option in `[options]`, and none for an option that does not exist."""
    meanings = catalog.load(lang)["options"]
    assert sorted(meanings) == sorted(OPTION_NAMES)
    assert all(isinstance(text, str) and text.strip() for text in meanings.values())
