"""`python -m bot [run | migrate-db … | backup FILE]`: the bot, or an operator's command.

Anything else is refused with the usage and status 2: an unknown word never starts a second
poller on the live token."""

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from bot.settings import exit_with, load_settings, unknown_settings

log = logging.getLogger("bot")


def main() -> None:
    words = sys.argv[1:]
    if words[:1] == ["migrate-db"]:  # its own arguments, read by bot.migrate
        from bot.migrate import main as migrate_db

        raise SystemExit(migrate_db(words[1:]))
    parse = argparse.ArgumentParser(
        prog="python -m bot",
        description="The preferans scorekeeper bot for Telegram (settings: .env.example).",
    )
    commands = parse.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("run", help="run the bot (the default): long polling or the webhook")
    commands.add_parser(
        "migrate-db",
        help="copy a SQLite database into an empty PostgreSQL one (migrate-db --help)",
    )
    copy = commands.add_parser(
        "backup",
        help="copy the running SQLite database to FILE (on PostgreSQL: the pg_dump command)",
        description="A consistent copy of the bot's SQLite database (DATABASE_PATH) while the "
        "bot runs, through SQLite's online backup. Exit status 0: copied and checked; 2: "
        "nothing copied (on PostgreSQL the pg_dump command to use is printed).",
    )
    copy.add_argument("file", type=Path, metavar="FILE", help="where the copy is written")
    args = parse.parse_args(words)
    if args.command == "backup":
        from bot.backup import main as backup

        raise SystemExit(backup(args.file))
    settings = load_settings()  # `run`, the default: the bot
    from bot.logs import setup_logging

    setup_logging(settings)
    for line in unknown_settings():
        log.warning("%s", line)
    from bot.app import run  # aiogram loads once settings are good
    from bot.startup import StartupError

    try:
        asyncio.run(run(settings))
    except KeyboardInterrupt:
        pass
    except StartupError as error:
        exit_with([str(error)])


if __name__ == "__main__":
    main()
