"""The offline command line — spec/cli.md."""

from __future__ import annotations

import io
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from math import floor
from typing import TYPE_CHECKING, Final

from scoring.errors import ScoringError

if TYPE_CHECKING:
    from scoring.replay import Standing
    from scoring.rules import Rules
    from scoring.settle import Settlement
    from scoring.sheet import Sheet, Totals

# The command line speaks English: its texts (locales/*.toml [cli]), numbers, the sheet's labels
CLI_LANG: Final = "en"
SHEET_ENTRY_POINTS: Final = "prefbot.sheet"  # where `replay --sheet` finds the picture


Renderer = Callable[..., bytes]
"""`render(sheet, lang, *, settlement=...) -> PNG bytes`: what `replay --sheet` draws with."""


class _Failure(Exception):
    """An error to report as one line: where (file, line 0 = the whole file) and what."""

    def __init__(self, where: str, line: int, problem: str | ScoringError) -> None:
        text = message(problem) if isinstance(problem, ScoringError) else problem
        super().__init__(f"{where}:{line}: {text}" if line else f"{where}: {text}")


def main(argv: Sequence[str] | None = None, *, renderer: Renderer | None = None) -> int:
    """Run one command; returns the exit status (0, or 2 after one line on standard error)."""
    for stream in (sys.stdout, sys.stderr):  # never fail on a name or a Russian word
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    words = list(sys.argv[1:] if argv is None else argv)
    args = _plain_arguments(words) or _arguments(words)
    command, path = args.command, args.file
    try:
        if command == "conventions":
            text = conventions_text()
        elif command == "settle":
            text = settle_output(_read(path), args.json)
        else:
            text = replay_output(path, _read(path), args.json, args.sheet, renderer)
        print(text, end="", flush=True)
        return 0
    except _Failure as failure:
        print(failure, file=sys.stderr)
    except ScoringError as error:  # an error the commands did not place: report it on the file
        print(_Failure(path, error.line, error), file=sys.stderr)
    except Exception as error:  # a bug; still one line, never a traceback
        print(f"{path or command}: internal error: {type(error).__name__}", file=sys.stderr)
    return 2


@dataclass(frozen=True, slots=True)
class Arguments:
    command: str
    file: str = ""
    json: bool = False
    sheet: str | None = None


def _plain_arguments(words: Sequence[str]) -> Arguments | None:
    """The common command lines without argparse (slow to import); None: argparse reads it."""
    if not words or words[0] not in ("replay", "settle"):
        return Arguments("conventions") if list(words) == ["conventions"] else None
    command, rest = words[0], iter(words[1:])
    as_json, sheet, files = False, None, []
    for word in rest:
        if word == "--json":
            as_json = True
        elif command == "replay" and sheet is None and word.startswith("--sheet="):
            sheet = word.removeprefix("--sheet=")
        elif command == "replay" and sheet is None and word == "--sheet":
            sheet = next(rest, "-")  # a missing OUT.png is argparse's error
            if sheet.startswith("-"):
                return None
        elif word.startswith("-"):
            return None
        else:
            files.append(word)
    return Arguments(command, files[0], as_json, sheet) if len(files) == 1 else None


