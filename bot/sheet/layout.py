"""The score sheet («пулька») as a pure layout (spec/sheet.md): a `Sheet` → shapes and text runs:
the sectors and bands, each band's totals as paper writes them (`2.4.8.10`, a correction `12³`)
under its caption, the players' name tabs, the circle in the centre and the strip under it all."""

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from bot.sheet import model
from bot.sheet.flow import NEWLINE, Area, Item, Obstacle, Seg, fewest, flow, lay
from bot.sheet.model import INK, Corrections, Point, RunKind, Style, TextRun, metrics, text_width
from locales import catalog
from locales.numbers import MINUS_SIGN, SUPERSCRIPT, format_amount, money
from scoring.deal import Column, Contract, Misere, Raspasy, Role, Suit
from scoring.settle import Settlement, settle
from scoring.sheet import Band, Reason, Sheet

# px of a name tab's text, by table size and whether the tab is on a side edge
NAME_ROOM: Final = {3: {False: 300.0, True: 260.0}, 4: {False: 300.0, True: 240.0}}


@dataclass(frozen=True, slots=True)
class Sector:
    seat: int
    path: tuple[Point, ...]  # on the outer edge, clockwise, from the previous player's line
    parts: tuple[tuple[tuple[Point, ...], int], ...]  # (sub-path, whists target)
    anchor: Point  # where the name tab sits on the edge
    splits: tuple[Point, ...] = ()  # edge points of the whists split lines
    toward: Point = (0.0, 0.0)  # the tab goes from the anchor this way along the edge (0: centred)


def sectors(size: int, frame: model.Frame) -> tuple[Sector, ...]:
    """3 players: lines from the circle to the upper corners and the lower middle, seat A left,
    B top, C right; 4 players: the diagonals, A bottom, B left, C top, D right."""
    x0, y0, x1, y1 = frame.sheet
    cx = frame.centre[0]
    tl, tr, br, bl = (x0, y0), (x1, y0), (x1, y1), (x0, y1)
    tm, bm = (cx, y0), (cx, y1)
    if size == 3:
        a, b, c = 0, 1, 2
        return (
            Sector(a, (bm, bl, tl), (((bm, bl), c), ((bl, tl), b)), bl, (bl,)),
            Sector(b, (tl, tm, tr), (((tl, tm), a), ((tm, tr), c)), tm, (tm,)),
            Sector(c, (tr, br, bm), (((tr, br), b), ((br, bm), a)), br, (br,)),
        )

    # The name tab ends where the middle part meets the last: it takes the end of the middle part
    # rather than cutting it in two, and nothing of the corner part, the smallest.
    out = []
    for seat, (p, q) in enumerate(((br, bl), (bl, tl), (tl, tr), (tr, br))):
        m1, m2 = scale(q, p, 1 / 3), scale(q, p, 2 / 3)  # the thirds of the edge
        targets = ((seat - 1) % 4, (seat + 2) % 4, (seat + 1) % 4)
        parts = (((p, m1), targets[0]), ((m1, m2), targets[1]), ((m2, q), targets[2]))
        back = ((p[0] > q[0]) - (p[0] < q[0]), (p[1] > q[1]) - (p[1] < q[1]))
        out.append(Sector(seat, (p, q), parts, m2, (m1, m2), back))
    return tuple(out)


def scale(point: Point, centre: Point, s: float) -> Point:
    return (centre[0] + (point[0] - centre[0]) * s, centre[1] + (point[1] - centre[1]) * s)


