"""After a start, the games in play are made warm before their players' next deal arrives.

A process that has just started keeps nothing of a game: its first deal would read the game back
from its snapshot and the log's tail, then have its picture drawn from nothing (every band of a
long sheet laid out, every tile drawn), several times what a deal costs once the game is kept.
Players in the middle of a game feel that deal; so the bot does the same work first, in the
background, for the games whose last event is recent: it reads each game into the caches
(`Core.fold`) and has its current picture drawn where the game's next one will be drawn (its
painter child, or the kept canvas of this process), which keeps the picture and its bands'
layout. The game's next deal then only redraws what it changed.

"Recent" is the painters' idle time (`RECENT`, `bot.sheet.canvas.IDLE`): a picture kept longer without a
new one is dropped, so warming an older game would be undone. At most `WARM_GAMES` games are
warmed, the latest first, so that the warmed pictures stay within what the painters may keep.
A game is warmed in the chat's chosen language, else the bot's default (a chat whose players
write in another language gets its first picture drawn cold, as without the warm-up).

Nothing here writes: a deal that arrives while its game is warmed is taken as usual (the chat's
lock is not held), and a game that cannot be read or drawn is only logged.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Final

from bot.core.service import GameService
from bot.telegram.outbound.outbox import render_png

if TYPE_CHECKING:
    from bot.sheet.painter import Painter

log = logging.getLogger(__name__)

# Seconds since a game's last event for it to be warmed: the painters' idle time
# (`bot.sheet.canvas.IDLE`, which a test holds it equal to; the picture is optional, so not
# imported from there).
RECENT: Final = 15 * 60.0


@dataclass(frozen=True, slots=True)
class Warmed:
    """What a warm-up did: games read into the caches, and pictures drawn."""

    games: int
    pictures: int


async def warm_up(
    game: GameService,
    painter: Painter | None,
    default_locale: str,
    limit: int,
    now: datetime,
    pictures: bool = True,
) -> Warmed:
    """Read the games in play (a last event within `RECENT` of `now`, at most `limit`, the latest
    first) into the caches and draw each one's current picture (with `pictures`)."""
    if limit <= 0:
        return Warmed(0, 0)
    try:
        async with game.store.reading() as repo:
            rows = await repo.recent_games(now - timedelta(seconds=RECENT), limit)
            langs = {row.chat_id: await repo.chat_locale(row.chat_id) for row in rows}
    except Exception:
        log.exception("warm-up: the games in play could not be listed")
        return Warmed(0, 0)
    games = drawn = 0
    for row in rows:
        try:
            async with game.store.reading() as repo:
                state = await game.core.fold(repo, row)
            games += 1
            if not pictures or state.rules is None:
                continue
            sheet = game.sheet(state)
            settlement = game.settlement(state, sheet)
            lang = langs[row.chat_id] or default_locale
            if await render_png(sheet, lang, settlement, game, state, painter) is not None:
                drawn += 1
        except Exception:  # a warm-up is a help: a game it cannot warm is warmed by its deal
            log.exception("warm-up: game %s could not be warmed", row.game_id)
    log.info("warm-up: %d game(s) read, %d picture(s) drawn", games, drawn)
    return Warmed(games, drawn)