def _arguments(words: Sequence[str]) -> Arguments:
    """The command line read by argparse: its help, its usage and its errors (exit status 2)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m scoring", description="Preferans scoring without Telegram."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a protocol file and settle it")
    replay_cmd.add_argument("file", metavar="GAME.pref")
    replay_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    replay_cmd.add_argument("--sheet", metavar="OUT.png", help="also render the sheet image")
    settle_cmd = commands.add_parser("settle", help="settle a paper sheet (JSON)")
    settle_cmd.add_argument("file", metavar="SHEET.json")
    settle_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    commands.add_parser("conventions", help="list presets and every option")
    return Arguments(**vars(parser.parse_args(words)))


def settle_output(text: str, as_json: bool) -> str:
    from scoring.paper import parse_paper_sheet
    from scoring.settle import settle

    sheet = parse_paper_sheet(text)  # its errors are placed on the file by `main`
    settlement = settle(sheet.rules, sheet.totals, sheet.stake)
    return Report(sheet.rules, sheet.players, sheet.totals, sheet.stake, settlement).text(as_json)


def replay_output(
    path: str, text: str, as_json: bool, sheet_png: str | None, renderer: Renderer | None = None
) -> str:
    from scoring.notation import parse_protocol
    from scoring.replay import replay, standing
    from scoring.settle import settle

    protocol = parse_protocol(text)  # its errors are placed on the file by `main`
    game = protocol.game()
    records = [record for _, record in protocol.records]
    try:
        # The picture needs the whole sheet; the report, only where the game stands.
        sheet = replay(game, records) if sheet_png is not None else None
        now: Sheet | Standing = sheet if sheet is not None else standing(game, records)
    except ScoringError as error:
        index = error.params.pop("record", "")
        at = int(index) if index.isdigit() else len(records)
        line = protocol.records[at][0] if at < len(records) else 0
        raise _Failure(path, line, error) from None
    settlement = settle(now.rules, now.totals, game.stake)
    if sheet_png is not None and sheet is not None:
        # The image is drawn by a renderer (Pillow), which the rules engine does not depend on.
        try:
            render = renderer if renderer is not None else find_renderer()
        except (ImportError, AttributeError) as error:
            failure = texts("failures")["no-renderer"].format(error=error)
            raise _Failure(sheet_png, 0, failure) from None
        png = render(sheet, CLI_LANG, settlement=settlement)
        try:
            with open(sheet_png, "wb") as file:
                file.write(png)
        except OSError as error:
            reason = error.strerror or type(error).__name__
            failure = texts("failures")["cannot-write"].format(error=reason)
            raise _Failure(sheet_png, 0, failure) from None
    return Report(
        now.rules, game.players, now.totals, game.stake, settlement, now.deals, now.finished
    ).text(as_json)


def find_renderer() -> Renderer:
    """The sheet renderer of entry-point group `prefbot.sheet`; ImportError when none loads."""
    from importlib.metadata import entry_points

    for point in entry_points(group=SHEET_ENTRY_POINTS):
        render: Renderer = point.load()
        return render
    raise ImportError(f"no renderer registered under {SHEET_ENTRY_POINTS!r}")


def conventions_text() -> str:
    """Every preset with its aliases, then every option with each preset's value and its meaning."""
    from locales import catalog
    from scoring.rules import ALIASES, OPTION_NAMES, PRESETS, format_option, rules_for

    lines = ["Presets (aliases):"]
    for name in PRESETS:
        aliases = [alias for alias, canonical in ALIASES.items() if canonical == name]
        lines.append(f"  {name} ({', '.join(aliases)})" if aliases else f"  {name}")
    lines += ["", "Options (the meaning under each; a/b: the value with 3 / 4 players):"]
    rows = [["option", *PRESETS]]
    for option in OPTION_NAMES:
        values = []
        for name in PRESETS:
            three, four = (format_option(getattr(rules_for(name, n), option)) for n in (3, 4))
            values.append(three if three == four else f"{three}/{four}")
        rows.append([option, *values])
    table = columns(rows, right=())
    lines.append(table[0])
    ru, en = catalog.table("ru", "options"), catalog.table("en", "options")
    for option, row in zip(OPTION_NAMES, table[1:], strict=True):
        lines += [row, f"    {ru.get(option, '')} — {en.get(option, '')}"]
    return "\n".join(lines) + "\n"


def texts(name: str) -> Mapping[str, str]:
    """`[cli.NAME]`: "messages" by error code, "problems.CODE", "expected" of a field, "failures"."""
    from locales import catalog  # loaded only for an error's message

    return catalog.table(CLI_LANG, f"cli.{name}")  # (the catalogue keeps what it read)


def message(error: ScoringError) -> str:
    """One English line for an error: its message by code (or `code: span`), then its example."""
    template = texts("messages").get(error.code)
    if template is None:
        return f"{error.code}: {error.span}"
    from scoring.paper import FIELDS  # named by a paper sheet's messages

    # the error's params and span, the paper's fields; '?' for anything missing
    fields = defaultdict(lambda: "?", {"fields": ", ".join(FIELDS), **error.params})
    fields["span"] = error.span
    problem = texts(f"problems.{error.code}").get(error.params.get("problem", ""), "?")
    fields["problem_text"] = problem.format_map(fields)
    wanted = error.params.get("expected", "")
    fields["expected_text"] = texts("expected").get(wanted, wanted or "?").format_map(fields)
    text = template.format_map(fields)
    if not error.span:
        text = text.replace(": ''", "")
    if error.example and len(error.example) <= 60 and "\n" not in error.example:
        text += f" (example: {error.example})"
    return " ".join(text.split())  # one line, whatever the input held


