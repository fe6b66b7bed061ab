"""`/calc`: a paper sheet's totals as one message (settlement.md "Input for a paper sheet")."""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from scoring.errors import OptionError, ScoringError
from scoring.paper import PaperSheet
from scoring.rules import ALIASES, PRESETS, canonical_convention, rules_for
from scoring.sheet import Totals

# Examples in the words the user wrote (Cyrillic anywhere in the message: Russian).
_SHEET: Final = {
    "en": (
        "/calc sochi pool 10 stake 0.1\n"
        "Anna pool 10 mountain 14 whists Boris 30 Clara 16\n"
        "Boris pool 10 mountain 20 whists Anna 10 Clara 24\n"
        "Clara pool 6 mountain 4 whists Anna 40 Boris 8"
    ),
    "ru": (
        "/calc сочи пуля 10 ставка 0,1\n"
        "Анна пуля 10 гора 14 висты Борис 30 Клара 16\n"
        "Борис пуля 10 гора 20 висты Анна 10 Клара 24\n"
        "Клара пуля 6 гора 4 висты Анна 40 Борис 8"
    ),
}
_CYRILLIC: Final = re.compile(r"[а-яё]", re.IGNORECASE)

# The words of a line, English and Russian, to the column they name.
WORDS: Final[Mapping[str, str]] = {
    **dict.fromkeys(("pool", "пуля", "пулька"), "pool"),
    **dict.fromkeys(("mountain", "гора"), "mountain"),
    **dict.fromkeys(("whists", "whist", "висты", "вист"), "whists"),
    **dict.fromkeys(("stake", "ставка"), "stake"),
}
# Hand-written amounts: at most 12 digits before the point and 6 after, or a fraction p/q.
_AMOUNT: Final = re.compile(r"-?\d{1,12}(?:[.,]\d{1,6})?|-?\d{1,12}/[1-9]\d{0,11}")
_STAKE: Final = re.compile(r"\d{1,12}(?:[.,]\d{1,6})?")
_TARGET: Final = re.compile(r"\d{1,4}")
_NAME: Final = re.compile(r"@?[^\W\d_][\w.\-']{0,31}")
_COMMAND: Final = re.compile(r"\A/calc(?:@\w+)?(?=\s|$)", re.IGNORECASE)
_SPAN: Final = 60  # longest quoted input in an error
# A separator between words: `;`, `:`, or a comma not between two digits (`36,5` is a number).
_SEPARATOR: Final = re.compile(r"[;:]|,(?!\d)|(?<!\d),")
_DASHES: Final = frozenset({"-", "–", "—"})
# Words before a whists pair's name that say nothing more: «висты на Борю 30 и на Вову 20».
_LINKING: Final = frozenset({"на", "и", "on", "and"})


class CalcError(ScoringError):
    """A `/calc` message that cannot be settled."""


@dataclass(frozen=True, slots=True)
class PlayerLine:
    """One player's line: pool (None = closed at the target), mountain, whists on others by name."""

    name: str
    pool: Fraction | None = None
    mountain: Fraction = Fraction(0)
    whists: tuple[tuple[str, Fraction], ...] = ()


def parse_calc(text: str) -> PaperSheet:
    """The sheet of a `/calc` message (the command itself may be left out); raises CalcError."""
    lang = "ru" if _CYRILLIC.search(text) else "en"
    lines = text.strip().split("\n")
    convention, overrides, stake = parse_header(_COMMAND.sub("", lines[0].strip(), count=1), lang)
    rows = [(number, raw.strip()) for number, raw in enumerate(lines[1:], 2) if raw.strip()]
    names = read_names([(split_words(raw) or [""])[0] for _, raw in rows], rows, lang)
    players = [
        parse_player_line(raw, names, line=number, name=name, lang=lang)
        for (number, raw), name in zip(rows, names, strict=True)
    ]
    return build_sheet(convention, overrides, stake, players)


