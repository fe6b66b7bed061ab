"""A paper sheet typed in by hand (settlement.md "Input for a paper sheet"), and written back."""

import contextlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Final

from scoring.deal import Column
from scoring.errors import OptionError, ProtocolError
from scoring.rules import Rules, format_option, rules_for
from scoring.sheet import Band, Game, Sheet, Totals

FIELDS: Final = tuple(
    ["convention", "players", "pool_target", "pool", "mountain", "whists", "stake", "options"]
)
EXAMPLE: Final = (
    '{"convention": "sochi", "players": ["A", "B", "C"], "pool_target": 10, '
    '"pool": {"A": 10, "B": 10, "C": 6}, "mountain": {"A": 14, "B": 20, "C": 4}, '
    '"whists": {"A": {"B": 30, "C": 16}, "B": {"A": 10, "C": 24}, "C": {"A": 40, "B": 8}}, '
    '"stake": "0.10"}'
)
# Hand-written amounts: at most 12 digits before the point and 6 after, or a fraction p/q; a
# stake is a decimal ≥ 0 (`0.5`, never `1/2`).
_AMOUNT: Final = re.compile(r"\s*(?:-?\d{1,12}(\.\d{1,6})?|-?\d{1,12}/[1-9]\d{0,11})\s*")
_STAKE: Final = re.compile(r"\d{1,12}(\.\d{1,9})?")
_SPAN: Final = 40  # longest quoted input in an error
_CODE_PATHS: Final = {"bad-players": ("players",), "unknown-convention": ("convention",)}


@dataclass(frozen=True, slots=True)
class PaperSheet:
    rules: Rules
    players: tuple[str, ...]
    totals: Totals
    stake: Fraction | None  # money per whist


