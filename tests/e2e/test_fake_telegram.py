"""The fake Telegram server and the harness, checked with aiogram's own client and a tiny bot."""

from __future__ import annotations

import asyncio
import io
import json
import random
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiogram import Bot, Dispatcher, F
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramRetryAfter,
    TelegramUnauthorizedError,
)
from aiogram.filters import Command, CommandObject
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BufferedInputFile,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputMediaPhoto,
    InputTextMessageContent,
    Message,
    ReplyParameters,
)
from PIL import Image

from tests.e2e.conftest import StartBot
from tests.e2e.fake_telegram import (
    ANNA,
    BORIS,
    BOT_TOKEN,
    BOT_USER,
    DMITRY,
    FORUM,
    GROUP,
    OLD_GROUP,
    FakeTelegram,
    Upload,
    User,
    multipart_fields,
    plain_text,
    private_chat,
)
from tests.e2e.harness import Member, contains, is_photo


def png(width: int = 320, height: int = 200, color: str = "white") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


def keyboard(*pairs: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=t, callback_data=d)] for t, d in pairs]
    )


@pytest.fixture
async def api(server: FakeTelegram) -> AsyncIterator[Bot]:
    """An aiogram Bot whose requests go to the fake server."""
    session = AiohttpSession(api=TelegramAPIServer.from_base(server.url))
    bot = Bot(BOT_TOKEN, session=session)
    yield bot
    await close_fast(session)


async def close_fast(session: AiohttpSession) -> None:
    """Close without AiohttpSession.close's 0.25 s wait for TLS connections (there are none)."""
    if session._session is not None:
        await session._session.close()


async def test_get_me_answers_the_bot_user(api: Bot) -> None:
    me = await api.get_me()
    assert (me.id, me.username, me.is_bot) == (BOT_USER["id"], BOT_USER["username"], True)


async def test_a_wrong_token_is_unauthorized(server: FakeTelegram) -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(server.url))
    try:
        with pytest.raises(TelegramUnauthorizedError):
            await Bot("999:WRONG", session=session).get_me()
    finally:
        await close_fast(session)


async def test_the_server_listens_on_loopback_only(server: FakeTelegram) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert server.port > 0


async def test_a_sent_message_is_a_bot_message_in_the_chat_and_is_logged(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    message = await api.send_message(
        GROUP.id, "Hello, table", reply_markup=keyboard(("Join", "j"))
    )
    assert message.chat.id == GROUP.id and message.from_user is not None
    assert message.from_user.id == BOT_USER["id"]
    sent = await server.wait_for(GROUP, contains("hello"), timeout=1)
    assert (sent.method, sent.message_id, sent.text) == (
        "sendMessage",
        message.message_id,
        "Hello, table",
    )
    assert sent.button("join")["callback_data"] == "j"


async def test_message_ids_grow_across_user_and_bot_messages(
    server: FakeTelegram, api: Bot
) -> None:
    first = server.user_message(GROUP, ANNA, "hi")
    reply = await api.send_message(GROUP.id, "hi Anna")
    second = server.user_message(GROUP, BORIS, "hi")
    assert first["message_id"] < reply.message_id < second["message_id"]


async def test_html_text_is_stored_as_the_user_sees_it(server: FakeTelegram, api: Bot) -> None:
    server.add_chat(GROUP)
    await api.send_message(GROUP.id, "<b>Anna</b>: +12 &lt;3", parse_mode="HTML")
    assert server.sent[GROUP.id][-1].text == "Anna: +12 <3"
    assert server.sent[GROUP.id][-1].raw_text == "<b>Anna</b>: +12 &lt;3"


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("a < b", "HTML"),
        ("<b>bold", "HTML"),
        ("<b>x</i>", "HTML"),
        ("<blink>x</blink>", "HTML"),
    ],
)
async def test_text_that_telegram_cannot_parse_is_refused(
    server: FakeTelegram, api: Bot, text: str, mode: str
) -> None:
    server.add_chat(GROUP)
    with pytest.raises(TelegramBadRequest, match="can't parse entities"):
        await api.send_message(GROUP.id, text, parse_mode=mode)
    assert server.sent[GROUP.id] == []


