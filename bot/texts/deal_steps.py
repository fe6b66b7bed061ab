"""A deal by buttons: the pure step machine behind `/deal` alone, offering what the engine does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final

from bot.texts.deal_draft import (
    KINDS,
    ROLES,
    SHORTCUT_WORDS,
    BadPress,
    Choice,
    DealKind,
    DealStep,
    Draft,
    Extra,
)
from bot.texts.i18n import Safe, Translator
from scoring import offers
from scoring.deal import Contract, Deal, Defender, Extras, Misere, Raspasy, Role, Suit
from scoring.notation import format_record
from scoring.offers import SUITS
from scoring.seating import Seating

ROW: Final = 6  # numbers per row of buttons
NOTE_MAX: Final = 200  # characters of a note kept


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


def rows(seating: Seating, draft: Draft) -> tuple[tuple[Choice, ...], ...]:
    """The buttons of the current step, in rows; none at the confirmation."""
    current = step(seating, draft)
    if current is DealStep.KIND:
        return (tuple(Choice(i, key=f"steps-kind-{k.name.lower()}") for i, k in enumerate(KINDS)),)
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
        return _chunks([Choice(n, str(n)) for n in offers.misere_tricks()], ROW)
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
    """Steps with a single possible answer are answered at once."""
    while step(seating, draft) is not DealStep.CONFIRM:
        only = choices(seating, draft)
        if len(only) != 1:
            break
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
    declarer, level = draft.declarer, draft.level
    if draft.dealer_whist is not None:
        assert draft.taken is not None
        size = len(seating.names)
        pair = (
            Defender(seating.dealer, Role.WHIST, None),
            Defender(draft.dealer_whist, Role.PASS, None),
        )  # clockwise from the declarer, as the notation reads them
        defenders = tuple(sorted(pair, key=lambda d: (d.player - declarer) % size))
        return Contract(declarer, level, draft.suit, draft.taken - level, defenders, False, added)
    result = 0
    tricks: tuple[int | None, int | None] = (None, None)
    if draft.played:
        assert draft.taken is not None
        result = draft.taken - level
        if draft.two_whists:
            assert draft.split is not None
            tricks = (draft.split, offers.tricks_left((draft.taken, draft.split)))
    seats = seating.defenders(declarer)
    defenders = tuple(map(Defender, seats, draft.words, tricks))
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
    if not items:
        return ()
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
    # whose answer the step asks for: the defender whose word, the raspasy player whose tricks
    who = draft.declarer
    if current is DealStep.WORD and draft.declarer is not None:
        who = seating.defenders(draft.declarer)[len(draft.words)]
    elif current is DealStep.RASPASY:
        who = seating.active[len(draft.tricks)]
    name = names[who] if who is not None else ""
    params: dict[str, object] = {"name": name, "contract": contract_label(t, draft)}
    if current is DealStep.SPLIT and draft.taken is not None and draft.declarer is not None:
        first, second = seating.defenders(draft.declarer)
        side = offers.tricks_left((draft.taken,))
        params.update(first=names[first], second=names[second], side=side)
    if current is DealStep.RASPASY:
        params["left"] = offers.tricks_left(draft.tricks)
    key = f"steps-ask-{current.name.lower()}"
    if current is DealStep.DECLARER and draft.kind is DealKind.MISERE:
        key = "steps-ask-misere-declarer"
    lines.append(t(key, **params))
    return Safe("\n".join(lines))