def total_items(
    band: Band, values: Sequence[tuple[int, Fraction]], colour: str, corrections: Corrections
) -> list[Item]:
    """The band's totals in record order, `2.4.8.10`, the latest bold in the player's colour. A
    corrected total is the wrong value, a dot, the right value and the correction's number; a
    value corrected away (its record no longer writes here) stays, grey, with its number."""
    written = {record for record, _ in values}
    away = [(r, None) for b, r in corrections if b == band and r not in written]
    entries: list[tuple[int, Fraction | None]] = sorted([*values, *away], key=lambda e: e[0])
    latest = values[-1][0] if values else None
    items: list[Item] = []
    for i, (record, total) in enumerate(entries):
        dot = "" if i == len(entries) - 1 else "."
        fix = corrections.get((band, record))
        segs: list[Seg] = []
        if fix is not None:
            wrong = format_amount(fix.wrong) + ("" if total is None else ".")
            segs.append(Seg(wrong, color=model.MUTED, kind=RunKind.WRONG, band=band))
        if total is not None:
            text = format_amount(total) + ("" if fix is not None else dot)
            newest = record == latest
            ink = colour if newest else INK
            segs.append(Seg(text, bold=newest, color=ink, band=band, record=record, latest=newest))
        if fix is not None:
            mark = str(fix.number).translate(SUPERSCRIPT) + dot
            segs.append(Seg(mark, color=model.MUTED, kind=RunKind.MARK, band=band))
        items.append(Item(tuple(segs)))
    return items


def _caption_items(
    band: Band, words: Sequence[str], closed: bool, rel: float = 1.0, most: int = 0
) -> list[Item]:
    segs = [
        Seg(word, rel, color=model.MUTED, kind=RunKind.CAPTION, band=band, most=most)
        for word in words
    ]
    if closed:
        segs.append(Seg("✔", rel, True, model.CLOSED_MARK, RunKind.MARK, band, most=most))
    return [Item((seg,), gap=0.3) for seg in segs]


SHORTEST: Final = 5  # characters, "…" included: a caption is cut no shorter to let totals in


def _shortened(words: list[str]) -> Iterator[list[str]]:
    """The caption, then with its last word a letter shorter each time, ending in "…"."""
    yield words
    while len(words[-1]) > 2:
        words = [*words[:-1], words[-1].removesuffix("…")[:-1] + "…"]
        yield words


def caption_head(
    band: Band, caption: str, area: Area, style: Style, closed: bool = False
) -> tuple[list[TextRun], Area, list[list[Item]]]:
    """The band's word first in the band, wrapping (`Висты` / `→ Клара`), a name too long cut with
    "…", a closed pool's ending in ✔. With `Style.caption_flows` it is returned as heads to flow
    before the totals (then shorter ones, for a band too narrow beside its latest total); else it
    is drawn here and the totals' area returned avoids it. Returns (runs, area, heads)."""
    whole: list[str] = []
    for word in caption.split(" "):  # an arrow stays with the name after it: "→ Клара"
        if whole and whole[-1] == "→":
            whole[-1] += " " + word
        else:
            whole.append(word)
    for words in _shortened(whole):
        runs = flow(_caption_items(band, words, closed), area, *style.caption)
        if runs:
            break
    else:
        return [], area, []
    if style.caption_flows:
        rel = style.caption[1] / style.totals[-1]
        heads: list[list[Item]] = []
        for variant in _shortened(words):
            if heads and len(variant[-1].removeprefix("→ ")) < SHORTEST:
                break
            heads.append(_caption_items(band, variant, closed, rel, style.caption[0]))
        return [], area, heads
    x0, y0 = min(r.box[0] for r in runs), min(r.box[1] for r in runs)
    x1, y1 = max(r.box[2] for r in runs), max(r.box[3] for r in runs)
    pad = model.PAD
    around = Obstacle((x0 - pad, y0 - pad, x1 + 0.35 * runs[0].size, y1 + pad / 2))
    # Nothing above the caption: the totals read after it.
    left, right = min(x for x, _ in area.points), max(x for x, _ in area.points)
    above = Obstacle((left - 1, area.top - 1, right + 1, y0 - pad))
    return runs, Area(area.points, (*area.obstacles, around, above)), []


