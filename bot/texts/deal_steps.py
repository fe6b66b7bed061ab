"""A deal by buttons: the draft, its steps and buttons, the pure step machine behind `/deal`."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from typing import Final

from bot.texts.i18n import Safe, Translator
from scoring import offers
from scoring.deal import Contract, Deal, Defender, Extras, Misere, Raspasy, Role, Suit
from scoring.notation import format_record
from scoring.offers import SUITS
from scoring.seating import Seating

ROW: Final = 6  # numbers per row of buttons
NOTE_MAX: Final = 200  # characters of a note kept


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


@dataclass(frozen=True, slots=True)
class Choice:
    """One button: the `value` a press sends; its label `text`, or locale `key`'s text around it."""

    value: int
    text: str = ""
    key: str | None = None


# -- the machine -----------------------------------------------------------------------------
def step(seating: Seating, draft: Draft) -> DealStep:
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
    if offers.both_whisted(draft.words) and draft.split is None:
        return DealStep.SPLIT
    return DealStep.CONFIRM


def rows(seating: Seating, draft: Draft) -> tuple[tuple[Choice, ...], ...]:
    """The buttons of the current step, in rows; none at the confirmation."""
    current = step(seating, draft)
    if current is DealStep.KIND:
        return (tuple(Choice(i, key=f"steps-kind-{k.name.lower()}") for i, k in enumerate(KINDS)),)
    if current is DealStep.DECLARER:
        return (tuple(Choice(s, seating.names[s]) for s in seating.active),)
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
        tricks = offers.declarer_tricks()
        made = [Choice(n, result_text(n - level)) for n in tricks if n >= level]
        down = [Choice(n, result_text(n - level)) for n in reversed(tricks) if n < level]
        return (tuple(made), *_chunks(down, ROW))
    if current is DealStep.SPLIT:
        assert draft.taken is not None
        side = offers.tricks_left((draft.taken,))
        first = offers.first_whister_tricks(draft.taken)
        return _chunks([Choice(n, f"{n} : {side - n}") for n in first], ROW)
    if current is DealStep.MISERE:
        return _chunks([Choice(n, str(n)) for n in offers.declarer_tricks()], ROW)
    if current is DealStep.RASPASY:  # the last player has the rest: one button
        counts = offers.raspasy_tricks(len(seating.active), draft.tricks)
        return _chunks([Choice(n, str(n)) for n in counts], ROW)
    return ()


def choices(seating: Seating, draft: Draft) -> tuple[Choice, ...]:
    return tuple(choice for row in rows(seating, draft) for choice in row)


def press(seating: Seating, draft: Draft, value: int) -> Draft:
    """The draft after pressing `value` at its step; steps with a single answer are filled in."""
    if value not in {c.value for c in choices(seating, draft)}:
        raise BadPress(f"{value} is not offered at step {step(seating, draft).value}")
    return _filled(seating, ANSWERS[step(seating, draft)](draft, value))


def _filled(seating: Seating, draft: Draft) -> Draft:
    while len(only := choices(seating, draft)) == 1:  # the confirmation offers none
        draft = ANSWERS[step(seating, draft)](draft, only[0].value)
    return draft


