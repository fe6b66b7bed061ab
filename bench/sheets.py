"""Example games and pictures of the score sheet: `python bench/sheets.py docs/img` (`make sheets`).

Games are seeded random deals replayed by the engine, so the pictures are the same on every run:
3 and 4 players, Russian and English, a short game (a real pool size, one pool closed or nearly) and
a 200-deal game (a pool large enough that the game goes on) to show how crowded bands fold their
oldest totals. Each picture also comes as `…-phone.png`: as a 390-pt phone shows it in a group
chat, 300 px wide in its bubble beside the sender's avatar (at 1 px a point). Two full sheets,
every total (`/sheet full`), are `sheet-*-200-full-ru.png`.
The renderer's tests and `bench/render_bench.py` draw their games from `random_game` too.
"""

from __future__ import annotations

import io
import random
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from PIL import Image, ImageDraw

from bot.sheet import render_document_png, render_sheet_png
from bot.sheet.model import PHONE_BOX, Correction, Corrections
from scoring.deal import Column, Contract, Defender, Misere, Raspasy, Record, Role, Suit
from scoring.errors import IllegalDeal
from scoring.replay import replay
from scoring.rules import rules_for
from scoring.sheet import Band, Game, Sheet

NAMES = ("Anna", "Boris", "Clara", "Dima")
RU_NAMES = ("Аня", "Борис", "Клара", "Дима")
SUITS = (Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.NO_TRUMP)


def random_deal(rng: random.Random, size: int, dealer: int) -> Record:
    """One plausible deal: a quarter raspasy, some misère, contracts of every kind of defence."""
    active = [s for s in range(size) if size == 3 or s != dealer]
    roll = rng.random()
    if roll < 0.25:
        cuts = sorted(rng.sample(range(11), 2))
        tricks = (cuts[0], cuts[1] - cuts[0], 10 - cuts[1])
        return Raspasy(tuple(zip(active, tricks, strict=True)))
    if roll < 0.3:
        return Misere(rng.choice(active), rng.choice((0, 0, 0, 1, 2)))
    declarer = rng.choice(active)
    first, second = sorted(
        (s for s in active if s != declarer), key=lambda s: (s - declarer) % size
    )
    level = rng.choices((6, 7, 8, 9, 10), (40, 30, 15, 10, 5))[0]
    suit = rng.choice(SUITS)
    style = rng.random()
    if style < 0.3:
        passers = (Defender(first, Role.PASS), Defender(second, Role.PASS))
        return Contract(declarer, level, suit, 0, passers)
    if style < 0.4 and level <= 7:
        half = (Defender(first, Role.PASS), Defender(second, Role.HALF))
        return Contract(declarer, level, suit, 0, half)
    result = max(-level, min(10 - level, rng.choice((0, 0, 0, 0, 1, -1, -1, -2))))
    defence = 10 - level - result
    if style < 0.75:
        whister, passer = (first, second) if rng.random() < 0.5 else (second, first)
        one = sorted(
            (Defender(whister, Role.WHIST), Defender(passer, Role.PASS)),
            key=lambda d: (d.player - declarer) % size,
        )
        return Contract(declarer, level, suit, result, tuple(one))
    mine = rng.randint(0, defence)
    two = (Defender(first, Role.WHIST, mine), Defender(second, Role.WHIST, defence - mine))
    return Contract(declarer, level, suit, result, two)


def random_records(size: int, deals: int, seed: int, first_dealer: int = 0) -> list[Record]:
    """`deals` random deals, the dealer moving clockwise from `first_dealer`."""
    rng = random.Random(seed)
    return [random_deal(rng, size, (first_dealer + k) % size) for k in range(deals)]


def random_game(
    size: int,
    deals: int,
    seed: int,
    *,
    convention: str = "sochi",
    pool_target: int | None = None,
    stake: Fraction | None = Fraction(1, 10),
    names: tuple[str, ...] = NAMES,
) -> Sheet:
    """A replayed game of up to `deals` random deals; it stops early if the game ends."""
    options = {} if pool_target is None else {"pool_target": str(pool_target)}
    game = Game(rules_for(convention, size, options), names[:size], 0, stake)
    records = random_records(size, deals, seed)
    try:
        sheet = replay(game, records)
    except IllegalDeal as err:
        if err.code != "game-finished":
            raise
        records = records[: int(err.params["record"])]
        sheet = replay(game, records)
    if sheet.finished:  # keep the picture of a game going on: drop the deal that ended it
        sheet = replay(game, records[:-1])
    return sheet