@pytest.mark.parametrize(
    ("text", "mode", "plain"),
    [
        ("<a href='tg://user?id=1'>Anna</a> &amp; <i>Boris</i>", "HTML", "Anna & Boris"),
        ("a < b & c", None, "a < b & c"),
    ],
)
def test_plain_text_removes_the_markup(text: str, mode: str | None, plain: str) -> None:
    assert plain_text(text, mode) == plain


async def test_default_parse_mode_of_the_bot_reaches_the_server(server: FakeTelegram) -> None:
    server.add_chat(GROUP)
    session = AiohttpSession(api=TelegramAPIServer.from_base(server.url))
    bot = Bot(BOT_TOKEN, session=session, default=DefaultBotProperties(parse_mode="HTML"))
    try:
        await bot.send_message(GROUP.id, "<i>x</i>")
    finally:
        await close_fast(session)
    assert server.sent[GROUP.id][-1].text == "x"


async def test_limits_on_text_caption_and_callback_data(server: FakeTelegram, api: Bot) -> None:
    server.add_chat(GROUP)
    with pytest.raises(TelegramBadRequest, match="message is too long"):
        await api.send_message(GROUP.id, "x" * 4097)
    with pytest.raises(TelegramBadRequest, match="caption is too long"):
        await api.send_photo(GROUP.id, BufferedInputFile(png(), "s.png"), caption="x" * 1025)
    with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
        await api.send_message(GROUP.id, "x", reply_markup=keyboard(("B", "d" * 65)))
    assert server.sent[GROUP.id] == []
    assert len(server.failed_requests()) == 3


async def test_a_chat_the_bot_is_not_in_is_not_found(api: Bot) -> None:
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await api.send_message(-100999, "x")


async def test_the_bot_cannot_write_first_to_a_user_in_private(
    server: FakeTelegram, api: Bot
) -> None:
    server.user_message(GROUP, DMITRY, "hi")
    with pytest.raises(TelegramForbiddenError):
        await api.send_message(DMITRY.id, "hello")
    server.user_message(private_chat(DMITRY), DMITRY, "/start")
    assert (await api.send_message(DMITRY.id, "hello")).chat.type == "private"


async def test_a_reply_to_a_missing_message_is_refused(server: FakeTelegram, api: Bot) -> None:
    asked = server.user_message(GROUP, ANNA, "/score")
    reply = await api.send_message(
        GROUP.id, "scores", reply_parameters=ReplyParameters(message_id=asked["message_id"])
    )
    assert reply.reply_to_message is not None
    assert reply.reply_to_message.message_id == asked["message_id"]
    with pytest.raises(TelegramBadRequest, match="replied not found"):
        await api.send_message(GROUP.id, "x", reply_parameters=ReplyParameters(message_id=9999))


