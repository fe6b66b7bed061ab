"""One way to answer: every answer is owed through the outbox (`bot.telegram.outbound.outbox`), and
its one named exception (a toast, inline results, the step entries' own messages) goes through
`bot.telegram.outbound.at_once`. This test reads every module of the Telegram adapter and the web
layer with `ast` and fails on a call of one of Telegram's sending methods anywhere else (the
sender, which delivers the outbox through `bot.telegram.outbound.posting`, is the other place)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]
ALLOWED: Final = frozenset(
    {
        "bot/telegram/outbound/at_once.py",
        "bot/telegram/outbound/sender.py",
        "bot/telegram/outbound/posting.py",
    }
)
# Telegram's methods that put something in a chat (aiogram's shortcuts on messages, queries and
# the Bot), and what edits or deletes it.
SENDING: Final = frozenset(
    {
        "answer",
        "reply",
        "edit_text",
        "edit_caption",
        "edit_media",
        "edit_reply_markup",
        "delete",
        "forward",
        "copy_to",
        "answer_callback_query",
        "delete_message",
        "forward_message",
        "copy_message",
    }
)
PREFIXES: Final = ("send_", "answer_", "reply_", "edit_message_")
SCANNED: Final = sorted(
    path
    for folder in ("handlers", "bot/telegram", "bot/web")
    for path in (ROOT / folder).rglob("*.py")
    if str(path.relative_to(ROOT)) not in ALLOWED
)


def sending_calls(source: str) -> list[tuple[int, str]]:
    """(line, method) of every call of a sending method in `source` (but the helper's own:
    `at_once.answer(message, …)`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name, owner = node.func.attr, node.func.value
            if isinstance(owner, ast.Name) and owner.id == "at_once":
                continue
            if name in SENDING or name.startswith(PREFIXES):
                found.append((node.lineno, name))
    return found


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_handler_or_glue_module_calls_telegram_but_through_the_one_helper(path: Path) -> None:
    calls = sending_calls(path.read_text(encoding="utf-8"))
    where = path.relative_to(ROOT)
    assert calls == [], (
        f"{where}: {calls} — owe it (Reply) or answer through bot.telegram.outbound.at_once"
    )


def test_the_walk_finds_a_direct_answer_of_every_kind() -> None:
    """The test can fail: each way a handler used to answer directly is found."""
    source = (
        "async def h(message, query, bot):\n"
        "    await message.answer('hi')\n"
        "    await query.answer('toast', show_alert=True)\n"
        "    await message.edit_text('x')\n"
        "    await bot.send_photo(1, b'')\n"
        "    await bot.edit_message_text('x', chat_id=1, message_id=2)\n"
        "    await message.answer_photo(b'')\n"
        "    await at_once.answer(message, 'fine')\n"
    )
    names = [name for _, name in sending_calls(source)]
    assert names == [
        "answer",
        "answer",
        "edit_text",
        "send_photo",
        "edit_message_text",
        "answer_photo",
    ]


def test_the_helper_itself_is_the_only_glue_module_that_answers_directly() -> None:
    direct = (ROOT / "bot/telegram/outbound/at_once.py").read_text(encoding="utf-8")
    assert sending_calls(direct), (
        "bot/telegram/outbound/at_once.py is where the direct answers are"
    )
    assert "TelegramRetryAfter" in direct and "retry_after" in direct