@dataclass(frozen=True, slots=True)
class Example:
    name: str
    size: int
    lang: str
    deals: int
    convention: str
    pool_target: int | None
    seed: int


EXAMPLES = (
    Example("sheet-3p-short-ru", 3, "ru", 18, "sochi", None, 14),
    Example("sheet-3p-short-en", 3, "en", 18, "sochi", None, 14),
    Example("sheet-4p-short-ru", 4, "ru", 22, "leningrad", None, 6),
    Example("sheet-4p-short-en", 4, "en", 22, "leningrad", None, 6),
    Example("sheet-3p-200-ru", 3, "ru", 200, "sochi", 500, 7),
    Example("sheet-3p-200-en", 3, "en", 200, "sochi", 500, 7),
    Example("sheet-4p-200-ru", 4, "ru", 200, "sochi", 500, 7),
    Example("sheet-4p-200-en", 4, "en", 200, "sochi", 500, 7),
)


def example_sheet(ex: Example) -> Sheet:
    """The example's game, its players named in its language."""
    names = RU_NAMES if ex.lang == "ru" else NAMES
    return random_game(
        ex.size,
        ex.deals,
        ex.seed,
        convention=ex.convention,
        pool_target=ex.pool_target,
        names=names,
    )


def corrected_mountain(sheet: Sheet, seat: int = 0) -> Corrections:
    """A correction of the seat's last mountain value but one (first written 10 higher),
    numbered 1, and one of a later record that no longer writes in the mountain (a 44 corrected
    away): recent, so that the chat's picture, which folds a crowded band's oldest totals, shows
    them."""
    band = Band(seat, Column.MOUNTAIN)
    values = sheet.history[band]
    record, right = values[-2]
    written = {r for r, _ in values}
    away = max(i for i in range(len(sheet.records)) if i not in written)
    return {(band, record): Correction(right + 10, 1), (band, away): Correction(Fraction(44), 2)}


def write_examples(directory: Path) -> list[Path]:
    """Every example picture with its phone view, two more: a Russian 3-player sheet with a
    corrected mountain, an English 4-player one with help (each with its legend), and the full
    sheets of the 200-deal Russian games."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    corrected = random_game(3, 18, 14, names=RU_NAMES)
    helped = random_game(4, 30, 0, pool_target=10)
    for name, sheet, lang, corrections in (
        ("sheet-3p-corrected-ru", corrected, "ru", corrected_mountain(corrected, seat=2)),
        ("sheet-4p-help-en", helped, "en", None),
    ):
        paths += _write(directory, name, render_sheet_png(sheet, lang, corrections=corrections))
    for ex in EXAMPLES:
        paths += _write(directory, ex.name, render_sheet_png(example_sheet(ex), ex.lang))
        if ex.deals == 200 and ex.lang == "ru":
            path = directory / f"{ex.name.removesuffix('-ru')}-full-ru.png"
            path.write_bytes(render_document_png(sheet, ex.lang))
            paths.append(path)
    return paths


PHONE_WIDTH = 390  # pt, the phone's screen
CHAT = "#dfe7ee"  # a chat's background
BUBBLE_X = 46  # pt from the screen's left: the avatar and its margins


def phone_view(png: bytes) -> Image.Image:
    """The picture as a 390-pt phone shows it in a chat: fitted into Telegram's photo box
    (`PHONE_BOX`, 300×380), in a bubble beside the sender's avatar, 1 px a point."""
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    scale = min(PHONE_BOX[0] / picture.width, PHONE_BOX[1] / picture.height)
    size = (round(picture.width * scale), round(picture.height * scale))
    shown = picture.resize(size, Image.Resampling.LANCZOS)
    view = Image.new("RGB", (PHONE_WIDTH, size[1] + 24), CHAT)
    draw = ImageDraw.Draw(view)
    draw.rounded_rectangle((BUBBLE_X - 2, 10, BUBBLE_X + size[0] + 2, 14 + size[1]), 14, "#ffffff")
    view.paste(shown, (BUBBLE_X, 12))
    draw.ellipse((6, size[1] - 22, 38, size[1] + 10), "#2481cc")  # the bot's avatar
    return view


def _write(directory: Path, name: str, png: bytes) -> list[Path]:
    path = directory / f"{name}.png"
    path.write_bytes(png)
    phone = directory / f"{name}-phone.png"
    phone_view(png).quantize(256, dither=Image.Dither.NONE).save(phone, optimize=True)
    return [path, phone]


def main(argv: list[str]) -> int:
    directory = Path(argv[0] if argv else "docs/img")
    for path in write_examples(directory):
        print(f"{path}  {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