def parse_header(text: str, lang: str) -> tuple[str, dict[str, str], Fraction | None]:
    """`sochi pool 10 stake 0.1 whist_split=gentleman` in any order; every part optional."""
    text = text.strip()
    example = _SHEET[lang].split("\n")[0]
    convention: str | None = None
    overrides: dict[str, str] = {}
    stake: dict[str, str] = {}  # its own, so that `stake=…` stays an unknown option
    words = iter(split_words(text))
    for word in words:
        column = WORDS.get(word.casefold())
        if "=" in word or column in ("pool", "stake"):
            name, eq, value = word.partition("=")
            found = overrides if eq or column == "pool" else stake
            key = name.strip().lower() if eq else "pool_target" if column == "pool" else "stake"
            if key in found:
                raise _error("calc-repeated", word, {}, example, 1, text)
            if not eq:
                if not (value := next(words, "")):
                    raise _error("calc-missing-number", word, {}, example, 1, text)
                number = _TARGET if column == "pool" else _STAKE
                if number.fullmatch(value) is None or Fraction(value.replace(",", ".")) == 0:
                    raise _error("calc-bad-number", value, {}, example, 1, text)
            found[key] = value
        elif convention is None and ALIASES.get(word.lower(), word.lower()) in PRESETS:
            convention = canonical_convention(word)
        else:
            raise _error("calc-unknown-word", word, {}, example, 1, text)
    convention = convention or "sochi"
    try:
        rules_for(convention, 3, overrides)
    except OptionError as error:
        raise CalcError(error.code, error.span, error.params, example, 1, text) from None
    amount = stake.get("stake")
    return convention, overrides, None if amount is None else Fraction(amount.replace(",", "."))


def read_names(
    words: Sequence[str], rows: Sequence[tuple[int, str]] = (), lang: str = "en"
) -> tuple[str, ...]:
    """The players' names in seat order: 3 or 4 different names (case-insensitive)."""
    sheet = _SHEET.get(lang, _SHEET["en"])
    names: list[str] = []
    for k, word in enumerate(words):
        line, text = rows[k] if k < len(rows) else (0, " ".join(words))
        if k == 4:
            raise _error("calc-player-count", word, {"count": str(len(words))}, sheet, line, text)
        name = word.rstrip(":")
        if _NAME.fullmatch(name) is None or name.casefold() in WORDS:
            raise _error("calc-bad-name", word, {}, line_example(name, (), lang), line, text)
        if name.casefold() in (n.casefold() for n in names):
            raise _error("calc-same-name", name, {}, sheet, line, text)
        names.append(name)
    if len(names) < 3:  # (every line gave a name: none is left to quote)
        count = {"count": str(len(names))}
        raise _error("calc-player-count", "", count, sheet, 0, " ".join(words))
    return tuple(names)


def parse_player_line(
    text: str, names: Sequence[str], name: str, line: int = 0, lang: str = "en"
) -> PlayerLine:
    """`Anna pool 10 mountain 14 whists Boris 30`, `name`'s line: his name may be left out."""
    all_words = split_words(text)
    if all_words and all_words[0].rstrip(":").casefold() == name.casefold():
        all_words = all_words[1:]
    example = line_example(name, names, lang)
    columns: dict[str, Fraction] = {}
    whists: dict[str, Fraction] = {}
    column: str | None = None  # the column the words now fill
    words = iter(all_words)
    for word in words:
        found = WORDS.get(word.casefold())
        if found in columns:
            raise _error("calc-repeated", word, {}, example, line, text)
        if found == "whists":
            columns["whists"] = Fraction(0)
            column = "whists"
            continue
        if found in ("pool", "mountain"):
            column = None
        elif column != "whists":
            raise _error("calc-unknown-word", word, {}, example, line, text)
        elif word.casefold() in _LINKING:
            continue
        else:
            if not (target := find_name(word, names) or ""):
                params = {"players": ", ".join(names)}
                raise _error("calc-unknown-name", word, params, example, line, text)
            if target.casefold() == name.casefold():
                raise _error("calc-whists-self", word, {}, example, line, text)
            if target in whists:
                raise _error("calc-repeated", word, {}, example, line, text)
        amount = next(words, "")
        if not amount or amount.casefold() in WORDS:
            raise _error("calc-missing-number", word, {}, example, line, text)
        if _AMOUNT.fullmatch(amount) is None:
            raise _error("calc-bad-number", amount, {}, example, line, text)
        value = Fraction(amount.replace(",", "."))
        if found != "mountain" and value < 0:
            raise _error("calc-negative", amount, {}, example, line, text)
        if found is None:
            whists[target] = value
        else:
            columns[found] = value
    return PlayerLine(
        name, columns.get("pool"), columns.get("mountain", Fraction(0)), tuple(whists.items())
    )


