"""aiogram routers, one per module, in the order the dispatcher includes them."""

from aiogram import Router

from bot.telegram.inbound.handlers import (
    archive,
    calc,
    chat,
    deal,
    deal_steps,
    debts,
    endgame,
    errors,
    help,
    inline,
    newgame,
    settings,
    start,
    stats,
    timezone,
    tournament,
    view,
    votes,
)

# The chat's own events first, then commands; the errors router sees every failure.
ROUTERS: tuple[Router, ...] = (
    chat.router,
    newgame.router,
    tournament.router,  # /tournament, /standings, and /history TABLE N at a tournament's home
    deal_steps.router,  # `/deal` alone, before deal.router takes `/deal …`
    deal.router,
    view.router,
    archive.router,  # /games, /game N and their buttons
    stats.router,  # /stats, /top, /me
    endgame.router,
    votes.router,  # /dispute, /arbiter and every vote's buttons
    debts.router,  # /debts, /paid, /remind and the "✅ paid" buttons
    settings.router,
    timezone.router,
    calc.router,  # /calc: a paper sheet settled; keeps nothing
    start.router,  # /start (deep links) and the greeting when added to a group
    help.router,  # /help and its topic buttons
    inline.router,  # @bot in any chat: a deal's price, the sender's games to share
    errors.router,
)

__all__ = ["ROUTERS"]
