"""The log an operator reads (`bot.logs`): LOG_FORMAT=json one object a line, the update's chat and
id on each line logged while it is handled, no secret ever, a repeated failure counted instead of
written again, and aiohttp's unparsable requests as one WARNING line."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from aiogram import Dispatcher, Router
from aiogram.types import Message, Update
from aiohttp import web

from bot.logs import EVERY, OperatorHandler, Repeats, redactor, setup_logging, update_context
from bot.settings import Settings
from tests.bot.mocked_bot import MockedBot

TOKEN = "123456:SECRET-token_value"
PASSWORD = "p@ss/w#rd%41:z+="


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


def settings(**more: Any) -> Settings:
    return Settings(bot_token=TOKEN, **more)


def capture(log_format: str = "json", **more: Any) -> tuple[io.StringIO, OperatorHandler]:
    stream = io.StringIO()
    handler = setup_logging(settings(log_format=log_format, **more), stream)
    return stream, handler


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_logs_are_one_object_a_line_with_the_exception_as_one_field(
    restore_root: None,
) -> None:
    stream, _ = capture()
    log = logging.getLogger("bot.test")
    log.info("deal %s recorded", 7)
    try:
        raise ValueError("bad\nthing")
    except ValueError:
        log.exception("handling failed")
    first, second = lines(stream)
    assert stream.getvalue().count("\n") == 2
    assert first["level"] == "INFO" and first["logger"] == "bot.test"
    assert first["message"] == "deal 7 recorded" and "exception" not in first
    assert datetime.fromisoformat(first["time"].replace("Z", "+00:00")).tzinfo is not None
    assert "chat_id" not in first and "update_id" not in first  # not known outside an update
    assert second["level"] == "ERROR" and second["message"] == "handling failed"
    assert second["exception"].startswith("Traceback") and "ValueError: bad" in second["exception"]


def test_text_logs_keep_the_time_level_logger_message_line(restore_root: None) -> None:
    stream, _ = capture("text")
    logging.getLogger("bot.test").warning("the menu was not set")
    (line,) = stream.getvalue().splitlines()
    assert line.endswith(" WARNING bot.test: the menu was not set")


async def test_lines_logged_while_an_update_is_handled_carry_its_chat_and_id(
    restore_root: None,
) -> None:
    """A real Dispatcher and the middleware the bot installs first (bot.app.build_dispatcher)."""
    stream, _ = capture()
    router = Router()

    @router.message()
    async def noisy(message: Message) -> None:
        logging.getLogger("bot.handler").info("looking at %s", message.text)

    dispatcher = Dispatcher()
    dispatcher.update.outer_middleware(update_context)
    dispatcher.include_router(router)
    update = Update.model_validate(
        {
            "update_id": 4242,
            "message": {
                "message_id": 1,
                "date": 1_700_000_000,
                "chat": {"id": -100777, "type": "supergroup", "title": "t"},
                "from": {"id": 1001, "is_bot": False, "first_name": "Anna"},
                "text": "hello",
            },
        }
    )
    await dispatcher.feed_update(MockedBot(), update)
    logging.getLogger("bot.after").info("outside")
    found = {line["logger"]: line for line in lines(stream)}
    assert found["bot.handler"]["chat_id"] == -100777
    assert found["bot.handler"]["update_id"] == 4242
    assert "chat_id" not in found["bot.after"]


def test_the_bots_dispatcher_names_the_update_on_its_log_lines(tmp_path: Any) -> None:
    from bot.app import build_dispatcher

    class NoStore:
        serial = True

    dispatcher = build_dispatcher(settings(), NoStore())  # type: ignore[arg-type]
    ours = [
        m
        for m in dispatcher.update.outer_middleware
        if not type(m).__module__.startswith("aiogram")
    ]
    assert ours[0] is update_context  # before the bot's own: their lines name the update too


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_no_secret_reaches_the_log_in_a_message_or_a_traceback(
    restore_root: None, log_format: str
) -> None:
    url = "postgresql://prefbot:p%40ss%2Fw%23rd%2541%3Az%2B%3D@db:5432/prefbot"
    stream, _ = capture(
        log_format,
        database_url=url,
        webhook_url="https://h.example/hook",
        webhook_secret="hook_Secret-1",
    )
    log = logging.getLogger("aiohttp.client")
    log.warning("POST https://api.telegram.org/bot%s/getMe failed", TOKEN)
    log.warning("cannot connect to %s", url)
    try:
        raise ConnectionError(f"password {PASSWORD} refused; secret hook_Secret-1")
    except ConnectionError:
        log.exception("the database went away")
    text = stream.getvalue()
    assert TOKEN not in text and "SECRET-token" not in text and "<token>" in text
    assert PASSWORD not in text and "p%40ss" not in text and "hook_Secret-1" not in text
    assert "postgresql://***@db:5432/prefbot" in text


def test_the_redactor_masks_a_pg_password_raw_and_encoded() -> None:
    redact = redactor(settings(pghost="db", pguser="prefbot", pgpassword=PASSWORD))
    assert redact(f"auth {PASSWORD} and p%40ss%2Fw%23rd%2541%3Az%2B%3D") == "auth *** and ***"


def test_a_repeated_failure_is_written_once_then_counted_once_a_minute() -> None:
    clock = Clock()
    stream = io.StringIO()
    handler = OperatorHandler(stream, Repeats(clock=clock))
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log = logging.getLogger("bot.repeats")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    try:
        for update in range(2800):  # a 30 s outage: every update fails the same way
            clock.now += 30 / 2800
            try:
                raise OSError("connection refused")
            except OSError:
                log.exception("update %s failed", update)
        log.info("a line of its own")  # never counted
        log.warning("waiting for the database", extra=EVERY)
        log.warning("waiting for the database", extra=EVERY)  # one line a try, each written
        assert stream.getvalue().count("update 0 failed") == 1
        assert stream.getvalue().count("Traceback") == 1
        assert "more like it" not in stream.getvalue()
        clock.now += 60
        log.info("after the outage")
        written = stream.getvalue().splitlines()
        summary = [line for line in written if "more like it" in line]
        assert summary == ["ERROR update 0 failed (and 2799 more like it in the last 90 s)"]
        assert written[-1] == "INFO after the outage"
        assert sum("waiting for the database" in line for line in written) == 2
        clock.now += 61  # a minute with no repeat: the next one is written in full again
        log.info("quiet")
        try:
            raise OSError("connection refused")
        except OSError:
            log.exception("update %s failed", 9999)
        assert stream.getvalue().count("Traceback") == 2
    finally:
        log.removeHandler(handler)
        log.setLevel(logging.NOTSET)
        log.propagate = True


def test_the_counts_left_are_written_when_the_log_closes() -> None:
    clock = Clock()
    stream = io.StringIO()
    handler = OperatorHandler(stream, Repeats(clock=clock))
    for _ in range(3):
        handler.handle(logging.makeLogRecord({"name": "x", "levelno": 40, "msg": "boom"}))
    handler.close()
    assert stream.getvalue().splitlines() == ["boom", "boom (and 2 more like it in the last 0 s)"]


def test_different_failures_are_counted_apart() -> None:
    repeats = Repeats(clock=Clock())

    def record(msg: str, level: int = logging.ERROR) -> logging.LogRecord:
        return logging.makeLogRecord({"name": "x", "levelno": level, "msg": msg})

    assert repeats.admit(record("a")) and repeats.admit(record("b"))
    assert repeats.admit(record("a", logging.WARNING))
    assert repeats.admit(record("a")) == []


async def test_an_http_request_aiohttp_cannot_parse_is_one_warning_without_a_traceback(
    restore_root: None,
) -> None:
    """A request line over aiohttp's 8 KB limit, sent to a real listener."""
    stream, _ = capture("text")
    app = web.Application()
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), 10)
        writer.close()
        await writer.wait_closed()
    finally:
        await runner.cleanup()
    assert status.split()[1] == b"400"
    text = stream.getvalue()
    assert "Traceback" not in text and "ERROR" not in text
    (line,) = [line for line in text.splitlines() if "aiohttp.server" in line]
    assert " WARNING aiohttp.server: bad HTTP request from 127.0.0.1: 400 " in line
