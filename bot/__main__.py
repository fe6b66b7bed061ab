"""`python -m bot` (`make run`): settings from the environment and `.env`, then long polling."""

from __future__ import annotations

import asyncio
import sys

from bot.settings import exit_with, load_settings


def main() -> None:
    if sys.argv[1:2] == [
        "migrate-db"
    ]:  # python -m bot migrate-db --from … --to … (bot/migrate.py)
        from bot.migrate import main as migrate_db

        raise SystemExit(migrate_db(sys.argv[2:]))
    settings = load_settings()
    from bot.app import StartupError, run, setup_logging  # aiogram loads once settings are good

    setup_logging(settings)
    try:
        asyncio.run(run(settings))
    except KeyboardInterrupt:
        pass
    except StartupError as error:
        exit_with([str(error)])


if __name__ == "__main__":
    main()