def _read(path: str) -> str:
    """The file's text; a missing file or bytes that are not UTF-8 are `_Failure`s."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise _Failure(path, 0, f"cannot read: {error.strerror or type(error).__name__}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise _Failure(path, line, f"not UTF-8 text (byte 0x{data[error.start]:02x})") from None


@dataclass(frozen=True, slots=True)
class Report:
    rules: Rules
    players: tuple[str, ...]
    totals: Totals
    stake: Fraction | None
    settlement: Settlement
    deals: int | None = None  # replay only
    finished: bool | None = None

    def data(self) -> dict[str, object]:
        """The JSON object of cli.md; numbers rounded to 2 decimals, whole ones as integers."""
        names, totals, settlement = self.players, self.totals, self.settlement
        data: dict[str, object] = {"convention": self.rules.convention, "players": list(names)}
        if self.deals is not None:
            data |= {"deals": self.deals, "finished": self.finished}
        data["pool"] = {n: json_number(v) for n, v in zip(names, totals.pool, strict=True)}
        data["mountain"] = {n: json_number(v) for n, v in zip(names, totals.mountain, strict=True)}
        data["whists"] = {
            writer: {on: json_number(row[j]) for j, on in enumerate(names) if j != i}
            for i, (writer, row) in enumerate(zip(names, totals.whists, strict=True))
        }
        balances = settlement.balances
        data["balances"] = {n: json_number(b) for n, b in zip(names, balances, strict=True)}
        data["balances_exact"] = {n: str(b) for n, b in zip(names, balances, strict=True)}
        if self.stake is not None and settlement.money is not None:
            data["stake"] = _decimal_text(self.stake)
            data["money"] = {n: str(m) for n, m in zip(names, settlement.money, strict=True)}
        data["transfers"] = [
            {"from": names[t.debtor], "to": names[t.creditor], "whists": json_number(t.whists)}
            | ({} if t.money is None else {"money": str(t.money)})
            for t in settlement.transfers
        ]
        return data

    def text(self, as_json: bool) -> str:
        return dump_json(self.data()) + "\n" if as_json else self.table()

    def table(self) -> str:
        names, totals, settlement = self.players, self.totals, self.settlement
        overrides = self.rules.overrides(len(names))
        overrides.pop("pool_target", None)  # said just below
        head = f"{self.rules.convention}, pool {self.rules.pool_target}"
        if overrides:
            head += "; " + " ".join(f"{k}={v}" for k, v in overrides.items())
        if self.stake is not None:
            head += f"; stake {_decimal_text(self.stake)} a whist"
        if self.deals is not None:
            deals = f"{self.deals} deal" + ("" if self.deals == 1 else "s")
            head += f"; {deals}, {'finished' if self.finished else 'not finished'}"
        rows = [["", "pool", "mountain", *(f"on {n}" for n in names)]]
        for i, name in enumerate(names):
            whists = ["-" if i == j else short_number(w) for j, w in enumerate(totals.whists[i])]
            pool, mountain = totals.pool[i], totals.mountain[i]
            rows.append([name, short_number(pool), short_number(mountain), *whists])
        lines = [head, "", *columns(rows, right=range(1, len(rows[0])))]

        exact = any(b.denominator != 1 for b in settlement.balances)
        money = settlement.money
        rows = [
            ["balance", "whists", *(["exact"] if exact else []), *(["money"] if money else [])]
        ]
        for i, (name, balance) in enumerate(zip(names, settlement.balances, strict=True)):
            fraction = ["" if balance.denominator == 1 else str(balance)] if exact else []
            owed = [] if money is None else [str(money[i])]
            rows.append([name, short_number(balance, sign=True), *fraction, *owed])
        lines += ["", *columns(rows, right=range(1, len(rows[0])))]

        lines += ["", "transfers:" if settlement.transfers else "transfers: none"]
        for t in settlement.transfers:
            paid = "" if t.money is None else f" = {t.money}"
            who = f"{names[t.debtor]} → {names[t.creditor]}"
            lines.append(f"  {who}: {short_number(t.whists)} whists{paid}")
        return "\n".join(lines) + "\n"


def json_number(value: Fraction) -> int | Decimal:
    """The exact value rounded to 2 decimals (halves away from zero); a whole number as an int."""
    magnitude = floor(abs(value) * 100 + Fraction(1, 2))
    hundredths = magnitude if value >= 0 else -magnitude
    if hundredths % 100 == 0:
        return hundredths // 100
    return Decimal(hundredths).scaleb(-2).normalize()


def short_number(value: Fraction, sign: bool = False) -> str:
    """Whole, or one decimal with an ASCII minus (settlement.md "Exactness and rounding")."""
    from locales import numbers

    return numbers.decimal(value, CLI_LANG, signed=sign, minus="-")


def dump_json(value: object) -> str:
    """JSON text with `Decimal` numbers written exactly (the standard encoder would need floats)."""
    ascii_only = (sys.stdout.encoding or "").lower().replace("-", "") != "utf8"
    if isinstance(value, Mapping):
        items = (f"{dump_json(str(k))}: {dump_json(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(dump_json(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value, ensure_ascii=ascii_only)


def _decimal_text(value: Fraction) -> str:
    """A stake as money is written: at least two decimals ("0.10"), more only when it has them."""
    if (value * 100).denominator == 1:
        return str(Decimal(int(value * 100)).scaleb(-2))
    return str(Decimal(value.numerator) / Decimal(value.denominator))


def columns(rows: Sequence[Sequence[str]], right: Sequence[int]) -> list[str]:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(widths[k]) if k in right else cell.ljust(widths[k])
            for k, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]
