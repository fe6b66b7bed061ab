"""The deal notation and protocol files: read what players type, print it (spec/notation.md)."""

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Final, cast

from scoring.deal import TRICKS, Adjust, Column, LastRound, Misere, Raspasy, Record, RuleChange
from scoring.errors import InvalidDeal, OptionError, ProtocolError, ScoringError
from scoring.notation_line import MISERE_EXTRAS, RASPASY_EXTRAS, Line, example
from scoring.notation_words import COLUMNS, MISERE, NAME_FORBIDDEN, norm, resolve
from scoring.notation_words import SEATS as SEATS
from scoring.notation_words import Table as Table
from scoring.rules import canonical_convention, format_option, parse_option, rules_for
from scoring.sheet import Game


def resolve_player(ref: str, table: Table) -> int:
    """The seat a player reference names (notation.md "Players"); raises NotationError."""
    return resolve(norm(ref), table, ref, lambda: example("contract", table))


def format_record(record: Record, players: Sequence[str], *, lang: str = "en") -> str:
    """The canonical line of a record (scoring/notation_print.py, loaded on first use)."""
    from scoring.notation_print import format_record as printed

    return printed(record, players, lang=lang)


_AMOUNT_RE: Final = re.compile(r"[+-]?[0-9]{1,9}(?:/[0-9]{1,9}|\.[0-9]{1,9})?")


class _Reader(Line):
    """A line read as one kind of record (scoring/notation_line.py has the shared pieces)."""

    __slots__ = ()

    def record(self) -> Record:
        opens = self.words[0].opens
        if opens == "last-round":
            if len(self.words) > 1:
                self.fail("unknown-word", self.words[1].raw, "last-round")
            return LastRound()
        if opens == "adjust":
            return self.adjust()
        if opens == "raspasy":
            return self.raspasy(0)
        if any(word.key in MISERE for word in self.words):
            return self.misere()
        openers = [at for at, word in enumerate(self.words) if word.opens == "raspasy"]
        # one raspasy word among players' tricks, numbers and extras is a raspasy ("Word order")
        if len(openers) == 1 and all(
            at == openers[0]
            or word.extra is not None
            or word.number is not None
            or (word.pair_tricks is not None and ":" not in word.key)
            for at, word in enumerate(self.words)
        ):
            return self.raspasy(openers[0])
        return self.contract()

    def misere(self) -> Misere:
        declarer: int | None = None
        declarer_at = word_at = tricks_at = -1
        tricks = i = 0
        while i < len(self.words):
            word, used = self.words[i], 1
            if word.key in MISERE:
                if word_at >= 0:
                    self.fail("repeated-word", word.raw, "misere")
                word_at = i
            elif (n := word.misere_tricks) is not None or (n := self.bez_at(i)) is not None:
                used = 1 if word.misere_tricks is not None else 2
                if not 0 <= n <= TRICKS:  # `+N` is negative
                    self.fail("bad-misere-tricks", self.span(i, i + used - 1), "misere")
                if tricks_at >= 0:
                    self.fail("repeated-word", self.span(i, i + used - 1), "misere")
                tricks, tricks_at = n, i
            elif not self.extra(i, MISERE_EXTRAS, "misere"):
                seat = self.bare_player(i, "misere")
                if declarer_at >= 0:
                    self.fail("repeated-word", word.raw, "misere")
                declarer, declarer_at = seat, i
            i += used
        if declarer is None:
            self.fail("missing-declarer", self.whole(), "misere")
        if self.size == 4 and declarer == self.dealer:
            self.dealer_in_play(self.words[declarer_at].raw, "misere")
        return Misere(declarer, tricks, self.draft.freeze())

    def raspasy(self, opener: int) -> Raspasy:
        """All passed: the active players' tricks; `opener` is where the raspasy word stands."""
        named: dict[int, tuple[int, int]] = {}  # player → (tricks, word index)
        bare: list[int] = []  # tricks of the active players in seat order
        given: list[int] = []  # the words that give tricks
        for i, word in enumerate(self.words):
            if i == opener or self.extra(i, RASPASY_EXTRAS, "raspasy"):
                continue
            given.append(i)
            if word.number is not None:
                if named:
                    self.fail("unknown-word", word.raw, "raspasy")
                if word.number > TRICKS:
                    self.fail("bad-tricks", word.raw, "raspasy")
                bare.append(word.number)
                continue
            if word.pair_tricks is None or bare or ":" in word.key:
                self.fail("unknown-word", word.raw, "raspasy")
            player = self.player(word.pair, i)
            if word.pair_tricks < 0:
                self.fail("bad-tricks", word.raw, "raspasy")
            if player in named:
                self.fail("same-player-twice", word.raw, "raspasy")
            named[player] = (word.pair_tricks, i)
        active = self.table.active(self.dealer)
        if bare:
            if active is None:
                self.fail("missing-dealer", self.entries(given), "raspasy")
            if len(bare) != len(active):
                params = {"expected": str(len(active))}
                self.fail("bad-tricks", self.entries(given), "raspasy", params)
            pairs = list(zip(active, bare, strict=True))
        else:
            if len(named) != 3:
                self.fail("bad-tricks", self.entries(given), "raspasy", {"expected": "3"})
            for player, (_, at) in named.items():
                if active is not None and player not in active:
                    self.dealer_in_play(self.words[at].raw, "raspasy")
            pairs = sorted((p, t) for p, (t, _) in named.items())
        if sum(t for _, t in pairs) != TRICKS:
            self.fail("tricks-not-ten", self.entries(given), "raspasy")
        return Raspasy(tuple(pairs), self.draft.freeze())

    def entries(self, given: list[int]) -> str:
        """The span of a raspasy line's tricks (the whole line when it gives none)."""
        return self.span(*given) if given else self.whole()

    def adjust(self) -> Adjust:
        line = self.words
        if len(line) < 2:
            self.fail("bad-adjust", self.whole(), "adjust")
        player = self.player(line[1].raw, 1)
        column: Column | None = None
        target: int | None = None
        amount: Fraction | None = None
        note: str | None = None
        kind = "adjust"
        for i, word in enumerate(line[2:], 2):
            key, head = word.key, word.head
            if key in COLUMNS or head == "whists":
                if column is not None:
                    self.fail("repeated-word", word.raw, kind)
                if head == "whists":
                    kind = "adjust-whists"
                    column = Column.WHISTS
                    target = self.player(word.after, i)
                    if target == player:
                        self.fail("bad-adjust", word.raw, kind)
                else:
                    column = COLUMNS[key]
            elif _AMOUNT_RE.fullmatch(key):
                if amount is not None:
                    self.fail("repeated-word", word.raw, kind)
                if not int(key.partition("/")[2] or 1) or not (amount := Fraction(key)):
                    self.fail("bad-adjust", word.raw, kind)
            elif head == "note":
                if note is not None:
                    self.fail("repeated-word", word.raw, kind)
                note = self.note(i, kind)
            else:
                self.fail("unknown-word", word.raw, kind)
        if column is None or amount is None:
            self.fail("bad-adjust", self.whole(), kind)
        return Adjust(player, column, amount, target, note or "")


