"""The canonical line of a record (spec/notation.md "Canonical form")."""

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from scoring.deal import Adjust, Column, Contract, Misere, Raspasy, Record, Role, RuleChange, Suit
from scoring.notation_words import BEZ, LEVEL_RE, NAME_FORBIDDEN, RESERVED, SEATS, Table, norm

_RUSSIAN_ROLES: Final = {Role.WHIST: "вист", Role.PASS: "пас", Role.HALF: "пол"}  # English: values
_WORDS: Final = {
    "en": dict(
        misere="misere", raspasy="pass", three_down="three_down", open="open", closed="closed"
    ),
    "ru": dict(misere="мизер", raspasy="рас", three_down="уход", open="светлую", closed="тёмную"),
}


@lru_cache(maxsize=64)
def name_tokens(players: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """How each seat is printed: (as a word of its own, inside `role:NAME` or `NAME/N`)."""
    refs = Table(players).refs
    bare: list[str] = []
    inner: list[str] = []
    for seat, name in enumerate(players):
        letter = SEATS[seat]
        key = norm(name)
        usable = (
            refs.get(key) == (seat,)  # the name alone names this seat
            and not any(c.isspace() or c in NAME_FORBIDDEN for c in name + key)
            and not key.startswith("@")
        )
        word = usable and not (
            not any(c.isalpha() for c in key)
            or key in RESERVED
            or key[:1].isdigit()
            or key[:1] in "+-=/"
            or key.startswith(BEZ)
            or LEVEL_RE.fullmatch(key) is not None
        )
        inner.append(name if usable else letter)
        bare.append(name if word else letter)
    return tuple(bare), tuple(inner)


def _note_text(note: str) -> str:
    """`note:"…"` with its quotes and backslashes escaped; nothing for no note."""
    escaped = note.replace("\\", "\\\\").replace('"', '\\"')
    return f'note:"{escaped}"' if note else ""


def format_record(record: Record, players: Sequence[str], *, lang: str = "en") -> str:
    """The canonical line (`lang="ru"`: Russian words); it parses back to the same record."""
    if lang not in _WORDS:  # the languages a line is printed in
        raise ValueError(f"unknown language {lang!r}")
    bare, inner = name_tokens(tuple(players))
    words = _WORDS[lang]
    parts: list[str]
    if isinstance(record, Contract):
        # no-trump is `бк` in Russian (notation.md: `nt`/`бк`)
        ru_nt = lang == "ru" and record.suit is Suit.NO_TRUMP
        suit = "бк" if ru_nt else "" if record.suit is None else record.suit.value
        result = "=" if record.result == 0 else f"{record.result:+d}"
        parts = [bare[record.declarer], f"{record.level}{suit}", result]
        for d in record.defenders:
            role = _RUSSIAN_ROLES[d.role] if lang == "ru" else d.role.value
            tricks = "" if d.tricks is None else f"/{d.tricks}"
            parts.append(f"{role}:{inner[d.player]}{tricks}")
        parts.append(words["three_down"] if record.three_down else "")
    elif isinstance(record, Misere):
        parts = [bare[record.declarer], words["misere"], str(record.tricks)]
    elif isinstance(record, Raspasy):
        parts = [words["raspasy"], *(f"{inner[p]}/{t}" for p, t in record.tricks)]
    elif isinstance(record, Adjust):
        column = record.column.value
        if record.column is Column.WHISTS and record.target is not None:
            column = f"whists:{inner[record.target]}"
        amount = f"+{record.amount}" if record.amount > 0 else str(record.amount)
        parts = ["adjust", inner[record.player], column, amount, _note_text(record.note)]
    elif isinstance(record, RuleChange):
        parts = ["option", f"{record.option}={record.value}"]
    else:
        parts = ["last-round"]
    if isinstance(record, Contract | Misere | Raspasy):
        extras = record.extras
        parts += [
            "" if extras.dealer is None else f"dealer:{inner[extras.dealer]}",
            f"prikup:{extras.prikup}" if extras.prikup else "",
            "" if extras.open is None else words["open" if extras.open else "closed"],
            _note_text(extras.note),
            "late" if extras.late else "",
        ]
    return " ".join(part for part in parts if part)