async def test_a_photo_upload_keeps_its_bytes_and_answers_photo_sizes(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    data = png(640, 480)
    message = await api.send_photo(
        GROUP.id, BufferedInputFile(data, "sheet.png"), caption="#1 Anna 6♠ ="
    )
    assert message.photo is not None
    assert (message.photo[-1].width, message.photo[-1].height) == (640, 480)
    assert message.caption == "#1 Anna 6♠ ="
    sent = await server.wait_for(GROUP, is_photo, timeout=1)
    assert sent.photo == data
    with Image.open(io.BytesIO(sent.photo)) as image:
        assert (image.format, image.size) == ("PNG", (640, 480))
    again = await api.send_photo(GROUP.id, message.photo[-1].file_id)
    assert server.photo_bytes(server.message(GROUP, again.message_id)) == data


def multipart(boundary: bytes, *parts: tuple[str, bytes, str | None]) -> bytes:
    """A multipart/form-data body as aiohttp writes one: (name, content, filename) parts."""
    body = b""
    for name, content, filename in parts:
        disposition = f'form-data; name="{name}"' + (
            f'; filename="{filename}"' if filename else ""
        )
        body += b"--" + boundary + b"\r\nContent-Disposition: " + disposition.encode() + b"\r\n"
        if filename:
            body += b"Content-Type: application/octet-stream\r\n"
        body += b"\r\n" + content + b"\r\n"
    return body + b"--" + boundary + b"--\r\n"


def noise_png(side: int = 120) -> bytes:
    """A PNG that does not compress (some 40 KB): more than one socket read of the server."""
    pixels = random.Random(side).randbytes(side * side * 3)
    buffer = io.BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize("split", ["pieces of 7 bytes", "two short reads, then the rest"])
async def test_a_multipart_upload_is_read_whole_however_tcp_splits_it(
    server: FakeTelegram, split: str
) -> None:
    """Issue 11: the server must not depend on how TCP splits a request. aiohttp's streaming
    multipart reader, handed a few bytes of a part and then a long read, took a deprecated path
    (`unread_data`) that warnings-as-errors turned into a 400."""
    server.add_chat(GROUP)
    data = noise_png()
    boundary = b"b0undary-7f3c"
    body = multipart(
        boundary,
        ("chat_id", str(GROUP.id).encode(), None),
        ("caption", "#1 Anna 6♠ =".encode(), None),
        ("photo", data, "sheet.png"),
    )
    head = (
        f"POST /bot{BOT_TOKEN}/sendPhoto HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary.decode()}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    request = head + body
    if split == "pieces of 7 bytes":
        cuts = list(range(7, len(request), 7))
    else:  # the photo's first 3 bytes, 3 more, then everything else in one write
        start = request.index(data)
        cuts = [start + 3, start + 6]
    pieces = [request[i:j] for i, j in zip([0, *cuts], [*cuts, len(request)], strict=True)]
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    for piece in pieces:  # each piece its own write; the server reads between them
        writer.write(piece)
        await writer.drain()
        for _ in range(5):
            await asyncio.sleep(0)
    answer = await reader.read()
    writer.close()
    await writer.wait_closed()
    status, _, payload = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 200"), answer[:300]
    assert json.loads(payload)["result"]["caption"] == "#1 Anna 6♠ ="
    sent = server.sent[GROUP.id][-1]
    assert (sent.method, sent.photo) == ("sendPhoto", data)


def test_a_multipart_body_gives_its_text_fields_and_files_byte_for_byte() -> None:
    content = b"\x89PNG\r\n\x1a\n--not-the-boundary\r\n\r\nend"
    body = multipart(b"xyz", ("chat_id", b"-100", None), ("photo", content, "a.png"))
    fields = multipart_fields(body, 'multipart/form-data; boundary="xyz"')
    assert [
        (name, bytes(value) if isinstance(value, Upload) else value) for name, value in fields
    ] == [
        ("chat_id", "-100"),
        ("photo", content),
    ]
    assert isinstance(fields[1][1], Upload) and fields[1][1].filename == "a.png"
    with pytest.raises(ValueError, match="closing delimiter"):
        multipart_fields(body[: -len(b"--xyz--\r\n")], "multipart/form-data; boundary=xyz")
    with pytest.raises(ValueError, match="boundary"):
        multipart_fields(body, "multipart/form-data")


async def test_a_parse_mode_other_than_html_is_refused_by_name(
    server: FakeTelegram, api: Bot
) -> None:
    """The bot writes Telegram HTML only; the fake serves no Markdown parser."""
    server.add_chat(GROUP)
    with pytest.raises(TelegramBadRequest, match="MarkdownV2"):
        await api.send_message(GROUP.id, "*bold*", parse_mode="MarkdownV2")
    assert server.sent[GROUP.id] == []


async def test_bytes_that_are_not_an_image_are_refused_as_a_photo(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    with pytest.raises(TelegramBadRequest, match="IMAGE_PROCESS_FAILED"):
        await api.send_photo(GROUP.id, BufferedInputFile(b"not a png", "x.png"))
    with pytest.raises(TelegramBadRequest, match="wrong file identifier"):
        await api.send_photo(GROUP.id, "no-such-file-id")


async def test_a_document_upload_keeps_its_bytes(server: FakeTelegram, api: Bot) -> None:
    server.add_chat(GROUP)
    message = await api.send_document(
        GROUP.id, BufferedInputFile(b"# convention: sochi\n", "game.pref"), caption="export"
    )
    assert message.document is not None and message.document.file_name == "game.pref"
    assert server.sent[GROUP.id][-1].document == b"# convention: sochi\n"


async def test_edits_change_the_message_and_an_unchanged_edit_is_refused(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    text = await api.send_message(GROUP.id, "Players: Anna", reply_markup=keyboard(("Join", "j")))
    edited = await api.edit_message_text(
        text="Players: Anna, Boris",
        chat_id=GROUP.id,
        message_id=text.message_id,
        reply_markup=keyboard(("Join", "j")),
    )
    assert not isinstance(edited, bool) and edited.text == "Players: Anna, Boris"
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await api.edit_message_text(
            text="Players: Anna, Boris",
            chat_id=GROUP.id,
            message_id=text.message_id,
            reply_markup=keyboard(("Join", "j")),
        )
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await api.edit_message_text(text="x", chat_id=GROUP.id, message_id=4242)
    methods = [s.method for s in server.sent[GROUP.id]]
    assert methods == ["sendMessage", "editMessageText"]


async def test_edit_message_media_swaps_the_photo_and_caption(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    first = await api.send_photo(GROUP.id, BufferedInputFile(png(), "a.png"), caption="#1")
    second_png = png(color="black")
    edited = await api.edit_message_media(
        media=InputMediaPhoto(media=BufferedInputFile(second_png, "b.png"), caption="#2"),
        chat_id=GROUP.id,
        message_id=first.message_id,
    )
    assert not isinstance(edited, bool) and edited.caption == "#2"
    sent = server.sent[GROUP.id][-1]
    assert (sent.method, sent.photo, sent.text) == ("editMessageMedia", second_png, "#2")
    assert server.message(GROUP, first.message_id)["caption"] == "#2"
    assert server.photo_bytes(server.message(GROUP, first.message_id)) == second_png


async def test_get_updates_gives_a_command_with_its_entity_and_offset_confirms(
    server: FakeTelegram, api: Bot
) -> None:
    server.user_message(GROUP, ANNA, "/newgame@pulka_test_bot sochi pool 10 @boris_pulka")
    server.user_message(GROUP, BORIS, "/join")
    updates = await api.get_updates(timeout=0)
    assert len(updates) == 2 and updates[0].update_id < updates[1].update_id
    message = updates[0].message
    assert message is not None and message.entities is not None
    assert message.from_user is not None and message.from_user.first_name == "Anna"
    assert message.chat.type == "supergroup" and message.chat.id < 0
    command, mention = message.entities
    assert (command.type, command.offset, command.length) == ("bot_command", 0, 23)
    assert mention.type == "mention"
    assert mention.extract_from(message.text or "") == "@boris_pulka"
    again = await api.get_updates(offset=updates[0].update_id + 1, timeout=0)
    assert [u.update_id for u in again] == [updates[1].update_id]
    assert await api.get_updates(offset=updates[1].update_id + 1, timeout=0) == []


async def test_a_redelivered_update_reaches_a_poller_that_starts_afresh(
    server: FakeTelegram, api: Bot
) -> None:
    server.user_message(GROUP, ANNA, "/deal Anna 6♠ = vist:Boris pass:Clara")
    (first,) = await api.get_updates(timeout=0)
    assert await api.get_updates(offset=first.update_id + 1, timeout=0) == []
    server.redeliver(first.update_id)
    (again,) = await api.get_updates(timeout=0)
    assert again.update_id == first.update_id and again.message == first.message
    assert server.deliveries[first.update_id] == 2


async def test_a_long_poll_wakes_as_soon_as_an_update_is_queued(
    server: FakeTelegram, api: Bot
) -> None:
    started = time.monotonic()
    poll = asyncio.ensure_future(api.get_updates(timeout=10, request_timeout=20))
    await server.wait_polling(0, timeout=5)
    server.user_message(GROUP, ANNA, "/score")
    updates = await asyncio.wait_for(poll, 5)
    assert len(updates) == 1
    assert time.monotonic() - started < 3


async def test_a_long_poll_without_updates_ends_at_its_timeout(api: Bot) -> None:
    started = time.monotonic()
    assert await api.get_updates(timeout=1) == []
    assert 0.9 < time.monotonic() - started < 3


async def test_a_second_poller_terminates_the_first_with_a_conflict(
    server: FakeTelegram, api: Bot
) -> None:
    first = asyncio.ensure_future(api.get_updates(timeout=10, request_timeout=20))
    await server.wait_polling(0, timeout=5)
    second = asyncio.ensure_future(api.get_updates(timeout=1))
    with pytest.raises(Exception, match="Conflict"):
        await asyncio.wait_for(first, 5)
    assert await second == []


async def test_only_the_allowed_update_kinds_reach_the_bot(server: FakeTelegram, api: Bot) -> None:
    server.add_chat(GROUP)
    sent = await api.send_message(GROUP.id, "x", reply_markup=keyboard(("Go", "go")))
    server.press(GROUP, ANNA, sent.message_id, "go")
    server.user_message(GROUP, ANNA, "/score")
    updates = await api.get_updates(timeout=0, allowed_updates=["message"])
    assert [u.message is not None for u in updates] == [True]
    assert len(server.dropped_updates) == 1


async def test_a_press_queues_a_callback_query_that_the_bot_answers_once(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    shown = await api.send_message(GROUP.id, "Game #1", reply_markup=keyboard(("Join", "g:1:j")))
    query_id = server.press(GROUP, BORIS, shown.message_id, "g:1:j")
    (update,) = await api.get_updates(timeout=0)
    query = update.callback_query
    assert query is not None and query.id == query_id and query.data == "g:1:j"
    assert query.from_user.id == BORIS.id
    assert query.message is not None and query.message.message_id == shown.message_id
    assert await api.answer_callback_query(query_id, text="Joined")
    assert (await server.wait_for_answer(query_id, timeout=1))["text"] == "Joined"
    with pytest.raises(TelegramBadRequest, match="query ID is invalid"):
        await api.answer_callback_query(query_id)
    with pytest.raises(LookupError):
        server.press(GROUP, BORIS, shown.message_id, "no-such-button")


def article(id_: str, text: str, title: str = "T") -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=id_,
        title=title,
        input_message_content=InputTextMessageContent(message_text=text, parse_mode="HTML"),
    )


async def test_an_inline_query_is_answered_once_and_checked_as_telegram_checks_it(
    server: FakeTelegram, api: Bot
) -> None:
    query_id = server.inline_query(BORIS, "7♠ -1 vist pass")
    (update,) = await api.get_updates(timeout=0)
    inline = update.inline_query
    assert inline is not None and inline.id == query_id and inline.query == "7♠ -1 vist pass"
    assert inline.from_user.id == BORIS.id
    for results, refusal in (
        ([article("a", "x"), article("a", "y")], "RESULT_ID_INVALID"),
        ([article("a" * 65, "x")], "RESULT_ID_INVALID"),
        ([article("a", "<b>x")], "can't parse entities"),
        ([article(str(n), "x") for n in range(51)], "RESULTS_TOO_MUCH"),
    ):
        with pytest.raises(TelegramBadRequest, match=refusal):
            await api.answer_inline_query(query_id, results)
    assert await api.answer_inline_query(query_id, [article("a", "<b>7♠</b>")], cache_time=5)
    answer = await server.wait_for_inline_answer(query_id, timeout=1)
    assert answer["results"][0]["input_message_content"]["message_text"] == "<b>7♠</b>"
    with pytest.raises(TelegramBadRequest, match="query ID is invalid"):
        await api.answer_inline_query(query_id, [article("b", "x")])


async def test_adding_the_bot_to_a_group_queues_its_chat_member_update(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_bot(GROUP, ANNA, "administrator")
    (update,) = await api.get_updates(timeout=0)
    joined = update.my_chat_member
    assert joined is not None and joined.chat.id == GROUP.id and joined.from_user.id == ANNA.id
    assert joined.old_chat_member.status == "left"
    assert joined.new_chat_member.status == "administrator"
    assert joined.new_chat_member.user.id == BOT_USER["id"]


async def test_a_migrated_group_sends_both_service_messages_and_refuses_calls(
    server: FakeTelegram, api: Bot
) -> None:
    server.user_message(OLD_GROUP, ANNA, "/newgame")
    server.migrate(OLD_GROUP, GROUP, ANNA)
    updates = await api.get_updates(timeout=0)
    old, new = updates[1].message, updates[2].message
    assert old is not None and old.migrate_to_chat_id == GROUP.id and old.chat.type == "group"
    assert new is not None and new.migrate_from_chat_id == OLD_GROUP.id
    with pytest.raises(TelegramMigrateToChat) as raised:
        await api.send_message(OLD_GROUP.id, "x")
    assert raised.value.migrate_to_chat_id == GROUP.id
    assert (await api.send_message(GROUP.id, "here")).chat.id == GROUP.id


async def test_a_kicked_bot_is_forbidden_in_the_chat(server: FakeTelegram, api: Bot) -> None:
    server.add_chat(GROUP)
    server.kick(GROUP)
    with pytest.raises(TelegramForbiddenError, match="kicked"):
        await api.send_message(GROUP.id, "x")


async def test_the_commands_menu_is_kept_per_scope_and_language(
    server: FakeTelegram, api: Bot
) -> None:
    commands = [BotCommand(command="deal", description="Записать сдачу")]
    scope = BotCommandScopeAllGroupChats()
    assert await api.set_my_commands(commands, scope=scope, language_code="ru")
    assert server.commands[("all_group_chats", "ru")] == [
        {"command": "deal", "description": "Записать сдачу"}
    ]
    with pytest.raises(TelegramBadRequest, match="BOT_COMMAND_INVALID"):
        await api.set_my_commands([BotCommand(command="New-Game", description="x")])


async def test_an_unknown_method_answers_ok_and_is_recorded(server: FakeTelegram) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/bot{BOT_TOKEN}/setMyShortDescription", data={"x": "1"}) as resp,
    ):
        assert await resp.json() == {"ok": True, "result": True}
    assert server.calls("setMyShortDescription")[0].params == {"x": 1}


async def test_wait_for_names_what_the_bot_did_when_it_times_out(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    await api.send_message(GROUP.id, "something else")
    with pytest.raises(AssertionError, match="something else"):
        await server.wait_for(GROUP, contains("balance"), timeout=0.2)


async def test_an_aiogram_dispatcher_polls_answers_and_edits_through_the_server(
    server: FakeTelegram, api: Bot
) -> None:
    """aiogram's own polling loop, Command filter (with @botname) and callback flow work here."""
    dp = Dispatcher()
    again = keyboard(("Again", "a"))

    @dp.message(Command("echo"))
    async def echo(message: Message, command: CommandObject) -> None:
        await message.answer(f"echo: {command.args}", reply_markup=again)

    @dp.callback_query(F.data == "a")
    async def pressed(query: CallbackQuery) -> None:
        await query.answer("pressed")
        assert isinstance(query.message, Message)
        await query.message.edit_text(f"{query.message.text} (again)")

    polling = asyncio.ensure_future(
        dp.start_polling(api, polling_timeout=1, handle_signals=False, close_bot_session=False)
    )
    try:
        since = server.cursor(GROUP)
        server.user_message(GROUP, ANNA, "/echo@pulka_test_bot hi")
        reply = await server.wait_for(GROUP, contains("echo: hi"), timeout=5, since=since)
        query = server.press(GROUP, BORIS, reply.message_id, "a")
        assert (await server.wait_for_answer(query, timeout=5))["text"] == "pressed"
        edited = await server.wait_for(GROUP, contains("(again)"), timeout=5, since=since)
        assert (edited.method, edited.message_id) == ("editMessageText", reply.message_id)
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(polling, 5)


# A bot in a few lines of the standard library: the harness's process handling is tested without
# paying aiogram's import time (seconds) for each start.
ECHO_BOT = """
import json, os, urllib.parse, urllib.request

base = f"{os.environ['TELEGRAM_API_URL']}/bot{os.environ['BOT_TOKEN']}/"
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

def call(method, **params):
    data = urllib.parse.urlencode(params).encode()
    with opener.open(base + method, data, timeout=30) as response:
        return json.load(response)["result"]

offset = 0
while True:
    for update in call("getUpdates", offset=offset, timeout=5):
        offset = update["update_id"] + 1
        message = update.get("message", {})
        if "text" in message:
            call("sendMessage", chat_id=message["chat"]["id"], text="echo: " + message["text"])
"""


async def test_a_killed_bot_restarted_gets_the_updates_it_had_not_confirmed(
    server: FakeTelegram, start_bot: StartBot, tmp_path: Path
) -> None:
    """Updates queued while the bot is down reach the next process; confirmed ones do not."""
    script = tmp_path / "echo_bot.py"
    script.write_text(ECHO_BOT)
    bot = await start_bot(argv=[str(script)])
    anna = Member(bot, GROUP, ANNA)
    assert (await anna.say("before")).text == "echo: before"
    await server.wait_polling(server.poll_count)
    await bot.kill()
    assert not bot.running
    anna.send("while down")
    await bot.start()
    assert (await anna.wait(contains("while down"))).text == "echo: while down"
    await server.wait_idle(quiet=0.2)
    assert [s.text for s in server.sent[GROUP.id]] == ["echo: before", "echo: while down"]
    assert bot.starts == 2 and "start 2" in bot.log()


async def test_a_bot_that_cannot_start_fails_with_its_log(
    start_bot: StartBot, tmp_path: Path
) -> None:
    script = tmp_path / "broken_bot.py"
    script.write_text("raise SystemExit('no token, ask @BotFather')\n")
    with pytest.raises(AssertionError, match="BotFather"):
        await start_bot(argv=[str(script)])


async def test_rate_limits_answer_the_21st_message_of_a_minute_in_a_group_with_a_429(
    server: FakeTelegram, api: Bot
) -> None:
    """Off by default; on, Telegram's 20 a minute per group: the 21st gets 429 with the seconds
    until the minute's first call leaves the window, and is not applied; another chat is free."""
    server.add_chat(GROUP)
    server.add_chat(OLD_GROUP)
    for i in range(25):
        await api.send_message(GROUP.id, f"free {i}")
    server.limits.on = True
    for i in range(20):
        await api.send_message(GROUP.id, f"counted {i}")
    before = server.cursor(GROUP)
    with pytest.raises(TelegramRetryAfter) as refused:
        await api.send_message(GROUP.id, "one too many")
    assert 58 <= refused.value.retry_after <= 60
    assert server.cursor(GROUP) == before  # not applied
    await api.send_message(OLD_GROUP.id, "another group")
    assert server.limits.refused == Counter({GROUP.id: 1})
    assert server.limits.most_in_a_minute(GROUP.id) == 20
    assert [r.status for r in server.requests].count(429) == 1


async def test_rate_limits_keep_the_bot_to_30_calls_a_second_in_all_chats(
    server: FakeTelegram, api: Bot
) -> None:
    server.limits.on = True
    users = [private_chat(User(5000 + i, f"U{i}")) for i in range(31)]
    for chat in users:
        server.add_chat(chat)
    results = await asyncio.gather(
        *(api.send_message(chat.id, "hello") for chat in users), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, TelegramRetryAfter)]
    assert len(refused) == 1 and refused[0].retry_after == 1


async def test_a_photo_refused_on_demand_answers_400_with_telegram_s_description(
    server: FakeTelegram, api: Bot
) -> None:
    server.add_chat(GROUP)
    server.refuse_photos("IMAGE_PROCESS_FAILED")
    with pytest.raises(TelegramBadRequest, match="IMAGE_PROCESS_FAILED"):
        await api.send_photo(GROUP.id, BufferedInputFile(png(), "a.png"))
    sent = await api.send_photo(GROUP.id, BufferedInputFile(png(), "b.png"))  # the next one goes
    assert sent.photo


async def test_a_forum_topics_messages_carry_their_thread_as_telegrams_do(
    server: FakeTelegram, api: Bot
) -> None:
    topic = server.open_topic(FORUM, "Table 1")
    server.user_message(FORUM, ANNA, "/score", topic=topic)
    server.user_message(FORUM, BORIS, "/score")  # the General topic: no thread at all
    updates = await api.get_updates(timeout=0)
    created, in_topic, general = (u.message for u in updates)
    assert created is not None and created.forum_topic_created is not None
    assert created.message_thread_id == topic and created.is_topic_message
    assert in_topic is not None and in_topic.message_thread_id == topic
    assert in_topic.is_topic_message and in_topic.chat.is_forum
    root = in_topic.reply_to_message
    assert root is not None and root.forum_topic_created is not None
    assert root.forum_topic_created.name == "Table 1"
    assert general is not None and general.message_thread_id is None
    assert not general.is_topic_message
    sent = await api.send_message(FORUM.id, "in the topic", message_thread_id=topic)
    assert sent.message_thread_id == topic and sent.is_topic_message
    await api.send_message(FORUM.id, "in General")
    assert [s.thread_id for s in server.sent[FORUM.id]] == [topic, None]
    with pytest.raises(TelegramBadRequest, match="thread not found"):
        await api.send_message(FORUM.id, "nowhere", message_thread_id=topic + 1000)
