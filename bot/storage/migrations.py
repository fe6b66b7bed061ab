"""The SQLite schema as numbered migrations (`schema_migrations` records which ran); append one to
change the schema, never edit one that shipped. Payloads are JSON, so new event kinds need none."""

from __future__ import annotations

from typing import Final

# Version of the JSON payloads written now; stored with every event.
EVENT_SCHEMA_VERSION: Final = 1

# The outbox's columns after its kind, in migration 4 and in its rebuild in migration 6.
_OUTBOX_REST: Final = """        text TEXT NOT NULL,
        lang TEXT NOT NULL,
        markup TEXT,
        game_id INTEGER,
        seq INTEGER,
        target INTEGER,
        reply_to INTEGER,
        body BLOB,
        filename TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        not_before REAL NOT NULL DEFAULT 0,
        claimed_by TEXT,
        claimed_until REAL,
        sent_at REAL,
        message_id INTEGER,
        error TEXT
"""

MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: games, the append-only event log, chats, processed updates, members.
    """
    CREATE TABLE games (
        game_id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('forming', 'playing', 'ended')),
        created_by INTEGER,
        created_at TEXT NOT NULL,
        sheet_message_id INTEGER
    );
    CREATE UNIQUE INDEX games_one_live_per_chat ON games (chat_id) WHERE status != 'ended';
    CREATE INDEX games_by_chat ON games (chat_id, game_id);

    CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games (game_id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL CHECK (json_valid(payload)),
        author INTEGER,
        at TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER events_are_never_changed BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

    CREATE TABLE members (
        game_id INTEGER NOT NULL REFERENCES games (game_id),
        user_id INTEGER NOT NULL,
        PRIMARY KEY (game_id, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX members_by_user ON members (user_id);

    CREATE TABLE chats (
        chat_id INTEGER PRIMARY KEY,
        locale TEXT,
        title TEXT
    );

    CREATE TABLE processed_updates (
        update_id INTEGER PRIMARY KEY,
        at TEXT NOT NULL
    );
    """,
    # each processed update keeps its chat and message, so that an update_id that comes
    # back for another message (a new Bot API server, an old database) is told apart from a real
    # duplicate; rows are pruned by time past Telegram's redelivery horizon.
    """
    ALTER TABLE processed_updates ADD COLUMN chat_id INTEGER;
    ALTER TABLE processed_updates ADD COLUMN message_id INTEGER;
    CREATE INDEX IF NOT EXISTS processed_updates_by_time ON processed_updates (at);
    """,
    # the lease of the one vote clock among instances; aiogram FSM rows (the /deal steps).
    """
    CREATE TABLE IF NOT EXISTS leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS fsm (
        key TEXT PRIMARY KEY,
        state TEXT,
        data TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(data))
    );
    """,
    # the outbox: what the bot owes the chats (docs/architecture.md "Delivery").
    f"""
    CREATE TABLE IF NOT EXISTS outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('text', 'sheet', 'redraw', 'vote', 'document')),
{_OUTBOX_REST}    );
    CREATE INDEX IF NOT EXISTS outbox_owed ON outbox (chat_id, id) WHERE sent_at IS NULL;
    """,
    # games are numbered per chat ("Game #1" in a group's first game)
    """
    ALTER TABLE games ADD COLUMN number INTEGER;
    UPDATE games SET number = (
        SELECT COUNT(*) FROM games AS g WHERE g.chat_id = games.chat_id AND g.game_id <= games.game_id
    );
    """,
    # the chat's time zone (NULL: the one of its language); a summary of each ended game, a cache
    # of its log made by one engine (`bot.core.stats`); the outbox owes photos too (/top), so
    # it is rebuilt with the wider CHECK, its ids and their sequence kept.
    f"""
    ALTER TABLE chats ADD COLUMN time_zone TEXT;
    CREATE TABLE IF NOT EXISTS game_summaries (
        game_id INTEGER PRIMARY KEY REFERENCES games (game_id),
        engine TEXT NOT NULL,
        summary TEXT NOT NULL CHECK (json_valid(summary))
    ) WITHOUT ROWID;
    ALTER TABLE outbox RENAME TO outbox_before_photos;
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        kind TEXT NOT NULL
            CHECK (kind IN ('text', 'sheet', 'redraw', 'vote', 'document', 'photo')),
{_OUTBOX_REST}    );
    INSERT INTO outbox SELECT * FROM outbox_before_photos;
    INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox', 0
        WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'outbox');
    UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE(
        (SELECT seq FROM sqlite_sequence WHERE name = 'outbox_before_photos'), 0))
        WHERE name = 'outbox';
    DROP TABLE outbox_before_photos;
    CREATE INDEX IF NOT EXISTS outbox_owed ON outbox (chat_id, id) WHERE sent_at IS NULL;
    """,
    # settling up: accounts that started the bot in private (the bot may write to them there),
    # each chat's reminder of open debts, and the debt events found without reading whole logs.
    """
    CREATE TABLE IF NOT EXISTS accounts (
        user_id INTEGER PRIMARY KEY,
        started_at TEXT NOT NULL,
        lang TEXT NOT NULL,
        username TEXT
    );
    CREATE INDEX IF NOT EXISTS accounts_by_username ON accounts (lower(username));
    CREATE TABLE IF NOT EXISTS reminders (
        chat_id INTEGER PRIMARY KEY,
        every_seconds INTEGER NOT NULL CHECK (every_seconds > 0),
        last_at TEXT
    );
    CREATE INDEX IF NOT EXISTS events_of_debts ON events (game_id, seq)
        WHERE kind IN ('debt_opened', 'debt_marked');
    """,
    # snapshots, a cache of each game's fold and replay at one seq (bot/core/snapshots.py):
    # never the truth, ignored when of another engine version; the events stay the game.
    """
    CREATE TABLE IF NOT EXISTS snapshots (
        game_id INTEGER PRIMARY KEY REFERENCES games (game_id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        version TEXT NOT NULL,
        data BLOB NOT NULL,
        at TEXT NOT NULL
    );
    """,
    # a forum topic is a table of its own (one live game per chat and topic; 0: the chat
    # itself or the General topic), and what is owed there goes to the topic; tournaments: an
    # index row each and an append-only log, and which tournament a table plays in.
    """
    ALTER TABLE games ADD COLUMN thread_id INTEGER NOT NULL DEFAULT 0;
    DROP INDEX IF EXISTS games_one_live_per_chat;
    CREATE UNIQUE INDEX games_one_live_per_table ON games (chat_id, thread_id)
        WHERE status != 'ended';
    ALTER TABLE outbox ADD COLUMN thread_id INTEGER;
    CREATE TABLE IF NOT EXISTS tournaments (
        tournament_id INTEGER PRIMARY KEY AUTOINCREMENT,
        code TEXT NOT NULL UNIQUE,
        home_chat_id INTEGER NOT NULL,
        home_thread_id INTEGER NOT NULL DEFAULT 0,
        created_by INTEGER,
        created_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS tournament_events (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL CHECK (json_valid(payload)),
        author INTEGER,
        at TEXT NOT NULL,
        PRIMARY KEY (tournament_id, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER tournament_events_are_never_changed BEFORE UPDATE ON tournament_events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    CREATE TRIGGER tournament_events_are_never_deleted BEFORE DELETE ON tournament_events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    CREATE TABLE IF NOT EXISTS tournament_tables (
        chat_id INTEGER NOT NULL,
        thread_id INTEGER NOT NULL DEFAULT 0,
        tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
        PRIMARY KEY (chat_id, thread_id)
    ) WITHOUT ROWID;
    """,
)
