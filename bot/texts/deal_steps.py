"""A deal by buttons: the pure step machine behind `/deal` without arguments (spec/notation.md,
"Canonical form": kind → declarer → contract → each defender's word → tricks).

A `Draft` is a partial deal at a `Seating` (who sits, who deals, the deal's number; the rules of
seating are `scoring.seating`'s). What each step may offer is the engine's (`scoring.offers`).
`step(seating, draft)` is what it asks next, `rows(seating, draft)` the buttons of that step (only
the valid answers), `press(seating, draft, value)` the draft after a press — a step with one possible
answer is filled in at once — and `record(seating, draft)` the finished deal, whose canonical line
(`notation`) goes through the same `GameService.record` as a typed `/deal`, so every rule and every
refusal stays the engine's. `step_text` and `label` put a step into the chat's language.

No aiogram and no I/O here: bot/telegram/inbound/handlers/deal_steps.py keeps the drafts in the FSM (bot/telegram/fsm.py) and
checks every press against them and the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from typing import Final

from bot.texts.i18n import Safe, Translator
from scoring import offers
from scoring.deal import Contract, Deal, Defender, Extras, Misere, Raspasy, Role, Suit
from scoring.notation import format_record
from scoring.offers import HALF_WHIST_LEVELS as HALF_LEVELS
from scoring.offers import LEVELS, SUITS
from scoring.seating import Seating

__all__ = [
    "HALF_LEVELS",
    "KINDS",
    "LEVELS",
    "NOTE_MAX",
    "ROLES",
    "SHORTCUT_WORDS",
    "SUITS",
    "BadPress",
    "Choice",
    "DealKind",
    "DealStep",
    "Draft",
    "Extra",
    "Seating",
    "choices",
    "extras",
    "label",
    "notation",
    "press",
    "record",
    "rows",
    "step",
    "step_text",
    "subject",
    "toggle",
    "with_note",
]


class DealKind(StrEnum):
    CONTRACT = "c"
    MISERE = "m"
    RASPASY = "r"


class DealStep(StrEnum):
    """What a draft asks next; short values, they travel in callback data."""

    KIND = "k"
    DECLARER = "d"
    CONTRACT = "c"  # level and suit
    WORD = "w"  # the next defender's word, clockwise from the declarer
    RESULT = "r"  # the declarer's tricks, shown as the result (=, −1, +1)
    SPLIT = "s"  # both whisted: the first whister's tricks, the second has the rest
    MISERE = "m"  # the declarer's tricks on misère
    RASPASY = "p"  # the next active player's tricks on raspasy
    CONFIRM = "ok"


KINDS: Final = (DealKind.CONTRACT, DealKind.MISERE, DealKind.RASPASY)
ROLES: Final = (Role.WHIST, Role.PASS, Role.HALF)  # a word's button value is its index here
ROW: Final = 6  # numbers per row of buttons


class Extra(IntEnum):
    """The extras the confirmation offers beside ✅ (notation.md "EXTRA"); they travel as `v`."""

    OPEN = 1
    CLOSED = 2
    NOTE = 3
    CONCEDE = 4  # the concession «без трёх», right after the contract
    PRIKUP = 10  # + N (1–3): Odessa's quick tricks in the prikup, at the confirmation
    BOTH_PASS = 5  # shortcuts at the first defender's word: both pass …
    FIRST_WHISTS = 6  # … the first (clockwise) whists, the second passes …
    SECOND_WHISTS = 7  # … the first passes, the second whists
    DECLARER = 20  # + seat: a contract by this declarer, straight from the first step
    DEALER_WHISTS = 30  # + seat X: both passed, the 4-player Odessa dealer whists, X passes


SHORTCUT_WORDS: Final = {
    Extra.BOTH_PASS: (Role.PASS, Role.PASS),
    Extra.FIRST_WHISTS: (Role.WHIST, Role.PASS),
    Extra.SECOND_WHISTS: (Role.PASS, Role.WHIST),
}


NOTE_MAX: Final = 200  # characters of a note kept


class BadPress(ValueError):
    """A value the current step does not offer (a forged or outdated button)."""


@dataclass(frozen=True, slots=True)
class Draft:
    """A deal as far as the buttons have told it."""

    kind: DealKind | None = None
    declarer: int | None = None
    level: int | None = None
    suit: Suit | None = None
    words: tuple[Role, ...] = ()  # the defenders' words, clockwise from the declarer
    taken: int | None = None  # the declarer's tricks in a played contract
    split: int | None = None  # both whisted: the first whister's tricks
    tricks: tuple[int, ...] = ()  # misère: (declarer's,); raspasy: per active player so far
    light: bool | None = None  # at the confirmation: open (True) or closed (False) play
    note: str = ""  # at the confirmation: a note, typed as a reply
    conceded: bool = False  # «без трёх» right after the contract: no defenders, no tricks
    prikup: int = 0  # Odessa's quick tricks in the prikup (1–3), 0 for none
    dealer_whist: int | None = None  # both passed and the Odessa dealer whisted: the passer X

    @property
    def played(self) -> bool:
        """Cards were played: someone whisted (the dealer too) and nobody took a half-whist."""
        return self.dealer_whist is not None or offers.was_played(self.words)

    @property
    def two_whists(self) -> bool:
        return offers.both_whisted(self.words)


@dataclass(frozen=True, slots=True)
class Choice:
    """One button: the `value` a press sends, and its label — `text` as it is, or the text of the
    locale key `key` with `{text}` filled in (words differ by language, names and numbers do not)."""

    value: int
    text: str = ""
    key: str | None = None


# -- the machine -----------------------------------------------------------------------------
def step(seating: Seating, draft: Draft) -> DealStep:
    """The step `draft` is at."""
    if draft.kind is None:
        return DealStep.KIND
    if draft.kind is DealKind.RASPASY:
        left = offers.raspasy_tricks(len(seating.active), draft.tricks)
        return DealStep.RASPASY if left else DealStep.CONFIRM
    if draft.declarer is None:
        return DealStep.DECLARER
    if draft.kind is DealKind.MISERE:
        return DealStep.MISERE if not draft.tricks else DealStep.CONFIRM
    if draft.level is None:
        return DealStep.CONTRACT
    if draft.conceded:
        return DealStep.CONFIRM
    if len(draft.words) < 2:
        return DealStep.WORD
    if not draft.played:
        return DealStep.CONFIRM
    if draft.taken is None:
        return DealStep.RESULT
    if draft.two_whists and draft.split is None:
        return DealStep.SPLIT
    return DealStep.CONFIRM


def subject(seating: Seating, draft: Draft) -> int | None:
    """Whose answer the step asks for: the defender whose word, the raspasy player whose tricks."""
    current = step(seating, draft)
    if current is DealStep.WORD and draft.declarer is not None:
        return seating.defenders(draft.declarer)[len(draft.words)]
    if current is DealStep.RASPASY:
        return seating.active[len(draft.tricks)]
    return draft.declarer


def rows(seating: Seating, draft: Draft) -> tuple[tuple[Choice, ...], ...]:
    """The buttons of the current step, in rows; none at the confirmation."""
    current = step(seating, draft)
    if current is DealStep.KIND:
        return (tuple(Choice(i, key=f"steps-kind-{_KIND_WORDS[k]}") for i, k in enumerate(KINDS)),)
    if current is DealStep.DECLARER:
        return (tuple(Choice(s, seating.names[s]) for s in offers.declarers(seating)),)
    if current is DealStep.CONTRACT:
        contracts = [contract_choice(level, suit) for level, suit in offers.contracts()]
        return _chunks(contracts, len(SUITS))  # one row per level
    if current is DealStep.WORD:
        assert draft.level is not None
        said = offers.words(draft.level, draft.words)
        return (tuple(Choice(ROLES.index(r), key=f"steps-role-{r.value}") for r in said),)
    if current is DealStep.RESULT:
        level = draft.level
        assert level is not None
        tricks = offers.declarer_tricks(level)
        made = [Choice(n, result_text(n - level)) for n in tricks if n >= level]
        down = [Choice(n, result_text(n - level)) for n in reversed(tricks) if n < level]
        return (tuple(made), *_chunks(down, ROW))
    if current is DealStep.SPLIT:
        assert draft.taken is not None
        side = offers.tricks_left((draft.taken,))
        first = offers.first_whister_tricks(draft.taken)
        return _chunks([Choice(n, f"{n} : {side - n}") for n in first], ROW)
    if current is DealStep.MISERE:
        return _numbers(offers.misere_tricks())
    if current is DealStep.RASPASY:
        counts = offers.raspasy_tricks(len(seating.active), draft.tricks)
        if len(counts) == 1:
            return ((Choice(counts[0], str(counts[0])),),)  # the last player has the rest
        return _numbers(counts)
    return ()


def choices(seating: Seating, draft: Draft) -> tuple[Choice, ...]:
    return tuple(choice for row in rows(seating, draft) for choice in row)


def press(seating: Seating, draft: Draft, value: int) -> Draft:
    """The draft after pressing `value` at its step; steps with a single answer are filled in."""
    if value not in {c.value for c in choices(seating, draft)}:
        raise BadPress(f"{value} is not offered at step {step(seating, draft).value}")
    return _filled(seating, _answer(seating, draft, value))


def _filled(seating: Seating, draft: Draft) -> Draft:
    """Steps with a single possible answer are answered at once."""
    while step(seating, draft) is not DealStep.CONFIRM:
        only = choices(seating, draft)
        if len(only) != 1:
            break
        draft = _answer(seating, draft, only[0].value)
    return draft


def extras(
    seating: Seating,
    draft: Draft,
    concede: bool = False,
    prikup: bool = False,
    odessa: bool = False,
) -> tuple[Choice, ...]:
    """The buttons beside the step's own: at the first defender's word, the concession «без
    трёх» where the convention allows it (`concede`); at the confirmation, open/closed play on a
    played contract and a note on any deal. A set extra is marked ✓ (a second press clears it)."""
    current = step(seating, draft)
    if current is DealStep.KIND:  # the common deal in three taps: declarer → contract → words
        return tuple(
            Choice(Extra.DECLARER + s, seating.names[s]) for s in offers.declarers(seating)
        )
    if current is DealStep.WORD and not draft.words and draft.declarer is not None:
        first, second = (seating.names[s] for s in seating.defenders(draft.declarer))
        quick = [Choice(Extra.BOTH_PASS, key="steps-quick-both-pass")]
        quick += [
            Choice(Extra.FIRST_WHISTS, first, "steps-quick-whists"),
            Choice(Extra.SECOND_WHISTS, second, "steps-quick-whists"),
        ]
        if offers.may_concede(concede, draft.words):
            quick.append(Choice(Extra.CONCEDE, key="steps-extra-concede"))
        return tuple(quick)
    if current is not DealStep.CONFIRM:
        return ()
    out: list[Choice] = []
    if draft.kind is DealKind.CONTRACT and draft.declarer is not None and not draft.played:
        for x in offers.dealer_whist_partners(odessa, seating, draft.declarer, draft.words):
            name = seating.names[x]
            out.append(Choice(Extra.DEALER_WHISTS + x, name, "steps-extra-dealer-whists"))
    if draft.kind is DealKind.CONTRACT and not draft.conceded:
        for extra, light in ((Extra.OPEN, True), (Extra.CLOSED, False)):
            mark = "✓ " if draft.light is light else ""
            out.append(Choice(extra, mark, f"steps-extra-{extra.name.lower()}"))
    if draft.kind is DealKind.CONTRACT:  # a concession too: the prikup was taken (§2.2)
        for n in offers.prikup_tricks(prikup and draft.dealer_whist is None, seating):
            mark = "✓ " if draft.prikup == n else ""
            out.append(Choice(Extra.PRIKUP + n, f"{mark}{n}", "steps-extra-prikup"))
    out.append(Choice(Extra.NOTE, "✓ " if draft.note else "", "steps-extra-note"))
    return tuple(out)


def toggle(
    seating: Seating,
    draft: Draft,
    value: int,
    concede: bool = False,
    prikup: bool = False,
    odessa: bool = False,
) -> Draft:
    """The draft after pressing an extra: the concession, the prikup's quick tricks, or
    open/closed, set or cleared (NOTE asks for a reply instead)."""
    offered = {c.value for c in extras(seating, draft, concede, prikup, odessa)}
    if value not in offered or value == Extra.NOTE:
        raise BadPress(f"extra {value} is not offered here")
    if value == Extra.CONCEDE:
        return replace(draft, conceded=True)
    if value >= Extra.DEALER_WHISTS:
        return replace(draft, dealer_whist=value - Extra.DEALER_WHISTS)
    if value >= Extra.DECLARER:
        declarer = value - Extra.DECLARER
        return _filled(seating, replace(draft, kind=DealKind.CONTRACT, declarer=declarer))
    if value in SHORTCUT_WORDS:
        return _filled(seating, replace(draft, words=SHORTCUT_WORDS[Extra(value)]))
    if value > Extra.PRIKUP:
        n = value - Extra.PRIKUP
        return replace(draft, prikup=0 if draft.prikup == n else n)
    light = value == Extra.OPEN
    return replace(draft, light=None if draft.light is light else light)


def with_note(draft: Draft, text: str) -> Draft:
    """The note as the notation keeps it: one line, no double quotes, at most `NOTE_MAX`."""
    note = " ".join(text.replace('"', "'").split())[:NOTE_MAX]
    return replace(draft, note=note)


def record(seating: Seating, draft: Draft) -> Deal:
    """The deal a finished draft tells (normalised like the notation's reading of it)."""
    if step(seating, draft) is not DealStep.CONFIRM:
        raise ValueError("the draft is not finished")
    added = Extras(open=draft.light, prikup=draft.prikup, note=draft.note)
    if draft.kind is DealKind.RASPASY:
        return Raspasy(tuple(zip(seating.active, draft.tricks, strict=True)), extras=added)
    assert draft.declarer is not None
    if draft.kind is DealKind.MISERE:
        return Misere(draft.declarer, draft.tricks[0], extras=added)
    assert draft.level is not None
    if draft.conceded:
        return Contract(draft.declarer, draft.level, draft.suit, 0, (), True, added)
    if draft.dealer_whist is not None:
        assert draft.taken is not None
        size = len(seating.names)
        pair = (
            Defender(seating.dealer, Role.WHIST, None),
            Defender(draft.dealer_whist, Role.PASS, None),
        )  # clockwise from the declarer, as the notation reads them
        declarer = draft.declarer
        defenders = tuple(sorted(pair, key=lambda d: (d.player - declarer) % size))
        level = draft.level
        return Contract(
            draft.declarer, level, draft.suit, draft.taken - level, defenders, False, added
        )
    first, second = seating.defenders(draft.declarer)
    result = 0
    tricks: tuple[int | None, int | None] = (None, None)
    if draft.played:
        assert draft.taken is not None
        result = draft.taken - draft.level
        if draft.two_whists:
            assert draft.split is not None
            tricks = (draft.split, offers.tricks_left((draft.taken, draft.split)))
    defenders = (
        Defender(first, draft.words[0], tricks[0]),
        Defender(second, draft.words[1], tricks[1]),
    )
    return Contract(draft.declarer, draft.level, draft.suit, result, defenders, extras=added)


def notation(seating: Seating, draft: Draft) -> str:
    """The canonical line of a finished draft: the text a typed `/deal` would carry."""
    return format_record(record(seating, draft), seating.names)


def _answer(seating: Seating, draft: Draft, value: int) -> Draft:
    current = step(seating, draft)
    if current is DealStep.KIND:
        return replace(draft, kind=KINDS[value])
    if current is DealStep.DECLARER:
        return replace(draft, declarer=value)
    if current is DealStep.CONTRACT:
        return replace(draft, level=value // 10, suit=SUITS[value % 10])
    if current is DealStep.WORD:
        return replace(draft, words=(*draft.words, ROLES[value]))
    if current is DealStep.RESULT:
        return replace(draft, taken=value)
    if current is DealStep.SPLIT:
        return replace(draft, split=value)
    if current in (DealStep.MISERE, DealStep.RASPASY):
        return replace(draft, tricks=(*draft.tricks, value))
    raise BadPress("the deal is complete")


def contract_choice(level: int, suit: Suit) -> Choice:
    value = level * 10 + SUITS.index(suit)
    if suit is Suit.NO_TRUMP:
        return Choice(value, str(level), "steps-no-trump")
    return Choice(value, f"{level}{suit.value}")


def result_text(result: int) -> str:
    """`=`, `+1`, `−2` (a real minus on buttons; the notation line keeps its own)."""
    if result == 0:
        return "="
    return f"+{result}" if result > 0 else f"−{-result}"


def _numbers(counts: Sequence[int]) -> tuple[tuple[Choice, ...], ...]:
    return _chunks([Choice(n, str(n)) for n in counts], ROW)


def _chunks(items: Sequence[Choice], most: int) -> tuple[tuple[Choice, ...], ...]:
    """Rows of at most `most` buttons, as even as they go (11 → 6 + 5, 7 → 4 + 3)."""
    if not items:
        return ()
    count = -(-len(items) // most)
    size = -(-len(items) // count)
    return tuple(tuple(items[i : i + size]) for i in range(0, len(items), size))


# -- texts -----------------------------------------------------------------------------------
_KIND_WORDS: Final = {
    DealKind.CONTRACT: "contract",
    DealKind.MISERE: "misere",
    DealKind.RASPASY: "raspasy",
}


def label(t: Translator, choice: Choice) -> str:
    """A button's label in the chat's language (plain text: Telegram shows labels as they are)."""
    return t.template(choice.key).format(text=choice.text) if choice.key else choice.text


def contract_label(t: Translator, draft: Draft) -> str:
    if draft.level is None or draft.suit is None:
        return ""
    return label(t, contract_choice(draft.level, draft.suit))


def so_far(t: Translator, seating: Seating, draft: Draft) -> list[str]:
    """What the buttons have told so far, part by part (plain text)."""
    names = seating.names
    parts: list[str] = []
    if draft.kind is not None:
        parts.append(t.template(f"steps-kind-{_KIND_WORDS[draft.kind]}"))
    if draft.kind is DealKind.RASPASY:
        parts += [f"{names[s]} {n}" for s, n in zip(seating.active, draft.tricks, strict=False)]
        return parts
    if draft.declarer is not None:
        parts.append(names[draft.declarer])
    if draft.kind is DealKind.MISERE:
        parts += [str(n) for n in draft.tricks]
        return parts
    if draft.level is not None:
        parts.append(contract_label(t, draft))
    if draft.declarer is not None:
        for seat, word in zip(seating.defenders(draft.declarer), draft.words, strict=False):
            parts.append(f"{names[seat]}: {t.template(f'steps-role-{word.value}')}")
    if draft.taken is not None and draft.level is not None:
        parts.append(result_text(draft.taken - draft.level))
    return parts


def step_text(t: Translator, seating: Seating, draft: Draft) -> Safe:
    """The message above the buttons: the deal's number and dealer, what is known, the question."""
    names = seating.names
    dealer = names[seating.dealer]
    title_key = "steps-title" if len(names) == 3 else "steps-title-four"
    lines: list[str] = [t(title_key, number=seating.number, dealer=dealer)]
    current = step(seating, draft)
    if current is DealStep.CONFIRM:
        line = format_record(record(seating, draft), names, lang=t.lang)
        lines += [t("steps-line", line=line), t("steps-ask-confirm")]
        return Safe("\n".join(lines))
    parts = so_far(t, seating, draft)
    if parts:
        lines.append(t("steps-so-far", parts=" · ".join(parts)))
    who = subject(seating, draft)
    name = names[who] if who is not None else ""
    params: dict[str, object] = {"name": name, "contract": contract_label(t, draft)}
    if current is DealStep.SPLIT and draft.taken is not None and draft.declarer is not None:
        first, second = seating.defenders(draft.declarer)
        side = offers.tricks_left((draft.taken,))
        params.update(first=names[first], second=names[second], side=side)
    if current is DealStep.RASPASY:
        params["left"] = offers.tricks_left(draft.tricks)
    key = f"steps-ask-{_ASK[current]}"
    if current is DealStep.DECLARER and draft.kind is DealKind.MISERE:
        key = "steps-ask-misere-declarer"
    lines.append(t(key, **params))
    return Safe("\n".join(lines))


_ASK: Final = {
    DealStep.KIND: "kind",
    DealStep.DECLARER: "declarer",
    DealStep.CONTRACT: "contract",
    DealStep.WORD: "word",
    DealStep.RESULT: "result",
    DealStep.SPLIT: "split",
    DealStep.MISERE: "misere",
    DealStep.RASPASY: "raspasy",
    DealStep.CONFIRM: "confirm",
}
