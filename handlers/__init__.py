"""The design card's top-level name: the routers live in `bot.telegram.inbound.handlers`."""

from bot.telegram.inbound.handlers import ROUTERS as ROUTERS
