"""Protocol files: a whole game as text (spec/notation.md "Protocol file")."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Final, cast

from scoring.deal import Adjust, LastRound, Record, RuleChange
from scoring.errors import ProtocolError, ScoringError
from scoring.notation import SEATS, Table, format_record, parse_record, resolve_player
from scoring.notation_words import NAME_FORBIDDEN, norm
from scoring.rules import canonical_convention, parse_option, rules_for
from scoring.sheet import Game

HEADER_EXAMPLE: Final = "# convention: sochi\n# players: Anna Boris Clara\n# pool: 10"
_HEADER_RE: Final = re.compile(r"#\s*(?P<key>[A-Za-z_-]+)\s*:\s*(?P<value>.*)")
_KEYS: Final = frozenset({"convention", "players", "pool", "stake", "dealer", "option"})
# settlement.md "Input strictness": the stake is a decimal number ≥ 0 (`0.5`, never `1/2`).
_STAKE_RE: Final = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")
_STAKE_PLACES: Final = 9
_POOL: Final = "pool_target"


@dataclass(frozen=True, slots=True)
class Protocol:
    convention: str
    players: tuple[str, ...]
    pool: int | None
    stake: Fraction | None
    dealer: int = 0  # the first dealer's seat
    options: dict[str, str] = field(default_factory=dict)  # raw `name=value`, already checked
    records: tuple[tuple[int, Record], ...] = ()

    def game(self) -> Game:
        pool = {} if self.pool is None else {_POOL: str(self.pool)}  # the `# pool:` header
        rules = rules_for(self.convention, len(self.players), {**self.options, **pool})
        return Game(rules, self.players, self.dealer, self.stake)


def _bad_header(line: int, span: str, problem: str, code: str = "bad-header") -> ProtocolError:
    return ProtocolError(code, span, {"problem": problem}, HEADER_EXAMPLE, line)


def _check_names(names: tuple[str, ...], line: int) -> tuple[str, ...]:
    """3 or 4 different names a deal line can name: one word each, none of `: / = " , ;`."""
    if len(names) not in (3, 4):
        raise _bad_header(line, " ".join(names), "count", "bad-players")
    folded = [name.casefold() for name in names]
    for i, name in enumerate(names):
        if name[:1] in ("", "@") or any(c.isspace() or c in NAME_FORBIDDEN for c in name):
            raise _bad_header(line, name, "not-a-name", "bad-players")
        if folded[i] in folded[:i]:
            raise _bad_header(line, name, "same-name", "bad-players")
    return names


def stake_text(stake: Fraction) -> str:
    """A stake as a protocol file and every export write it: a decimal (`0.5`, never `1/2`)."""
    exact = (p for p in range(_STAKE_PLACES) if (stake * 10**p).denominator == 1)
    places = next(exact, _STAKE_PLACES)  # rounded beyond nine places
    digits = str(round(stake * 10**places)).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}" if places else digits


@contextmanager
def _at_line(line: int) -> Iterator[None]:
    """A rules error raised inside, placed at this line of the file."""
    try:
        yield
    except ScoringError as error:
        raise ProtocolError.at(line, error) from None


@dataclass(slots=True)
class _Header:
    """The header lines read so far, each as (line, value): by key, and options by name."""

    fields: dict[str, tuple[int, str]] = field(default_factory=dict)
    options: dict[str, tuple[int, str]] = field(default_factory=dict)

    def read(self, line: int, key: str, value: str) -> None:
        if key == "option":
            name, equals, raw = value.partition("=")
            name, raw = name.strip(), raw.strip()  # names exactly as §2.1 writes them
            if not equals or not name:
                raise _bad_header(line, value, "option")
            if name in self.options or (name == _POOL and "pool" in self.fields):
                raise _bad_header(line, value, "repeated")
            with _at_line(line):
                parse_option(name, raw)
            self.options[name] = (line, raw)
        elif key in self.fields or (key == "pool" and _POOL in self.options):
            raise _bad_header(line, value, "repeated")
        else:
            self.fields[key] = (line, value)

    def protocol(self) -> Protocol:
        if "convention" not in self.fields:
            raise _bad_header(0, "", "no-convention")
        if "players" not in self.fields:
            raise _bad_header(0, "", "missing", "bad-players")
        line, value = self.fields["convention"]
        with _at_line(line):
            convention = canonical_convention(value)
        line, value = self.fields["players"]
        players = _check_names(tuple(value.split()), line)
        options = {name: raw for name, (_, raw) in self.options.items() if name != _POOL}
        pool: int | None = None
        if (pool_entry := self.fields.get("pool") or self.options.get(_POOL)) is not None:
            with _at_line(pool_entry[0]):
                pool = cast(int, parse_option(_POOL, pool_entry[1]))
        stake: Fraction | None = None
        if "stake" in self.fields:
            line, value = self.fields["stake"]
            if not _STAKE_RE.fullmatch(value):
                raise _bad_header(line, value, "stake")
            stake = Fraction(value)
        dealer = 0
        if "dealer" in self.fields:
            line, value = self.fields["dealer"]
            with _at_line(line):
                dealer = resolve_player(value, Table(players))
        return Protocol(convention, players, pool, stake, dealer, options)


def parse_protocol(text: str) -> Protocol:
    """Read a protocol file; raises ProtocolError with the line at fault."""
    header = _Header()
    protocol: Protocol | None = None
    records: list[tuple[int, Record]] = []
    dealer = 0
    tables: list[Table] = []  # one per dealer's seat, made once the players are known
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            match = _HEADER_RE.fullmatch(line) if protocol is None else None
            if match and match["key"].lower() in _KEYS:
                header.read(number, match["key"].lower(), match["value"])
            continue
        if protocol is None:
            protocol = header.protocol()
            dealer = protocol.dealer
            tables = [
                Table(protocol.players, dealer=seat) for seat in range(len(protocol.players))
            ]
        with _at_line(number):
            record = parse_record(line, tables[dealer])
        records.append((number, record))
        if not isinstance(record, Adjust | LastRound | RuleChange):
            this = record.extras.dealer if record.extras.dealer is not None else dealer
            dealer = (this + 1) % len(protocol.players)
    protocol = replace(protocol or header.protocol(), records=tuple(records))
    try:
        protocol.game()
    except ScoringError as error:  # options that do not go together: the later one's line
        names = (error.params.get("option"), error.params.get("other"))
        lines = [header.options[n][0] for n in names if n in header.options]
        raise ProtocolError.at(max(lines, default=0), error) from None
    return protocol


def format_protocol(
    game: Game, records: Sequence[Record], comments: Mapping[int, Sequence[str]] | None = None
) -> str:
    """A protocol file that `parse_protocol` reads back to this game and these records."""
    players = _check_names(game.players, 0)
    first = players[game.first_dealer]  # written by name when the name alone names the seat
    named = Table(players).refs.get(norm(first)) == (game.first_dealer,)
    lines = [
        f"# convention: {game.rules.convention}",
        f"# players: {' '.join(players)}",
        f"# pool: {game.rules.pool_target}",
    ]
    if game.stake is not None:
        lines.append(f"# stake: {stake_text(game.stake)}")
    lines.append(f"# dealer: {first if named else SEATS[game.first_dealer]}")
    overrides = game.rules.overrides(len(players)).items()
    lines += [f"# option: {name}={value}" for name, value in overrides if name != _POOL]
    for index, record in enumerate(records):
        lines.append(format_record(record, players))
        for comment in (comments or {}).get(index, ()):
            lines.extend(f"# {part}".rstrip() for part in comment.splitlines() or [""])
    return "\n".join(lines) + "\n"