def extras(
    seating: Seating,
    draft: Draft,
    concede: bool = False,
    prikup: bool = False,
    odessa: bool = False,
) -> tuple[Choice, ...]:
    """The buttons beside the step's own: shortcuts, «без трёх», play, prikup, note (set: ✓)."""
    names, current = seating.names, step(seating, draft)
    if current is DealStep.KIND:  # the common deal in three taps: declarer → contract → words
        return tuple(Choice(Extra.DECLARER + s, names[s]) for s in seating.active)
    if current is DealStep.WORD and not draft.words and draft.declarer is not None:
        first, second = (names[s] for s in seating.defenders(draft.declarer))
        quick = [
            Choice(Extra.BOTH_PASS, key="steps-quick-both-pass"),
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
            out.append(Choice(Extra.DEALER_WHISTS + x, names[x], "steps-extra-dealer-whists"))
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
    """The draft after pressing an extra; a second press clears a mark (NOTE asks for a reply)."""
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
    return replace(draft, note=" ".join(text.replace('"', "'").split())[:NOTE_MAX])


def record(seating: Seating, draft: Draft) -> Deal:
    """The deal a finished draft tells (normalised like the notation's reading of it)."""
    added = Extras(open=draft.light, prikup=draft.prikup, note=draft.note)
    if draft.kind is DealKind.RASPASY:
        return Raspasy(tuple(zip(seating.active, draft.tricks, strict=True)), extras=added)
    assert draft.declarer is not None
    if draft.kind is DealKind.MISERE:
        return Misere(draft.declarer, draft.tricks[0], extras=added)
    assert draft.level is not None
    if draft.conceded:
        return Contract(draft.declarer, draft.level, draft.suit, 0, (), True, added)
    declarer, level = draft.declarer, draft.level
    seats: tuple[int, ...] = seating.defenders(declarer)
    words = draft.words
    if draft.dealer_whist is not None:  # clockwise from the declarer, as the notation reads them
        said = {seating.dealer: Role.WHIST, draft.dealer_whist: Role.PASS}
        seats = tuple(sorted(said, key=lambda seat: (seat - declarer) % len(seating.names)))
        words = tuple(said[seat] for seat in seats)
    result = 0
    tricks: tuple[int | None, int | None] = (None, None)
    if draft.played:
        assert draft.taken is not None
        result = draft.taken - level
        if offers.both_whisted(words):
            assert draft.split is not None
            tricks = (draft.split, offers.tricks_left((draft.taken, draft.split)))
    defenders = tuple(map(Defender, seats, words, tricks))
    return Contract(declarer, level, draft.suit, result, defenders, extras=added)


def notation(seating: Seating, draft: Draft) -> str:
    """The canonical line of a finished draft: the text a typed `/deal` would carry."""
    return format_record(record(seating, draft), seating.names)


# what a press at each step (but the confirmation, which offers none) tells the draft
ANSWERS: Final[dict[DealStep, Callable[[Draft, int], Draft]]] = {
    DealStep.KIND: lambda draft, v: replace(draft, kind=KINDS[v]),
    DealStep.DECLARER: lambda draft, v: replace(draft, declarer=v),
    DealStep.CONTRACT: lambda draft, v: replace(draft, level=v // 10, suit=SUITS[v % 10]),
    DealStep.WORD: lambda draft, v: replace(draft, words=(*draft.words, ROLES[v])),
    DealStep.RESULT: lambda draft, v: replace(draft, taken=v),
    DealStep.SPLIT: lambda draft, v: replace(draft, split=v),
    DealStep.MISERE: lambda draft, v: replace(draft, tricks=(*draft.tricks, v)),
    DealStep.RASPASY: lambda draft, v: replace(draft, tricks=(*draft.tricks, v)),
}


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


def _chunks(items: Sequence[Choice], most: int) -> tuple[tuple[Choice, ...], ...]:
    """Rows of at most `most` buttons, as even as they go (11 → 6 + 5, 7 → 4 + 3)."""
    count = -(-len(items) // most)
    size = -(-len(items) // count)
    return tuple(tuple(items[i : i + size]) for i in range(0, len(items), size))


# -- texts -----------------------------------------------------------------------------------
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
        parts.append(t.template(f"steps-kind-{draft.kind.name.lower()}"))
    if draft.kind is DealKind.RASPASY:
        parts += [f"{names[s]} {n}" for s, n in zip(seating.active, draft.tricks, strict=False)]
        return parts
    if draft.declarer is not None:
        parts.append(names[draft.declarer])
    parts += [str(n) for n in draft.tricks]  # a misère's tricks (a contract has none)
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
    title = "steps-title" if len(names) == 3 else "steps-title-four"
    lines: list[str] = [t(title, number=seating.number, dealer=names[seating.dealer])]
    current = step(seating, draft)
    if current is DealStep.CONFIRM:
        line = format_record(record(seating, draft), names, lang=t.lang)
        lines += [t("steps-line", line=line), t("steps-ask-confirm")]
        return Safe("\n".join(lines))
    parts = so_far(t, seating, draft)
    if parts:
        lines.append(t("steps-so-far", parts=" · ".join(parts)))
    params: dict[str, object] = {"contract": contract_label(t, draft)}
    # whose answer the step asks for: the defender whose word, the raspasy player whose tricks
    who = draft.declarer
    if current is DealStep.WORD and draft.declarer is not None:
        who = seating.defenders(draft.declarer)[len(draft.words)]
    elif current is DealStep.RASPASY:
        who = seating.active[len(draft.tricks)]
        params["left"] = offers.tricks_left(draft.tricks)
    params["name"] = names[who] if who is not None else ""
    if current is DealStep.SPLIT and draft.taken is not None and draft.declarer is not None:
        first, second = seating.defenders(draft.declarer)
        side = offers.tricks_left((draft.taken,))
        params.update(first=names[first], second=names[second], side=side)
    key = f"steps-ask-{current.name.lower()}"
    if current is DealStep.DECLARER and draft.kind is DealKind.MISERE:
        key = "steps-ask-misere-declarer"
    lines.append(t(key, **params))
    return Safe("\n".join(lines))