def layout_sheet(
    sheet: Sheet,
    lang: str = "ru",
    *,
    settlement: Settlement | None = None,
    corrections: Corrections | None = None,
    fold: bool = True,
) -> model.Layout:
    """The picture of a 3- or 4-player sheet, nothing drawn yet: without `settlement` the balances
    are `settle`'s, `corrections` drawn the paper way (`10.14.12³.16`); `fold`: the chat's picture
    (`model.PHONE`), else every total (`model.FULL`)."""
    style = model.PHONE if fold else model.FULL
    if settlement is None:
        settlement = settle(sheet.rules, sheet.totals, sheet.game.stake)
    size = sheet.game.size
    frame = model.FRAMES[size]  # a game is of 3 or 4 players
    words = catalog.table(lang, "sheet")
    corrections = corrections or {}
    centre = frame.centre
    inner, middle = frame.scales
    names = sheet.game.players
    parts = sectors(size, frame)

    shapes: list[model.Shape] = [model.Rect((0, 0, model.WIDTH, model.HEIGHT), model.BACKGROUND)]
    # The circle in the centre: the pool size over the stake (or the word "pool" without one), a
    # text too wide for it shrinking down to the smallest number.
    (cx, cy), r = centre, frame.radius
    lines = [(str(sheet.rules.pool_target), style.centre[0], True, INK)]
    if sheet.game.stake is None:
        lines.append((words["centre_pool"], style.centre[1], False, model.MUTED))
    else:
        stake = format_amount(sheet.game.stake, decimals=True, lang=lang)
        lines.append((stake, style.strip[1], False, model.MUTED))
    y = round(cy - sum(sum(metrics(s, b)) for _, s, b, _ in lines) / 2)
    centre_runs: list[TextRun] = []
    for text, em, bold, colour in lines:
        while em > style.strip[1] and text_width(text, em, bold) > 2 * r - 14:
            em -= 1
        w, h = text_width(text, em, bold), sum(metrics(em, bold))
        x = round(cx - w / 2)
        box = (x, y, x + w, y + h)
        centre_runs.append(TextRun(text, x, y, box, em, bold, colour, RunKind.CENTRE))
        y += h
    # Each name in white in a coloured tab on the edge (centred, at a corner, or going `toward`
    # along it), in at most its room of px: smaller type, then cut with "…".
    x0, y0, x1, y1 = frame.sheet
    tabs: list[tuple[model.Rect, TextRun]] = []
    obstacles = [Obstacle((cx - r - 3, cy - r - 3, cx + r + 3, cy + r + 3), round=True)]
    for sector in parts:
        limit = NAME_ROOM[size][sector.anchor[0] in (x0, x1)]
        text, (em, smallest) = names[sector.seat], style.name
        while em > smallest and text_width(text, em, True) > limit:
            em -= 1
        while text_width(text, em, True) > limit and len(text) > 1:
            text = text[:-2] + "…"
        w, h = text_width(text, em, True) + 2 * 12, sum(metrics(em, True)) + 2 * 6
        (ax, ay), (dx, dy), inset = sector.anchor, sector.toward, 8.0
        ax, ay = ax + dx * (w / 2 + inset), ay + dy * (h / 2 + inset)
        bx = round(x0 + inset if ax == x0 else (x1 - inset - w if ax == x1 else ax - w / 2))
        by = round(y0 + inset if ay == y0 else (y1 - inset - h if ay == y1 else ay - h / 2))
        inner_box = (bx + 12, by + 6, bx + w - 12, by + h - 6)
        run = TextRun(text, bx + 12, by + 6, inner_box, em, True, "#ffffff", RunKind.NAME)
        colour = model.SEAT_COLOURS[sector.seat]
        tabs.append((model.Rect((bx, by, bx + w, by + h), colour, None, 0, h / 2), run))
        obstacles.append(Obstacle((bx - 2, by - 2, bx + w + 2, by + h + 2)))

    # Sectors in their tints, a closed pool in gold; every band a region carrying its band.
    band_texts: list[TextRun] = []
    for sector in parts:
        seat = sector.seat
        shapes.append(model.Region((*sector.path, centre), model.SEAT_TINTS[seat], seat))
        gold = model.CLOSED_FILL if seat in sheet.closed_pools else None
        bands = [
            (Band(seat, Column.MOUNTAIN), sector.path, 0.0, inner, words["mountain"], None),
            (Band(seat, Column.POOL), sector.path, inner, middle, words["pool"], gold),
        ]
        for path, target in sector.parts:
            caption = words["whists_on"].format(name=names[target])
            bands.append((Band(seat, Column.WHISTS, target), path, middle, 1.0, caption, None))
        for band, path, lo, hi, caption, fill in bands:
            # the part of the ring between two scales that lies over this stretch of the edge
            inside = [scale(p, centre, lo) for p in reversed(path)] if lo > 0 else [centre]
            points = (*(scale(p, centre, hi) for p in path), *inside)
            shapes.append(model.Region(points, fill, seat, band))
            area = Area(points, tuple(obstacles))  # only a closed pool is filled (gold)
            drawn, area, heads = caption_head(band, caption, area, style, fill is not None)
            values = sheet.history.get(band, ())
            items = total_items(band, values, model.SEAT_COLOURS[seat], corrections)
            band_texts += drawn + lay(band, items, area, style, heads)

    # Lines: the concentric rectangles, the sector lines, the whists splits, the frame.
    for s in (middle, inner):
        a, b = scale(frame.sheet[:2], centre, s), scale(frame.sheet[2:], centre, s)
        shapes.append(model.Rect((*a, *b), None, model.THIN, 2))
    for sector in parts:
        for point in sector.splits:
            shapes.append(model.Line(scale(point, centre, middle), point, 2, model.THIN))
        corner = sector.path[0]
        start = scale(corner, centre, frame.radius / math.dist(corner, centre))
        shapes.append(model.Line(start, corner, 3, model.LINE))
    shapes.append(model.Rect(frame.sheet, None, model.LINE, 3))
    shapes.append(model.Circle((cx, cy), r, "#ffffff", model.LINE, 3))
    shapes += [rect for rect, _ in tabs]
    runs = [run for _, run in tabs] + centre_runs + band_texts

    shapes.append(model.Rect(frame.strip, model.STRIP_FILL, model.THIN, 2, 10))
    x0, y0, x1, y1 = frame.strip
    strip_area = Area(((x0 + 8, y0 + 6), (x1 - 8, y0 + 6), (x1 - 8, y1 - 6), (x0 + 8, y1 - 6)))
    runs += strip_runs(sheet, settlement, lang, style, runs, strip_area)
    return model.Layout(model.WIDTH, model.HEIGHT, tuple(shapes), tuple(runs))


