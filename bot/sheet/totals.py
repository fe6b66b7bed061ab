"""A band's running totals laid out: the largest size of the style's ladder at which they all fit
(rows filled greedily); when not even the last holds them, the fewest oldest totals folded behind
a leading "…" (a multiple of `Style.fold`, or all but the latest) that lets the rest fit. Sizes
step by about a seventh and totals fold a few at a time, so what is drawn stays where it is while
a column grows."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.sheet.flow import Area, Item, Seg, Start, arrange, emit
from bot.sheet.model import RunKind, Style, TextRun
from scoring.sheet import Band

Fitted = tuple[list[Item], list[Start]]  # the items shown, where each starts


def _ellipsis(band: Band, style: Style) -> Item:
    """The mark of folded totals: a word rather than a number, so at the captions' size."""
    rel = style.caption[1] / style.totals[-1]
    return Item((Seg("….", rel=rel, kind=RunKind.ELLIPSIS, band=band),))


def lay(
    band: Band, items: Sequence[Item], area: Area, style: Style, heads: Sequence[list[Item]] = ()
) -> list[TextRun]:
    """The column's runs after the first of `heads` (the caption flowing with the totals), or a
    shorter one when that lets fewer totals fold."""
    lead = list(heads[0]) if heads else []
    shown = [*lead, *items]
    for size in style.totals:
        starts = arrange(shown, area, size)
        if starts is not None:
            return emit(shown, starts, size)
    size = style.totals[-1]
    if not items:  # an empty band: its caption, shorter if it must be
        return _first_fit([list(head) for head in heads[1:]], area, size)
    dots = [_ellipsis(band, style)]
    best: tuple[int, list[Item], list[Start]] | None = None  # cut, and what fitted
    for index, head in enumerate(heads or [[]]):
        fitted: dict[int, Fitted] = {}

        def fits(cut: int, head: list[Item] = head, fitted: dict[int, Fitted] = fitted) -> bool:
            shown = [*head, *dots, *items[cut:]] if cut else [*head, *items]
            starts = arrange(shown, area, size)
            if starts is not None:
                fitted[cut] = (shown, starts)
            return starts is not None

        cuts = [*range(style.fold, len(items) - 1, style.fold), len(items) - 1]
        if best is not None:  # a shorter head is taken only when fewer fold
            cuts = [cut for cut in cuts if cut < best[0]]
        # (the first head without a fold was tried above; a shorter one may fit so)
        cut = 0 if index and fits(0) else fewest(cuts, fits)
        if cut is not None:
            best = (cut, *fitted[cut])
            if cut == 0:
                break
    if best is not None:
        _, shown, starts = best
        return emit(shown, starts, size)
    latest = list(items[-1:])
    resorts = [*([*head, *latest] for head in heads), [*dots, *latest], latest]
    return _first_fit(resorts, area, size)


def _first_fit(candidates: Sequence[list[Item]], area: Area, size: int) -> list[TextRun]:
    """The runs of the first candidate that fits at `size`; none when none does."""
    for shown in candidates:
        starts = arrange(shown, area, size)
        if starts is not None:
            return emit(shown, starts, size)
    return []


def fewest(cuts: Sequence[int], fits: Callable[[int], bool]) -> int | None:
    """The least of `cuts` (ascending) that `fits`, when every cut above one that fits fits too:
    tried from the largest down in doubling steps, then by halves, so that a crowded band's search
    reads only its newest totals."""
    if not cuts or not fits(cuts[-1]):
        return None
    good, step = len(cuts) - 1, 1
    bad = good - step
    while bad >= 0 and fits(cuts[bad]):
        good, step = bad, step * 2
        bad = good - step
    bad = max(bad, -1)
    while good - bad > 1:  # cuts[good] fits, cuts[bad] does not (or is before the first)
        middle = (good + bad) // 2
        if fits(cuts[middle]):
            good = middle
        else:
            bad = middle
    return cuts[good]
