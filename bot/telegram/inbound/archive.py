"""The standings as pictures (/top, a tournament's /standings), drawn in the picture thread."""

import logging
from fractions import Fraction

from bot.core.stats import ChatStats
from bot.core.tournaments import Standings
from bot.texts.i18n import Translator
from bot.texts.stats import filter_text
from bot.texts.views import plain_text
from scoring.tournament import shown_places

try:
    from bot.sheet import in_picture_thread
    from bot.sheet.standings import StandingRow, render_standings_png
except ImportError:  # the picture is optional: /top's text stands alone
    render_standings_png = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


async def _drawn(rows: list[StandingRow], lang: str, title: str, subtitle: str) -> bytes | None:
    if not rows:
        return None
    try:
        return await in_picture_thread(render_standings_png, rows, lang, title, subtitle)
    except Exception:
        log.exception("the standings could not be drawn; sending them as text")
        return None


async def tournament_png(t: Translator, standings: Standings) -> bytes | None:
    """A tournament's standings as a picture (a shared total shares its place)."""
    if render_standings_png is None:
        return None
    rows: list[StandingRow] = []
    for place, line in zip(shown_places(standings.lines), standings.lines, strict=True):
        average = line.total / line.games if line.games else Fraction(0)
        name = standings.names.get(line.player, "?")
        rows.append(StandingRow(place, name, line.total, line.games, average))
    return await _drawn(rows, t.lang, standings.tournament.name, t.count(standings.played, "game"))


async def standings_png(t: Translator, stats: ChatStats) -> bytes | None:
    """The /top picture, drawn in a worker thread; None without Pillow or when it fails."""
    if render_standings_png is None:
        return None
    rows = [
        StandingRow(place, p.name, p.tally.total, p.tally.games, p.tally.average, round(p.rating))
        for place, p in enumerate(stats.players, start=1)
    ]
    subtitle = f"{plain_text(filter_text(t, stats.filter))} · {t.count(len(stats.games), 'game')}"
    return await _drawn(rows, t.lang, t.template("top-picture-title"), subtitle)