def _deal_summary(sheet: Sheet, words: Mapping[str, str]) -> tuple[int, str] | None:
    names = sheet.game.players
    last = next(((s.number, s.record) for s in reversed(sheet.records) if s.number), None)
    if last is None:
        return None
    number, deal = last
    if isinstance(deal, Contract):
        suit = words["no_trump"] if deal.suit is Suit.NO_TRUMP else (deal.suit or "")
        if deal.three_down:
            result = words["three_down"]
        elif not deal.played:
            result = words["half_whist" if Role.HALF in deal.roles else "passed"]
        else:
            result = "=" if deal.result == 0 else f"{deal.result:+d}".replace("-", MINUS_SIGN)
        return number, f"{names[deal.declarer]} {deal.level}{suit} {result}"
    if isinstance(deal, Misere):
        result = "=" if deal.tricks == 0 else words["tricks"].format(count=deal.tricks)
        return number, f"{names[deal.declarer]} {words['misere']} {result}"
    if isinstance(deal, Raspasy):
        tricks = ", ".join(f"{names[p]} {t}" for p, t in deal.tricks)
        return number, f"{words['raspasy']}: {tricks}"
    return None


def strip_runs(
    sheet: Sheet, settlement: Settlement, lang: str, style: Style, drawn: list[TextRun], area: Area
) -> list[TextRun]:
    """The strip in `area`: the convention, the stake, the deals, who deals next, the balances
    (numbers a player reads, at `Style.strip`; its words `Style.words` times that), the rules that
    differ from the preset, the last deal in words and a legend of the marks `drawn` shows. When it
    does not fit, it gives up, one at a time, the rules (`/rules` has them), the last deal (the
    photo's caption has it), the words before the balances, the legend of help, the unit after
    each balance, the legend of corrections, the money (`/score` has it), the legend of folding."""
    game, rules, names = sheet.game, sheet.rules, sheet.game.players
    words = catalog.table(lang, "sheet")
    folded = any(run.kind is RunKind.ELLIPSIS for run in drawn)
    corrected = any(run.kind is RunKind.WRONG for run in drawn)  # not folded away

    def word(text: str, ink: str = INK, kind: RunKind = RunKind.STRIP, bold: bool = False) -> Seg:
        return Seg(text, rel=style.words, bold=bold, color=ink, kind=kind)

    # The convention, the stake, the deals, who deals next (the pool size is in the circle).
    sep = word(" · ", model.MUTED)
    head = [Item((word(words.get(rules.convention, rules.convention), bold=True),))]
    if game.stake is not None:
        stake = format_amount(game.stake, decimals=True, lang=lang)
        head.append(Item((sep, word(words["centre_stake"].format(stake=stake)))))
    head.append(Item((sep, word(words["deals"].format(count=sheet.deals)))))
    if sheet.finished:
        head.append(Item((sep, word(words["finished"], bold=True))))
    else:
        dealer = sheet.next_dealer
        name = word(names[dealer], model.SEAT_COLOURS[dealer], bold=True)
        head.append(Item((sep, word(words["next_dealer"]), name)))
        if sheet.last_round_announced:
            head.append(Item((sep, word(words["last_round"], bold=True))))
    pairs = [f"{key}={value}" for key, value in rules.overrides(game.size).items()]
    overrides = [NEWLINE, Item((word(words["overrides"], model.MUTED),))] if pairs else []
    for i, pair in enumerate(pairs):
        overrides.append(Item((word(pair + (", " if i < len(pairs) - 1 else "")),), gap=0.2))
    last: list[Item] = []
    if (summary := _deal_summary(sheet, words)) is not None:
        number, told = summary
        parts = filter(None, re.split("([♦♥])", told))  # the red suits in red
        segs = [word(part, model.RED if part in "♦♥" else INK) for part in parts]
        label = word(words["last_deal"].format(number=number), model.MUTED)
        last = [NEWLINE, Item((label, *segs))]

    # Some pool or mountain points were given by another player: the replay says so, a sheet
    # made otherwise is read.
    helped = sheet.helped
    if helped is None:
        helped = any(e.reason is Reason.HELP for r in sheet.records for e in r.entries)
    order = ("overrides", "last", "label", "help", "unit", "correction", "money", "folded")
    present = {"help": helped, "correction": corrected, "folded": folded}
    shown = [key for key in order if present.get(key, True)]  # in the order they are given up
    # each gives up one more thing than the one before; giving up more only makes it fit more easily
    tried: dict[int, list[TextRun]] = {}

    def fits(given: int) -> bool:
        plan = set(shown[given:])
        # Each player's balance if the game ended now, in whists and, with a stake, in money.
        items = [*head, *(overrides if "overrides" in plan else []), NEWLINE]
        if "label" in plan:
            label = words["balance_final"] if sheet.finished else words["balance_now"]
            items.append(Item((word(label, model.MUTED),), gap=0.5))
        for seat, balance in enumerate(settlement.balances):
            colour = model.PLUS if balance > 0 else (model.MINUS if balance < 0 else INK)
            amount = format_amount(balance, decimals=True, sign=True, lang=lang)
            segs = [
                word(names[seat] + " ", model.SEAT_COLOURS[seat], bold=True),
                Seg(amount, bold=True, color=colour, kind=RunKind.BALANCE),
            ]
            if "unit" in plan:
                segs.append(word(" " + words["whists_unit"], colour, bold=True))
            if "money" in plan and settlement.money is not None:
                cash = money(settlement.money[seat], lang, signed=True)
                segs.append(Seg(f" ({cash})", color=colour, kind=RunKind.BALANCE))
            items.append(Item(tuple(segs), gap=0.9))
        items += last if "last" in plan else []
        for key in ("folded", "correction", "help"):  # the legend, a line each, in grey words
            if key in plan:
                items.append(NEWLINE)
                items += [
                    Item((word(w, model.MUTED, RunKind.LEGEND),), gap=0.3)
                    for w in words[f"legend_{key}"].split()
                ]
        tried[given] = flow(items, area, *style.strip)
        return bool(tried[given])

    first = fewest(range(len(shown) + 1), fits)
    return [] if first is None else tried[first]