def _refuse_constant(name: str) -> object:
    """NaN or Infinity in the JSON: valid for Python's parser, not for us."""
    raise ProtocolError("bad-json", name, {"problem": "constant"}, EXAMPLE)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object; a key given twice is refused rather than silently taking the last value."""
    found: dict[str, object] = {}
    for key, value in pairs:
        if key in found:
            raise _bad(key, key, "once")
        found[key] = value
    return found


def parse_paper_sheet(text: str) -> PaperSheet:
    """The rules, players, totals and stake of a paper sheet in JSON; raises ProtocolError."""
    try:
        return _parse(text)
    except ProtocolError as error:
        if error.line or error.code == "bad-json":
            raise
        if "field" in error.params:
            path = tuple(error.params["field"].split("."))
        elif error.code in _CODE_PATHS:
            path = _CODE_PATHS[error.code]
        else:
            option = error.params.get("option", error.span)
            path = ("pool_target",) if option == "pool_target" else ("options", option)
        raise ProtocolError.at(line_of(text, path), error) from None


def line_of(text: str, path: Sequence[str]) -> int:
    """The 1-based line of the deepest key of `path` in the JSON text; 0 when none is there."""
    decoder = json.JSONDecoder()
    pos, found = 0, 0
    with contextlib.suppress(IndexError, ValueError):  # the text parsed: this guards the walk
        for key in path:
            pos = _skip_space(text, pos)
            if text[pos] != "{":
                return found
            pos = _skip_space(text, pos + 1)
            while text[pos] == '"':
                start = pos
                name, pos = decoder.raw_decode(text, pos)
                pos = _skip_space(text, _skip_space(text, pos) + 1)  # past the colon
                if str(name).strip().casefold() == key.strip().casefold():
                    found = text.count("\n", 0, start) + 1
                    break
                _, pos = decoder.raw_decode(text, pos)
                pos = _skip_space(text, pos)
                pos = _skip_space(text, pos + 1) if text[pos] == "," else pos
            else:
                return found
    return found


def _skip_space(text: str, pos: int) -> int:
    while text[pos] in " \t\r\n":
        pos += 1
    return pos


def _parse(text: str) -> PaperSheet:
    try:
        data: object = json.loads(
            text,
            parse_float=Decimal,
            parse_constant=_refuse_constant,
            object_pairs_hook=_unique_keys,
        )
    except ProtocolError:
        raise
    except json.JSONDecodeError as error:
        params = {"problem": "syntax", "detail": error.msg, "column": str(error.colno)}
        span = _quote(error.doc[error.pos : error.pos + 10])
        raise ProtocolError("bad-json", span, params, EXAMPLE, line=error.lineno) from None
    except RecursionError:
        raise ProtocolError("bad-json", "", {"problem": "too-deep"}, EXAMPLE) from None
    except ValueError:  # an integer longer than int() accepts
        raise ProtocolError("bad-json", "", {"problem": "too-long"}, EXAMPLE) from None
    sheet = _object(data, "sheet")
    if (unknown := next((key for key in sheet if key not in FIELDS), None)) is not None:
        raise _bad(unknown, unknown, "field")
    players = _players(sheet.get("players"))
    convention = sheet.get("convention", "sochi")
    if not isinstance(convention, str):
        raise _bad("convention", convention, "string")
    options = _object(sheet.get("options", {}), "options")
    overrides = {name: _option_text(value, f"options.{name}") for name, value in options.items()}
    if "pool_target" in sheet:
        if "pool_target" in options:
            raise _bad("pool_target", sheet["pool_target"], "once")
        overrides["pool_target"] = _option_text(sheet["pool_target"], "pool_target")
    try:
        rules = rules_for(convention, len(players), overrides)
    except OptionError as error:
        raise ProtocolError.at(0, error) from None
    pool, mountain, whists = (sheet.get(key) for key in ("pool", "mountain", "whists"))
    pools = {} if pool is None else _amounts(pool, players, "pool")
    if pool is not None and (missing := [name for name in players if name not in pools]):
        raise _bad(f"pool.{missing[0]}", missing[0], "every-player")
    mountains = _amounts({} if mountain is None else mountain, players, "mountain")
    rows = _by_player({} if whists is None else whists, players, "whists")
    matrix: list[tuple[Fraction, ...]] = []
    for writer in players:
        row = _amounts(rows.get(writer, {}), players, f"whists.{writer}")
        if writer in row:
            raise _bad(f"whists.{writer}.{writer}", writer, "another-player")
        matrix.append(tuple(row.get(target, Fraction(0)) for target in players))
    totals = Totals(
        pool=tuple(pools.get(name, Fraction(rules.pool_target)) for name in players),
        mountain=tuple(mountains.get(name, Fraction(0)) for name in players),
        whists=tuple(matrix),
    )
    given = sheet.get("stake")
    stake = None if given is None else _number(given, "stake", _STAKE, "decimal")
    return PaperSheet(rules, players, totals, stake)


def _players(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not 3 <= len(value) <= 4:
        raise ProtocolError("bad-players", _quote(value), {"problem": "count"}, EXAMPLE)
    names: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise ProtocolError("bad-players", _quote(item), {"problem": "not-a-name"}, EXAMPLE)
        name = item.strip()
        if name.casefold() in (n.casefold() for n in names):
            raise ProtocolError("bad-players", name, {"problem": "same-name"}, EXAMPLE)
        names.append(name)
    return tuple(names)


def _option_text(value: object, field: str) -> str:
    if isinstance(value, int | str | Decimal):  # (a bool is an int: `true`/`false`)
        return format_option(value)
    raise _bad(field, value, "option-value")


def _amounts(value: object, players: tuple[str, ...], field: str) -> dict[str, Fraction]:
    return {
        name: _number(raw, f"{field}.{name}", _AMOUNT, "number")
        for name, raw in _by_player(value, players, field).items()
    }


def _by_player(value: object, players: tuple[str, ...], field: str) -> dict[str, object]:
    """An object keyed by player names (case-insensitive, as typed in the players list)."""
    found: dict[str, object] = {}
    for key, item in _object(value, field).items():
        name = next((p for p in players if p.casefold() == key.strip().casefold()), None)
        if name is None:
            raise _bad(f"{field}.{key}", key, "player", {"valid": ", ".join(players)})
        if name in found:
            raise _bad(f"{field}.{key}", key, "once")
        found[name] = item
    return found


def _number(value: object, field: str, pattern: re.Pattern[str], expected: str) -> Fraction:
    """A JSON number or a string like "36.5" matching `pattern`, within sensible bounds."""
    if isinstance(value, bool) or not isinstance(value, int | Decimal | str):
        raise _bad(field, value, expected)
    text = str(value)
    if isinstance(value, Decimal) and abs(value.adjusted()) <= 12:
        text = format(value, "f")
    if pattern.fullmatch(text) is None:
        raise _bad(field, value, expected)
    return Fraction(text)


def _object(value: object, field: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise _bad(field, value, "object")
    return value


def _bad(
    field: str, value: object, expected: str, extra: Mapping[str, str] | None = None
) -> ProtocolError:
    params = {"field": field, "expected": expected, **(extra or {})}
    return ProtocolError("bad-sheet", _quote(value), params, EXAMPLE)


def _quote(value: object) -> str:
    """The faulty part of the input, as the user typed it (JSON), cut to a readable length."""
    if isinstance(value, str | int | Decimal):
        text = str(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (ValueError, RecursionError):
            text = type(value).__name__
    return text if len(text) <= _SPAN else text[: _SPAN - 1] + "…"


def as_sheet(paper: PaperSheet) -> Sheet:
    """The paper sheet as a `Sheet` with no records, each total written at index −1."""
    game = Game(paper.rules, paper.players, 0, paper.stake)
    totals = paper.totals
    history: dict[Band, tuple[tuple[int, Fraction], ...]] = {}
    for seat in range(len(paper.players)):
        history[Band(seat, Column.POOL)] = ((-1, totals.pool[seat]),)
        history[Band(seat, Column.MOUNTAIN)] = ((-1, totals.mountain[seat]),)
        for other in range(len(paper.players)):
            if other != seat and totals.whists[seat][other]:
                history[Band(seat, Column.WHISTS, other)] = ((-1, totals.whists[seat][other]),)
    target = paper.rules.pool_target
    closed = frozenset(seat for seat, pool in enumerate(totals.pool) if pool >= target)
    return Sheet(game, (), totals, history, closed_pools=closed)


def format_calc(sheet: PaperSheet) -> str:
    """The sheet as a `/calc` message that reads back to it (zero whists pairs left out)."""
    rules, names = sheet.rules, sheet.players
    head = ["/calc", rules.convention, "pool", str(rules.pool_target)]
    if sheet.stake is not None:
        head += ["stake", format_amount(sheet.stake)]
    overrides = rules.overrides(len(names))
    head += [f"{name}={value}" for name, value in overrides.items() if name != "pool_target"]
    lines = [" ".join(head)]
    totals = sheet.totals
    for seat, name in enumerate(names):
        pool, mountain = format_amount(totals.pool[seat]), format_amount(totals.mountain[seat])
        pairs = [
            f"{other} {format_amount(totals.whists[seat][k])}"
            for k, other in enumerate(names)
            if k != seat and totals.whists[seat][k]
        ]
        whists = ["whists", *pairs] if pairs else []
        lines.append(" ".join([name, "pool", pool, "mountain", mountain, *whists]))
    return "\n".join(lines)


def format_amount(value: Fraction) -> str:
    """`30`, `36.5` (at most 6 places), or `110/3` when no short decimal is exact."""
    scaled = value * 10**6
    if value.denominator == 1 or scaled.denominator != 1:
        return str(value)
    return format((Decimal(scaled.numerator) / Decimal(10**6)).normalize(), "f")
