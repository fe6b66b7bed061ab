"""`python -m bot backup FILE`: a consistent copy of the running bot's SQLite database.

A `cp` loses what is still in the write-ahead log and may catch a page half written; SQLite's
online backup copies every page as of one moment without stopping the bot's writes. The copy is
made self-contained (journal mode DELETE), checked, synced, and only then renamed to FILE. On
PostgreSQL the pg_dump command is printed instead. Exit status: 0 copied and checked; 2 not.
"""

import contextlib
import os
import sqlite3
import sys
from pathlib import Path
from typing import Final

from bot.settings import storage_settings

EXIT_REFUSED: Final = 2


class Refused(Exception):
    """Nothing was copied (by `backup` or `migrate-db`); the message is the one line to show."""


def backup_sqlite(source: Path, target: Path) -> str:
    """Copy the database `source` to `target` (replaced if it exists); the summary line."""
    if not source.is_file():
        raise Refused(f"there is no database file {source}")
    if not target.parent.is_dir():
        raise Refused(f"{target}: its folder {target.parent} does not exist")
    if target.exists() and target.resolve() == source.resolve():
        raise Refused(f"{target} is the database itself: name another file")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        with (
            contextlib.closing(sqlite3.connect(source, timeout=30.0)) as src,
            contextlib.closing(sqlite3.connect(partial, isolation_level=None)) as dst,
        ):
            src.backup(dst)  # in one step: the copy is of one moment
            dst.execute("PRAGMA journal_mode = DELETE")
            found = [str(row[0]) for row in dst.execute("PRAGMA quick_check")]
            if found != ["ok"]:
                raise sqlite3.DatabaseError(f"the copy fails quick_check: {found[0]}")
            games = dst.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            events = dst.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            schema = dst.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
            version = schema.fetchone()[0]
        _sync(partial)
        os.replace(partial, target)
        _sync(target.parent)  # the rename
    except sqlite3.Error as error:
        raise Refused(f"{source} could not be copied: {error}") from None
    finally:
        partial.unlink(missing_ok=True)
    return f"{games} games, {events} events, schema version {version}; quick_check ok"


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main(target: Path) -> int:
    settings = storage_settings()
    if settings.database_url is not None:  # what to run instead, the password left unprinted
        dump = f"pg_dump --format=custom --file={target}"
        note = "pg_dump reads PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE itself"
        if not settings.database_setting().startswith("PGHOST="):  # DATABASE_URL, not from PG*
            dump += ' --dbname="$DATABASE_URL"'
            note = "with DATABASE_URL set in the shell as the bot has it"
        lines = [
            f"# The bot's database is PostgreSQL ({settings.database_setting()}): back it up with",
            f"# PostgreSQL's own pg_dump ({note}); it runs while the bot does:",
            dump,
            "# Restore into an empty database (the bot stopped):",
            f"#   pg_restore --no-owner --dbname=... {target}",
        ]
        print("\n".join(lines))
        print("backup: nothing copied: the database is PostgreSQL (see above)", file=sys.stderr)
        return EXIT_REFUSED
    try:
        summary = backup_sqlite(settings.database_path, target)
    except Refused as error:
        print(f"backup: nothing copied: {error}", file=sys.stderr)
        return EXIT_REFUSED
    print(f"backup: DATABASE_PATH={settings.database_path} copied to {target}: {summary}")
    return 0
