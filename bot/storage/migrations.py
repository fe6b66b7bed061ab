"""The schema as numbered migrations (`schema_migrations` records which ran), one text for SQLite
and PostgreSQL: `{id}` bigint, `{time}` timestamptz, `{json}` json (kept as written; `jsonb` would
reorder keys) on PostgreSQL. Append one to change the schema, never edit one that shipped.
Payloads are JSON, so new event kinds need none."""

import re
from typing import Final

# Version of the JSON payloads written now; stored with every event.
EVENT_SCHEMA_VERSION: Final = 1

# The outbox, as migration 4 makes it and as migration 6 rebuilds it on SQLite with photos too.
_OUTBOX: Final = """    CREATE TABLE IF NOT EXISTS outbox (
        id {serial},
        chat_id {id} NOT NULL,
        kind TEXT NOT NULL
            CHECK (kind IN ('text', 'sheet', 'redraw', 'vote', 'document'{photo})),
        text TEXT NOT NULL,
        lang TEXT NOT NULL,
        markup TEXT,
        game_id {id},
        seq INTEGER,
        target {id},
        reply_to {id},
        body {blob},
        filename TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        not_before {real} NOT NULL DEFAULT 0,
        claimed_by TEXT,
        claimed_until {real},
        sent_at {real},
        message_id {id},
        error TEXT
    );
"""

_MIGRATIONS: Final = (
    # 1: games, the append-only event log, chats, processed updates, members.
    """
    CREATE TABLE games (
        game_id {serial},
        chat_id {id} NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('forming', 'playing', 'ended')),
        created_by {id},
        created_at {time} NOT NULL,
        sheet_message_id {id}
    );
    CREATE UNIQUE INDEX games_one_live_per_chat ON games (chat_id) WHERE status != 'ended';
    CREATE INDEX games_by_chat ON games (chat_id, game_id);

    CREATE TABLE events (
        game_id {id} NOT NULL REFERENCES games (game_id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        payload {json} NOT NULL CHECK (json_valid(payload)),
        author {id},
        at {time} NOT NULL,
        schema_version INTEGER NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
{append_only_function}{events_append_only}
    CREATE TABLE members (
        game_id {id} NOT NULL REFERENCES games (game_id),
        user_id {id} NOT NULL,
        PRIMARY KEY (game_id, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX members_by_user ON members (user_id);

    CREATE TABLE chats (
        chat_id {id} PRIMARY KEY,
        locale TEXT,
        title TEXT
    );

    CREATE TABLE processed_updates (
        update_id {id} PRIMARY KEY,
        at {time} NOT NULL
    );
    """,
    # each processed update keeps its chat and message, so that an update_id that comes
    # back for another message (a new Bot API server, an old database) is told apart from a real
    # duplicate; rows are pruned by time past Telegram's redelivery horizon.
    """
    ALTER TABLE processed_updates ADD COLUMN chat_id {id};
    ALTER TABLE processed_updates ADD COLUMN message_id {id};
    CREATE INDEX IF NOT EXISTS processed_updates_by_time ON processed_updates (at);
    """,
    # the lease of the one vote clock among instances; aiogram FSM rows (the /deal steps).
    """
    CREATE TABLE IF NOT EXISTS leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at {time} NOT NULL
    );
    CREATE TABLE IF NOT EXISTS fsm (
        key TEXT PRIMARY KEY,
        state TEXT,
        data {json} NOT NULL DEFAULT '{{}}' CHECK (json_valid(data))
    );
    """,
    # the outbox: what the bot owes the chats (docs/architecture.md "Delivery").
    """
{outbox}    CREATE INDEX IF NOT EXISTS outbox_owed ON outbox (chat_id, id) WHERE sent_at IS NULL;
    """,
    # games are numbered per chat ("Game #1" in a group's first game)
    """
    ALTER TABLE games ADD COLUMN number INTEGER;
    UPDATE games SET number = (
        SELECT COUNT(*) FROM games AS g WHERE g.chat_id = games.chat_id AND g.game_id <= games.game_id
    );
    """,
    # the chat's time zone (NULL: the one of its language); a summary of each ended game, a cache
    # of its log made by one engine (`bot.core.stats`); the outbox owes photos too (/top).
    """
    ALTER TABLE chats ADD COLUMN time_zone TEXT;
    CREATE TABLE IF NOT EXISTS game_summaries (
        game_id {id} PRIMARY KEY REFERENCES games (game_id),
        engine TEXT NOT NULL,
        summary {json} NOT NULL CHECK (json_valid(summary))
    ) WITHOUT ROWID;
{outbox_photos}""",
    # settling up: accounts that started the bot in private (the bot may write to them there),
    # each chat's reminder of open debts, and the debt events found without reading whole logs.
    """
    CREATE TABLE IF NOT EXISTS accounts (
        user_id {id} PRIMARY KEY,
        started_at {time} NOT NULL,
        lang TEXT NOT NULL,
        username TEXT
    );
    CREATE INDEX IF NOT EXISTS accounts_by_username ON accounts (lower(username));
    CREATE TABLE IF NOT EXISTS reminders (
        chat_id {id} PRIMARY KEY,
        every_seconds INTEGER NOT NULL CHECK (every_seconds > 0),
        last_at {time}
    );
    CREATE INDEX IF NOT EXISTS events_of_debts ON events (game_id, seq)
        WHERE kind IN ('debt_opened', 'debt_marked');
    """,
    # snapshots, a cache of each game's fold and replay at one seq: never the truth.
    """
    CREATE TABLE IF NOT EXISTS snapshots (
        game_id {id} PRIMARY KEY REFERENCES games (game_id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        version TEXT NOT NULL,
        data {blob} NOT NULL,
        at {time} NOT NULL
    );
    """,
    # a forum topic is a table of its own (one live game per chat and topic; 0: the chat
    # itself or the General topic), and what is owed there goes to the topic; tournaments: an
    # index row each and an append-only log, and which tournament a table plays in.
    """
    ALTER TABLE games ADD COLUMN thread_id {id} NOT NULL DEFAULT 0;
    DROP INDEX IF EXISTS games_one_live_per_chat;
    CREATE UNIQUE INDEX games_one_live_per_table ON games (chat_id, thread_id)
        WHERE status != 'ended';
    ALTER TABLE outbox ADD COLUMN thread_id {id};
    CREATE TABLE IF NOT EXISTS tournaments (
        tournament_id {serial},
        code TEXT NOT NULL UNIQUE,
        home_chat_id {id} NOT NULL,
        home_thread_id {id} NOT NULL DEFAULT 0,
        created_by {id},
        created_at {time} NOT NULL
    );
    CREATE TABLE IF NOT EXISTS tournament_events (
        tournament_id {id} NOT NULL REFERENCES tournaments (tournament_id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        payload {json} NOT NULL CHECK (json_valid(payload)),
        author {id},
        at {time} NOT NULL,
        PRIMARY KEY (tournament_id, seq)
    ) WITHOUT ROWID;
{tournament_events_append_only}
    CREATE TABLE IF NOT EXISTS tournament_tables (
        chat_id {id} NOT NULL,
        thread_id {id} NOT NULL DEFAULT 0,
        tournament_id {id} NOT NULL REFERENCES tournaments (tournament_id),
        PRIMARY KEY (chat_id, thread_id)
    ) WITHOUT ROWID;
    """,
)