_RULE_CHANGE_RE: Final = re.compile(
    r"\s*(?:/deal(?:@\w+)?\s+)?(?:option|правило)\s+(?P<name>[^\s=]+)=(?P<value>[^\s=]+)\s*",
    re.IGNORECASE,
)
RULE_CHANGE_EXAMPLE: Final = "option pool_target=30"


def parse_rule_change(text: str) -> RuleChange | None:
    """`option NAME=VALUE` canonical, or None for another shape; raises OptionError."""
    match = _RULE_CHANGE_RE.fullmatch(text)
    if match is None:
        return None
    try:  # `convention` is no option (OPTION_NAMES): chosen at `/newgame`, never by a rule
        value = format_option(parse_option(match["name"], match["value"]))
    except OptionError as error:
        error.example = RULE_CHANGE_EXAMPLE
        raise
    return RuleChange(match["name"], value)


def parse_record(text: str, table: Table) -> Record:
    """One record from a deal line (with or without a leading `/deal`); raises NotationError."""
    reader = _Reader(text, table)
    if not reader.words:
        raise InvalidDeal("empty-deal", text.strip(), {}, example("contract", table))
    if reader.words[0].opens == "option":
        change = parse_rule_change(text)
        if change is None:
            raise InvalidDeal("bad-option-line", text.strip(), {}, RULE_CHANGE_EXAMPLE)
        return change
    return reader.record()


# --- Protocol files: a whole game as text (spec/notation.md "Protocol file") ---------------------

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
