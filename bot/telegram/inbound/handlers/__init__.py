"""aiogram routers, one per module, in the order the dispatcher includes them."""

from aiogram import Router

from bot.telegram.inbound.handlers import calc, deal, errors, newgame, start, stats, view

# The chat's own events first, then commands; the errors router sees every failure.
ROUTERS: tuple[Router, ...] = (
    start.router,  # a group's upgrade, /start (deep links), the greetings, /help, /lang, /tz
    newgame.router,  # and /tournament, /standings, /history TABLE N at a tournament's home
    deal.router,  # `/deal` alone (its steps) before `/deal …`; /endgame, /dispute, /arbiter, votes
    view.router,  # the looks, /games, /game N and their buttons; @bot in any chat (inline)
    stats.router,  # /stats, /top, /me; /debts, /paid, /remind and the "✅ paid" buttons
    calc.router,  # /calc: a paper sheet settled; keeps nothing
    errors.router,
)
