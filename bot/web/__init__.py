"""The Mini App: the live sheet inside Telegram, served by aiohttp in the bot process."""
