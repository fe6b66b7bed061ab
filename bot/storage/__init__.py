"""Storage: the `bot.domain` port on SQLite and PostgreSQL."""

from bot.storage.sqlite import SqliteStore as SqliteStore
