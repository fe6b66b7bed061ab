"""`python -m bot migrate-db`: a SQLite file played through the real bot, copied into a real
PostgreSQL, verified, and refused the second time (issue 14, Deliver 4)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app import build_dispatcher
from bot.domain import Store
from bot.migrate import (
    EXIT_REFUSED,
    TABLES,
    VerificationFailed,
    copy_into,
    main,
    source_rows,
)
from bot.settings import Settings
from bot.storage import SqliteStore
from bot.storage.postgres import PostgresStore
from bot.telegram.outbound import outbox as posting
from tests.bot.factories import ANNA, BORIS, ChatDriver, FakeClock, TgUser
from tests.bot.mocked_bot import MockedBot, deliver_through
from tests.pg import PostgresServer

REPO = Path(__file__).resolve().parents[2]
KEEPER = TgUser(2001, "Keeper", "keeper")
DEALS = (
    "Anna 6♠ = vist:Boris pass:Clara",
    "Boris 7♥ -1 vist:Anna pass:Clara",
    "Clara misere 1",
    "pass Anna/2 Boris/3 Clara/5",
)


def chat_on(store: Store, settings: Settings, chat_id: int) -> ChatDriver:
    dispatcher, bot = build_dispatcher(settings, store, FakeClock()), MockedBot()
    deliver_through(dispatcher, bot)  # the replies the tests read are delivered from the outbox
    return ChatDriver(dispatcher, bot, chat_id=chat_id)


async def play_sqlite(path: Path) -> None:
    """Three chats: a game with deals and an undo, one in English, one still forming."""
    settings = Settings(bot_token="42:TEST", database_path=path, default_locale="en")
    store = await SqliteStore.open(path)
    try:
        first = chat_on(store, settings, -1001)
        await first.send(KEEPER, "/newgame sochi pool 20 Anna Boris Clara")
        for line in DEALS:
            await first.send(KEEPER, f"/deal {line}")
        assert "undone" in await first.say(KEEPER, "/undo")
        await first.send(KEEPER, f"/deal {DEALS[0]}")
        second = chat_on(store, settings, -1002)
        await second.send(KEEPER, "/lang en")
        await second.send(KEEPER, "/newgame leningrad pool 10 Dana Egor Fima")
        await second.send(KEEPER, "/deal Dana 7♣ = vist:Egor pass:Fima")
        await chat_on(store, settings, -1003).send(ANNA, "/newgame sochi")
    finally:
        await store.close()


async def scores(store: Store, chat_ids: tuple[int, ...]) -> list[str]:
    settings = Settings(bot_token="42:TEST", default_locale="en")
    return [await chat_on(store, settings, chat).say(BORIS, "/score") for chat in chat_ids]


def run_migrate(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "DATABASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "bot", "migrate-db", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(autouse=True)
def text_sheet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(posting, "render_sheet_png", None)


async def test_migrate_db_copies_verifies_and_refuses_a_non_empty_target(
    tmp_path: Path, pg_server: PostgresServer
) -> None:
    source = tmp_path / "data" / "prefbot.sqlite3"
    await play_sqlite(source)
    target = await pg_server.new_database()

    done = run_migrate("--from", f"sqlite:///{source}", "--to", target)

    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "2 started games replay" in done.stdout
    with sqlite3.connect(source) as db:
        events = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert events > 10 and f"copied 3 games, {events} events, 3 members, 3 chats" in done.stdout
    old, new = await SqliteStore.open(source), await PostgresStore.open(target)
    try:
        for chat in (-1001, -1002, -1003):
            async with old.reading() as theirs, new.reading() as ours:
                was, now = await theirs.live_game(chat), await ours.live_game(chat)
                assert was is not None and now == was
                assert await ours.events(now.game_id) == await theirs.events(was.game_id)
                assert await ours.chat_locale(chat) == await theirs.chat_locale(chat)
                assert await ours.games_of_user(KEEPER.id) == await theirs.games_of_user(KEEPER.id)
        assert await scores(new, (-1001, -1002)) == await scores(old, (-1001, -1002))
        # The bot goes on on the copy: a new game gets a new id, a deal is recorded.
        settings = Settings(bot_token="42:TEST", default_locale="en")
        fourth = chat_on(new, settings, -1004)
        await fourth.send(KEEPER, "/newgame sochi pool 20 Anna Boris Clara")
        assert "Anna" in await fourth.say(KEEPER, f"/deal {DEALS[0]}")
        async with new.reading() as ours:
            row = await ours.live_game(-1004)
            assert row is not None and row.game_id == 4
            events = await ours.count_events()
    finally:
        await old.close()
        await new.close()

    again = run_migrate("--from", f"sqlite:///{source}", "--to", target)

    assert again.returncode == EXIT_REFUSED
    assert again.stdout == "" and again.stderr.count("\n") == 1
    assert "is not empty (4 games" in again.stderr
    new = await PostgresStore.open(target)
    try:
        async with new.reading() as ours:
            assert await ours.count_events() == events
    finally:
        await new.close()


def test_migrate_db_refuses_a_missing_source_or_a_wrong_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "postgresql://bot@127.0.0.1:1/never_reached"
    missing = tmp_path / "none.sqlite3"
    assert main(["--from", f"sqlite:///{missing}", "--to", target]) == EXIT_REFUSED
    assert not missing.exists()
    assert main(["--from", str(missing), "--to", target]) == EXIT_REFUSED
    assert main(["--from", f"sqlite:///{missing}", "--to", "mysql://a:pw@b/c"]) == EXIT_REFUSED
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert "there is no file" in lines[0]
    assert "sqlite:///data/prefbot.sqlite3" in lines[1]
    assert "postgresql://USER:PASSWORD@HOST:5432/DBNAME" in lines[2] and "pw" not in lines[2]


async def test_a_copy_that_differs_from_its_source_is_rolled_back(
    tmp_path: Path, pg_server: PostgresServer
) -> None:
    source_file = tmp_path / "prefbot.sqlite3"
    await play_sqlite(source_file)
    rows = source_rows(source_file)
    # A deal's line changed on the way (as a faulty copy would): its game no longer matches.
    index = next(i for i, row in enumerate(rows["events"]) if row[2] == "deal")
    changed = list(rows["events"][index])
    changed[3] = changed[3].replace("6♠", "7♠")
    assert changed[3] != rows["events"][index][3]
    rows["events"][index] = tuple(changed)
    source, target = (
        await SqliteStore.open(source_file),
        await PostgresStore.open(await pg_server.new_database()),
    )
    try:
        with pytest.raises(VerificationFailed, match="its events differ"):
            await copy_into(source, rows, target, "sqlite:///x", "postgresql://y")
        async with target.connection() as conn:
            for table in TABLES:
                assert await conn.fetchval(f"SELECT COUNT(*) FROM {table}") == 0
    finally:
        await source.close()
        await target.close()