def line_example(name: str, names: Sequence[str], lang: str = "en") -> str:
    """A correct line for this player, whisting on the others, in the user's words."""
    lines = [line.split() for line in _SHEET.get(lang, _SHEET["en"]).split("\n")[1:]]
    name = name if _NAME.fullmatch(name) else lines[0][0]
    others = [n for n in names if n.casefold() != name.casefold()]
    others = others or [w[0] for w in lines if w[0].casefold() != name.casefold()][:2]
    pairs = [f"{other} {amount}" for other, amount in zip(others, (30, 16, 8), strict=False)]
    return " ".join([name, *lines[0][1:6], *pairs])


def build_sheet(
    convention: str,
    overrides: Mapping[str, str],
    stake: Fraction | None,
    players: Sequence[PlayerLine],
) -> PaperSheet:
    """The sheet the engine settles from a read header and the players' lines (names checked)."""
    names = tuple(p.name for p in players)
    try:
        rules = rules_for(convention, len(names), overrides)
    except OptionError as error:
        example = _SHEET["en"].split("\n")[0]
        raise CalcError(error.code, error.span, error.params, example, 1) from None
    totals = Totals(
        pool=tuple(Fraction(rules.pool_target) if p.pool is None else p.pool for p in players),
        mountain=tuple(p.mountain for p in players),
        whists=tuple(tuple(dict(p.whists).get(o, Fraction(0)) for o in names) for p in players),
    )
    return PaperSheet(rules, names, totals, stake)


def split_words(text: str) -> list[str]:
    """The words of a line: `,` `;` `:` only separate (not a decimal comma), lone dashes go."""
    return [w for w in _SEPARATOR.sub(" ", text).split() if w not in _DASHES]


def find_name(word: str, names: Sequence[str]) -> str | None:
    """The player `word` names, exactly or as a Russian case form (`Борю` → Боря); else None."""
    key = word.casefold()
    exact = [n for n in names if n.casefold() == key]
    if exact:
        return exact[0]
    declined = [n for n in names if _is_case_form(key, n.casefold())]
    return declined[0] if len(declined) == 1 else None


def _is_case_form(word: str, name: str) -> bool:
    if not _CYRILLIC.search(name) or len(name) < 3:
        return False
    if name[-1] in "ая":  # Боря, Анна: Борю, Бори, Боре, Борей, Аннe, Анну, Анной
        stem, endings = name[:-1], {"у", "ю", "ы", "и", "е", "ой", "ей", "ою", "ею"}
    elif name[-1] in "йь":  # Андрей, Игорь: Андрея, Игорю, Игорем
        stem, endings = name[:-1], {"я", "ю", "е", "ем", "ём", "и"}
    else:  # Борис, Олег: Бориса, Борису, Борисом, Борисе
        stem, endings = name, {"а", "у", "е", "ом", "ым"}
    return word.startswith(stem) and word[len(stem) :] in endings


def _error(
    code: str, span: str, params: Mapping[str, str], example: str, line: int, text: str
) -> CalcError:
    span, text = (part if len(part) <= _SPAN else part[: _SPAN - 1] + "…" for part in (span, text))
    return CalcError(code, span, params, example, line, text)
