"""End-to-end: issue 11's edges with the real bot process against the fake Bot API — a forwarded
command, an anonymous admin, an over-long /deal, an edited /deal; and at start-up a damaged or a
read-only database file, each one clear line and exit status 2, no traceback."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.storage import SqliteStore
from tests.e2e.fake_telegram import ANNA, BORIS, CLARA, Chat, FakeTelegram, Sent, _snapshot
from tests.e2e.harness import START_WAIT, BotProcess, Member, contains, is_photo

GROUP_ANONYMOUS_BOT = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
DEAL = "/deal Anna 6♠ = vist:Boris pass:Clara"
EXIT_BAD_SETTINGS = 2


def queue_message(
    server: FakeTelegram, chat: Chat, sender: dict[str, Any], **content: Any
) -> None:
    """A message as Telegram would deliver it, with fields the fake's helpers do not set."""
    text = str(content.get("text", ""))
    if text.startswith("/"):
        content["entities"] = [
            {"type": "bot_command", "offset": 0, "length": len(text.split()[0])}
        ]
    message = server._store_message(chat, sender, content)
    server._queue({"message": _snapshot(message)})


def queue_edit(server: FakeTelegram, chat: Chat, message_id: int, text: str) -> None:
    """The user edits a message of theirs: Telegram sends `edited_message` with the new text."""
    message = server.message(chat, message_id)
    message["text"] = text
    message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
    message["edit_date"] = int(time.time())
    server._queue({"edited_message": _snapshot(message)})


async def open_game(bot: BotProcess, chat: Chat) -> dict[str, Member]:
    members = {u.first_name: Member(bot, chat, u) for u in (ANNA, BORIS, CLARA)}
    await members["Anna"].say("/lang en", contains("English"))  # else the opener's (issue 13)
    await members["Anna"].say("/newgame sochi pool 10", contains("game #"))
    reply: Sent | None = None
    for name in ("Anna", "Boris", "Clara"):
        reply = await members[name].say("/join", contains(name))
    assert reply is not None
    return members


async def answer_to(bot: BotProcess, chat: Chat, since: int) -> Sent:
    return await Member(bot, chat, ANNA).wait(since=since)


async def test_the_edges_in_a_running_bot(start_bot: Any, server: FakeTelegram) -> None:
    bot = await start_bot(locale="en")
    chat = Chat(-1001500000111, "supergroup", "Edges")
    anna = (await open_game(bot, chat))["Anna"]
    before = len(server.calls("sendPhoto"))

    since = server.cursor(chat)
    forward = {"type": "user", "date": int(time.time()), "sender_user": BORIS.api()}
    queue_message(server, chat, ANNA.api(), text=DEAL, forward_origin=forward)
    refusal = await answer_to(bot, chat, since)
    assert "forwarded command is not taken" in refusal.text
    assert "\n" not in refusal.text

    since = server.cursor(chat)
    queue_message(server, chat, GROUP_ANONYMOUS_BOT, text=DEAL, sender_chat=chat.api())
    refusal = await answer_to(bot, chat, since)
    assert "write as yourself" in refusal.text

    long = "x" * 4000
    since = server.cursor(chat)
    anna.send(f"{DEAL} {long}")
    refusal = await answer_to(bot, chat, since)
    assert "x" * 100 in refusal.text and long not in refusal.text
    assert len(refusal.text) < 4096
    assert len(server.calls("sendPhoto")) == before, "nothing recorded"

    message = anna.send(DEAL)
    photo = await anna.wait(is_photo, since=since)
    assert photo.text.startswith("#1 "), photo.text
    since = server.cursor(chat)
    queue_edit(server, chat, message["message_id"], "/deal Anna 6♠ -1 vist:Boris pass:Clara")
    edited = await anna.wait(contains("edited message corrected"), since=since)
    assert "Anna 6♠ -1" in edited.text
    history = await anna.say("/history", contains("#1"))
    assert "Anna 6♠ -1" in history.text
    assert not server.failed_requests(), server.failed_requests()


async def sample_database(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = await SqliteStore.open(path)
    async with store.transaction() as repo:
        at = datetime.now(UTC)
        for chat_id in range(200):
            game = await repo.create_game(chat_id, 1, at)
            await repo.append(game.game_id, "note", {"text": "x" * 300}, 1, at)
    await store.close()


async def refused_start(bot: BotProcess) -> list[str]:
    """Launch the bot on a database it must refuse; the lines it wrote (its exit status is 2)."""
    await bot.launch()
    assert await bot.wait_exit(START_WAIT) == EXIT_BAD_SETTINGS, bot.log_tail()
    log = bot.log()
    assert "Traceback" not in log, log
    return [line for line in log.splitlines() if "DATABASE_PATH" in line]


async def test_a_damaged_database_stops_the_start_in_one_line(
    server: FakeTelegram, tmp_path: Path
) -> None:
    bot = BotProcess(server, tmp_path / "damaged", locale="en")
    await sample_database(bot.db_path)
    data = bytearray(bot.db_path.read_bytes())
    data[4096 * 3 : 4096 * 6] = b"Z" * (4096 * 3)
    bot.db_path.write_bytes(bytes(data))
    lines = await refused_start(bot)
    assert len(lines) == 1, lines
    assert "damaged" in lines[0], lines


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """The file made read-only even for root (who ignores the mode bits): immutable."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        yield
        path.chmod(0o644)
        return
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


async def test_a_read_only_database_stops_the_start_in_one_line(
    server: FakeTelegram, tmp_path: Path
) -> None:
    bot = BotProcess(server, tmp_path / "read-only", locale="en")
    await sample_database(bot.db_path)
    with read_only(bot.db_path):
        lines = await refused_start(bot)
    assert len(lines) == 1, lines
    assert "takes no writes" in lines[0], lines
    assert server.poll_count == 0, "it never polled"


async def test_update_ids_that_start_again_on_a_new_api_server_are_handled(
    server: FakeTelegram, tmp_path: Path
) -> None:
    """A new Bot API server numbers its updates from the same start: the database knows those ids
    for other messages, so they are new updates, handled (and logged), not skipped."""
    chat = Chat(-1001500000112, "supergroup", "A new server")
    first = BotProcess(server, tmp_path / "bot", locale="en")
    await first.start()
    try:
        members = await open_game(first, chat)
        photo = await members["Anna"].say(DEAL, is_photo)
        assert photo.text.startswith("#1 "), photo.text
    finally:
        await first.stop()
    async with FakeTelegram() as other:
        # Telegram's message ids go on in the chat; only the new server's update ids start again.
        other._next_message_id[chat.id] = server._next_message_id[chat.id]
        second = BotProcess(other, tmp_path / "bot", locale="en")  # the same database
        await second.start()
        try:
            anna = Member(second, chat, ANNA)
            await anna.say("/score", contains("Anna"))
            deal = await Member(second, chat, BORIS).say(
                "/deal Boris 6♣ = pass:Anna pass:Clara", is_photo
            )
            assert deal.text.startswith("#2 "), deal.text
        finally:
            await second.stop()
        assert "came back for chat" in second.log(), second.log_tail()
