"""`python -m bot migrate-db --from sqlite:///… [--to postgresql://…]`: a SQLite database copied
into an empty PostgreSQL one (by default the bot's own) in one transaction, committed only when the
counts, every game's events and every started game's sheet read back equal.
Exit status: 0 copied and verified; 1 the verification failed; 2 refused."""

import argparse
import asyncio
import contextlib
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import asyncpg

from bot.backup import EXIT_REFUSED, Refused
from bot.core.base import records_of
from bot.core.state import fold
from bot.domain import EventRow, Repo
from bot.redact import masked_url
from bot.settings import storage_settings
from bot.storage.postgres import PostgresStore
from bot.storage.sql import when
from bot.storage.sqlite import SqliteStore
from scoring.replay import replay

# Each table the copy carries and its columns; `at` and `…_at` are times (ISO text in SQLite).
TABLES: Final = {
    "games": "game_id chat_id status created_by created_at sheet_message_id number",
    "events": "game_id seq kind payload author at schema_version",
    "members": "game_id user_id",
    "chats": "chat_id locale title time_zone",
    "processed_updates": "update_id at",
    "accounts": "user_id started_at lang username",
    "reminders": "chat_id every_seconds last_at",
}
Rows = dict[str, list[tuple[Any, ...]]]  # each table's rows, in the order of TABLES' columns


class VerificationFailed(Exception):
    """The copy differs from the source; it was rolled back."""


def source_rows(path: Path) -> Rows:
    """Every row of every copied table, times as datetimes, read without writing to the file."""
    rows: Rows = {}
    with sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True) as db:
        for table, names in TABLES.items():
            columns = names.split()
            times = [name == "at" or name.endswith("_at") for name in columns]
            order = ", ".join(columns[:2])
            found = db.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")
            rows[table] = [
                tuple(when(v) if time else v for time, v in zip(times, row, strict=True))
                for row in found
            ]
    return rows


async def replay_check(source: Repo, target: Repo, games: Sequence[int]) -> int:
    """Each game's events and each started game's sheet equal on both sides; how many replayed."""
    replayed = 0
    for game_id in games:
        theirs: list[EventRow] = await source.events(game_id)
        ours: list[EventRow] = await target.events(game_id)
        if ours != theirs:
            raise VerificationFailed(f"game {game_id}: its events differ after the copy")
        was, now = fold(game_id, theirs), fold(game_id, ours)
        if now.rules is None:
            continue  # not started: nothing to replay
        try:
            same = replay(was.game(), records_of(was)) == replay(now.game(), records_of(now))
        except Exception as error:
            raise VerificationFailed(f"game {game_id} does not replay: {error}") from None
        if not same:
            raise VerificationFailed(f"game {game_id}: its sheet differs after the copy")
        replayed += 1
    return replayed


async def migrate(source_url: str, target_url: str) -> str:
    """Copy and verify; returns the summary line. Raises `Refused` or `VerificationFailed`."""
    # sqlite:///relative/path or sqlite:////absolute/path
    path = Path(source_url.removeprefix("sqlite:///"))
    if not source_url.startswith("sqlite:///") or path == Path():
        raise Refused(
            f"--from {source_url!r} is not a SQLite URL: write --from sqlite:///data/prefbot.sqlite3"
        )
    if not target_url.startswith(("postgresql://", "postgres://")):
        raise Refused(
            f"--to {masked_url(target_url)!r} is not a PostgreSQL URL: write "
            "--to postgresql://USER:PASSWORD@HOST:5432/DBNAME"
        )
    if not path.is_file():
        raise Refused(f"--from {source_url}: there is no file {path}")
    async with contextlib.AsyncExitStack() as closing:  # the target closed, then the source
        try:
            source = await SqliteStore.open(path)  # brings an older file's schema up to date
        except (sqlite3.Error, RuntimeError) as error:
            raise Refused(f"--from {source_url} cannot be opened: {error}") from None
        closing.push_async_callback(source.close)
        rows = source_rows(path)
        try:
            target = await PostgresStore.open(target_url)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, RuntimeError) as error:
            raise Refused(f"--to {masked_url(target_url)} cannot be opened: {error}") from None
        closing.push_async_callback(target.close)
        return await copy_into(source, rows, target, source_url, masked_url(target_url))


async def copy_into(
    source: SqliteStore, rows: Rows, target: PostgresStore, source_url: str, target_name: str
) -> str:
    async with target.transaction() as repo, source.reading() as theirs:
        conn = repo._conn
        await conn.execute(f"LOCK TABLE {', '.join(TABLES)} IN EXCLUSIVE MODE")
        held = {table: int(await conn.fetchval(f"SELECT COUNT(*) FROM {table}")) for table in rows}
        if any(held.values()):
            raise Refused(
                f"--to {target_name} is not empty ({held['games']} games, {held['events']} events, "
                f"{held['chats']} chats): migrate-db writes only into an empty database"
            )
        for table, names in TABLES.items():
            await conn.copy_records_to_table(table, records=rows[table], columns=names.split())
        await conn.execute(
            "SELECT setval(pg_get_serial_sequence('games', 'game_id'),"
            " COALESCE(MAX(game_id), 1), MAX(game_id) IS NOT NULL) FROM games"
        )
        for table in rows:
            copied = int(await conn.fetchval(f"SELECT COUNT(*) FROM {table}"))
            if copied != len(rows[table]):
                raise VerificationFailed(f"{table}: {len(rows[table])} rows, {copied} copied")
        games = [int(row[0]) for row in await conn.fetch("SELECT game_id FROM games ORDER BY 1")]
        replayed = await replay_check(theirs, repo, games)
    counts = ", ".join(f"{len(rows[table])} {table.replace('_', ' ')}" for table in TABLES)
    return (
        f"migrate-db: copied {counts} from {source_url} to {target_name}; "
        f"counts equal, {replayed} started games replay to the same sheets."
    )


def main(argv: Sequence[str]) -> int:
    cli = argparse.ArgumentParser(
        prog="python -m bot migrate-db",
        description="Copy the bot's SQLite database into an empty PostgreSQL database.",
    )
    cli.add_argument("--from", dest="source", required=True, help="sqlite:///data/prefbot.sqlite3")
    cli.add_argument(
        "--to",
        dest="target",
        help="postgresql://USER:PASSWORD@HOST:5432/DBNAME (default: the bot's DATABASE_URL, or"
        " its PGHOST, PGUSER, PGPASSWORD and PGDATABASE)",
    )
    args = cli.parse_args(argv)
    try:
        if (target := args.target or storage_settings().database_url) is None:
            raise Refused(
                "--to is missing, and neither DATABASE_URL nor PGHOST names a PostgreSQL"
                " database: write --to postgresql://USER:PASSWORD@HOST:5432/DBNAME"
            )
        print(asyncio.run(migrate(args.source, target)))
    except Refused as error:
        print(f"migrate-db: {error}", file=sys.stderr)
        return EXIT_REFUSED
    except VerificationFailed as error:
        print(f"migrate-db: nothing was written: {error}", file=sys.stderr)
        return 1
    return 0
