"""The Mini App: the live sheet inside Telegram, served by aiohttp in the bot process.

`server.build_web_app` is the application (the page at `/app`, the JSON API under `/api/`,
`/healthz`); `auth` checks Telegram's signed `initData`, `api` answers, `svg` draws the sheet from the
same layout as the PNG, `links` makes the "Open the live sheet" button. No handler is imported here.
"""
