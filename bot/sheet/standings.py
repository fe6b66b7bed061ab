"""The standings as a picture (/top, a tournament's /standings): a row per player, best first."""

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from PIL import Image, ImageDraw

from bot.sheet import encode_png, model
from bot.sheet.model import INK, MINUS, MUTED, PLUS, STRIP_FILL, THIN, drawing_lock, font
from locales import catalog, numbers

WIDTH: Final = 720
PAD: Final = 28
TOP: Final = 128  # the title and subtitle above the first row
ROW: Final = 104
NAME_X: Final = 84
MOST_ROWS: Final = 20  # more players are told as "… and N more"
TITLE_SIZE, SUBTITLE_SIZE, NAME_SIZE, DETAIL_SIZE = 38, 24, 30, 23
BAR_HEIGHT: Final = 14


@dataclass(frozen=True, slots=True)
class StandingRow:
    place: int
    name: str
    total: Fraction  # whists
    games: int
    average: Fraction
    rating: int | None = None  # a tournament's standings have none


def render_standings_png(
    rows: Sequence[StandingRow], lang: str = "ru", title: str = "", subtitle: str = ""
) -> bytes:
    """The standings as PNG bytes, 720 px wide (names above 15 px on a 390 px screen): a row per
    player of place, name, total, a bar from a zero line, his games, average and rating."""
    words = dict(catalog.table(lang, "standings"))
    shown = list(rows[:MOST_ROWS])
    more = len(rows) - len(shown)
    height = TOP + ROW * max(len(shown), 1) + (48 if more else 0) + PAD
    image = Image.new("RGB", (WIDTH, height), model.BACKGROUND)
    # The zero line between the name column and the edge, and px per whist.
    high = max((max(r.total, Fraction(0)) for r in shown), default=Fraction(0))
    low = max((max(-r.total, Fraction(0)) for r in shown), default=Fraction(0))
    scale = (WIDTH - PAD - NAME_X) / float(high + low) if high + low else 0.0
    zero = NAME_X + float(low) * scale
    with drawing_lock:
        draw = ImageDraw.Draw(image)
        draw.text((PAD, 24), title, fill=INK, font=font(TITLE_SIZE, True))
        draw.text((PAD, 78), subtitle, fill=MUTED, font=font(SUBTITLE_SIZE))
        if not shown:
            draw.text((PAD, TOP + 30), words["empty"], fill=MUTED, font=font(NAME_SIZE))
        face = font(NAME_SIZE, True)
        for index, row in enumerate(shown):
            top = TOP + index * ROW
            if index % 2:
                draw.rectangle((0, top, WIDTH, top + ROW - 1), fill=STRIP_FILL)
            draw.text((PAD, top + 14), str(row.place), fill=MUTED, font=face)
            total = numbers.decimal(row.total, lang, signed=True)
            ink = PLUS if row.total > 0 else MINUS if row.total < 0 else INK
            draw.text((WIDTH - PAD, top + 14), total, fill=ink, font=face, anchor="ra")
            room = WIDTH - PAD - face.getlength(total) - 20 - NAME_X
            name = row.name
            if face.getlength(name) > room:  # cut with "…" until it fits
                while name and face.getlength(name + "…") > room:
                    name = name[:-1]
                name += "…"
            draw.text((NAME_X, top + 14), name, fill=INK, font=face)
            bar_top = top + 56
            if scale:
                draw.line((zero, bar_top - 4, zero, bar_top + BAR_HEIGHT + 4), fill=THIN, width=2)
            if scale and row.total:
                left, right = sorted((zero, zero + float(row.total) * scale))
                draw.rectangle((left, bar_top, right, bar_top + BAR_HEIGHT), fill=ink)
            games = str(row.games)
            detail = words["detail" if row.rating is not None else "detail-unrated"].format(
                games=f"{games} {catalog.plural(lang, 'game', games)}",
                average=numbers.decimal(row.average, lang, signed=True),
                rating=row.rating,
            )
            draw.text((NAME_X, top + 74), detail, fill=MUTED, font=font(DETAIL_SIZE))
        if more:
            text = f"… +{more}"
            draw.text((NAME_X, TOP + ROW * len(shown) + 8), text, fill=MUTED, font=font(26))
    return encode_png(image)
