"""Texts: every code and reason has a text in every language; Russian plurals; number formats."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core import GAME_ERROR_CODES
from bot.texts.i18n import LANGUAGES, load, translator
from locales import catalog, numbers
from scoring.errors import ERROR_CODES
from scoring.sheet import Entry, Reason


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_error_code_has_a_text_in_every_language(lang: str) -> None:
    messages = load(lang)
    missing = sorted(c for c in ERROR_CODES | GAME_ERROR_CODES if f"error-{c}" not in messages)
    assert missing == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_reason_of_an_entry_has_a_text_in_every_language(lang: str) -> None:
    messages = load(lang)
    assert sorted(r.value for r in Reason if f"reason-{r.value}" not in messages) == []


def test_both_languages_have_the_same_keys() -> None:
    ru, en = load("ru"), load("en")
    assert set(ru) ^ set(en) == set()
    assert set(ru["plural"]) == set(en["plural"])


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (1, "1 вист"),
        (2, "2 виста"),
        (4, "4 виста"),
        (5, "5 вистов"),
        (11, "11 вистов"),
        (12, "12 вистов"),
        (21, "21 вист"),
        (22, "22 виста"),
        (111, "111 вистов"),
        (Fraction(5, 2), "2,5 виста"),
        (0, "0 вистов"),
    ],
)
def test_russian_plural_forms_of_whists(count: int | Fraction, shown: str) -> None:
    assert translator("ru").count(count, "whist") == shown


def test_english_plural_forms_of_whists() -> None:
    t = translator("en")
    assert [t.count(n, "whist") for n in (1, 2, Fraction(3, 2))] == [
        "1 whist",
        "2 whists",
        "1.5 whists",
    ]


def test_whists_show_at_most_one_decimal_with_a_real_minus() -> None:
    t = translator("en")
    assert t.number(Fraction(110, 3), signed=True) == "+36.7"
    assert t.number(Fraction(-4)) == "−4"
    assert t.number(Fraction(1, 40)) == "0"
    assert t.number(Fraction(-1, 20), signed=True) == "−0.1"
    assert translator("ru").number(Fraction(25, 2)) == "12,5"


def test_money_shows_two_decimals() -> None:
    assert translator("en").money(Decimal("1.5"), signed=True) == "+1.50"
    assert translator("ru").money(Decimal("-0.4")) == "−0,40"


def test_parameters_are_escaped_for_telegram_html() -> None:
    t = translator("en")
    assert "&lt;b&gt;" in t("joined", name="<b>", count=1, seats=3)


ALLOWED_TAGS = {"b", "i", "u", "s", "code", "pre"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_is_telegram_html_with_balanced_tags(lang: str) -> None:
    from html.parser import HTMLParser

    class Check(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.open: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            assert tag in ALLOWED_TAGS, tag
            self.open.append(tag)

        def handle_endtag(self, tag: str) -> None:
            assert self.open and self.open.pop() == tag, tag

    t = translator(lang)
    for key, value in load(lang).items():
        if isinstance(value, str):
            check = Check()
            check.feed(t(key, name="<x>", span="a&b"))
            check.close()
            assert check.open == [], key


def _fields(template: str) -> set[str]:
    import string

    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize(
    "table",
    [
        "sheet",
        "cli.messages",
        "cli.expected",
        "cli.failures",
        *(f"cli.problems.{code}" for code in catalog.keys("en", "cli.problems")),
    ],
)
def test_the_pictures_and_the_command_lines_texts_have_the_same_fields_in_both_languages(
    table: str,
) -> None:
    """Issue 10: one catalogue; every text of the picture and the CLI exists in ru and en alike."""
    ru, en = (catalog.load(lang) for lang in ("ru", "en"))
    ru_texts, en_texts = (catalog.find(messages, table) for messages in (ru, en))
    assert set(ru_texts) == set(en_texts)
    assert {k: _fields(v) for k, v in ru_texts.items()} == {
        k: _fields(v) for k, v in en_texts.items()
    }


def test_a_russian_number_uses_a_comma_everywhere_and_an_unknown_language_a_point() -> None:
    assert numbers.decimal(Fraction(1, 10), "ru") == "0,1"
    assert numbers.decimal(Fraction(277, 50), "ru", signed=True, places=2) == "+5,54"
    assert numbers.decimal(Fraction(277, 50), "en", signed=True, places=2) == "+5.54"
    assert numbers.format_amount(Fraction(1, 10), decimals=True, lang="ru-RU") == "0,1"
    assert numbers.format_amount(Fraction(110, 3), sign=True, lang="ru") == "+36⅔"
    assert numbers.decimal(Fraction(-5, 2), "de", minus="-") == "-2.5"
    assert catalog.lookup("de", "sheet.pool") == "Pool"


@pytest.mark.parametrize(
    ("lang", "shown"), [("ru", "помощь от игрока Sasha"), ("en", "help from Sasha")]
)
def test_a_help_entry_says_who_helped(lang: str, shown: str) -> None:
    """Issue 9: the help entry is written on the player who receives help, so its reason says who
    helped («помощь от Саши» / "help from Sasha"), not «помощь закрытой пуле»."""
    from bot.texts.views import entry_text
    from scoring.deal import Column

    entry = Entry(1, Column.POOL, Fraction(2), Reason.HELP, source=0)
    assert shown in entry_text(translator(lang), ("Sasha", "Boris", "Clara"), entry)


@settings(max_examples=300, deadline=None)
@given(st.fractions(max_denominator=400), st.integers(0, 3), st.sampled_from(("ru", "en")))
def test_decimal_rounds_half_away_from_zero_like_the_exact_formula(
    value: Fraction, places: int, lang: str
) -> None:
    """`numbers.decimal` works in integers (issue 12); it must say what the Fraction formula says."""
    scale = 10**places
    units = math.floor(abs(value) * scale + Fraction(1, 2))
    whole, part = divmod(units, scale)
    text = str(whole) if not part else f"{whole}.{part:0{places}d}".rstrip("0")
    text = text.replace(".", numbers.decimal_mark(lang))
    if units and value < 0:
        text = numbers.MINUS_SIGN + text
    assert numbers.decimal(value, lang, places=places) == (text if units else "0")
    whole_number = value.numerator
    assert numbers.decimal(whole_number, lang) == numbers.decimal(Fraction(whole_number), lang)