_SQLITE_APPEND_ONLY: Final = """    CREATE TRIGGER {table}_are_never_changed BEFORE UPDATE ON {table}
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    CREATE TRIGGER {table}_are_never_deleted BEFORE DELETE ON {table}
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""
_PG_APPEND_ONLY: Final = """    CREATE TRIGGER {table}_are_never_changed BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
    CREATE TRIGGER {table}_are_never_truncated BEFORE TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
"""
_PG_APPEND_ONLY_FUNCTION: Final = """    CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'events are append-only' USING ERRCODE = 'restrict_violation';
    END;
    $$;
"""
# SQLite's outbox is rebuilt with the wider CHECK, its ids and their sequence kept.
_SQLITE_OUTBOX_PHOTOS: Final = """    ALTER TABLE outbox RENAME TO outbox_before_photos;
{photo_outbox}    INSERT INTO outbox SELECT * FROM outbox_before_photos;
    INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox', 0
        WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'outbox');
    UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE(
        (SELECT seq FROM sqlite_sequence WHERE name = 'outbox_before_photos'), 0))
        WHERE name = 'outbox';
    DROP TABLE outbox_before_photos;
    CREATE INDEX IF NOT EXISTS outbox_owed ON outbox (chat_id, id) WHERE sent_at IS NULL;
    """
_PG_OUTBOX_PHOTOS: Final = """    ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_kind_check;
    ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
        CHECK (kind IN ('text', 'sheet', 'redraw', 'vote', 'document', 'photo'));
    """


def _scripts(words: dict[str, str]) -> tuple[str, ...]:
    """The migrations in one dialect: `words` are its column types and its own statements."""
    words["outbox"] = _OUTBOX.format_map({**words, "photo": ""})
    words["photo_outbox"] = _OUTBOX.format_map({**words, "photo": ", 'photo'"})
    words["outbox_photos"] = words["outbox_photos"].format_map(words)
    for table in ("events", "tournament_events"):
        words[f"{table}_append_only"] = words["append_only"].format(table=table)
    return tuple(script.format_map(words) for script in _MIGRATIONS)


# Each word of the migrations in SQLite and in PostgreSQL.
_WORDS: Final = {
    "serial": (
        "INTEGER PRIMARY KEY AUTOINCREMENT",
        "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    ),
    "id": ("INTEGER", "bigint"),
    "time": ("TEXT", "timestamptz"),
    "json": ("TEXT", "json"),
    "real": ("REAL", "double precision"),
    "blob": ("BLOB", "bytea"),
    "append_only_function": ("", _PG_APPEND_ONLY_FUNCTION),
    "append_only": (_SQLITE_APPEND_ONLY, _PG_APPEND_ONLY),
    "outbox_photos": (_SQLITE_OUTBOX_PHOTOS, _PG_OUTBOX_PHOTOS),
}
MIGRATIONS: Final = _scripts({word: both[0] for word, both in _WORDS.items()})
# PostgreSQL's json type checks its values itself, and its tables have no rowid.
PG_MIGRATIONS: Final = tuple(
    re.sub(r" CHECK \(json_valid\(\w+\)\)", "", script).replace(" WITHOUT ROWID", "")
    for script in _scripts({word: both[1] for word, both in _WORDS.items()})
)
