"""The bot's log, written for the operator: one handler on stderr.

- `LOG_FORMAT=text` (the default): `time LEVEL logger: message`, the update's chat and id after it
  when known, a traceback below; `LOG_FORMAT=json`: one JSON object a line with `time`, `level`,
  `logger`, `message`, `chat_id` and `update_id` when known, and the traceback as one `exception`
  field, for a log collector.
- No secret is written: the token, the passwords and every URL's user info are replaced in each
  line (a library's error may quote a request URL or a connection string).
- A failure that repeats (the same logger, level, message and exception, WARNING and above) is
  written once in full, then counted: one line a minute says how many more there were (written
  with the first line logged after the minute, or at exit), and while it goes on nothing more of
  it. A database outage of 30 s wrote thousands of tracebacks otherwise.
- aiohttp's "Error handling request" for a request it could not parse (a line over 8 KB, garbage on
  the port) is a WARNING of one line: the client's fault, answered 400, and no traceback.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any, Final
from urllib.parse import quote, unquote

from aiohttp.http_exceptions import HttpProcessingError

from bot.redact import masked_url
from bot.settings import Settings

REPEAT_WINDOW: Final = 60.0  # seconds a repeated failure is counted before its count is written
MOST_KEYS: Final = 1000  # distinct failures counted at once (their messages are few)
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# `log.warning(..., extra=EVERY)`: a line written each time, never counted as a repeat (the
# start-up's one line a try for the database).
EVERY: Final = {"every_time": True}

# The update being handled in this task: (chat_id, update_id), either unknown (None).
_UPDATE: ContextVar[tuple[int | None, int | None]] = ContextVar(
    "logged_update", default=(None, None)
)

Handler = Callable[[Any, dict[str, Any]], Awaitable[Any]]


async def update_context(handler: Handler, event: Any, data: dict[str, Any]) -> Any:
    """An outer middleware of the dispatcher's updates: every line logged while an update is
    handled carries its chat and id (aiogram's own `event_context` names the chat)."""
    chat_id = getattr(data.get("event_context"), "chat_id", None)
    token = _UPDATE.set((chat_id, getattr(event, "update_id", None)))
    try:
        return await handler(event, data)
    finally:
        _UPDATE.reset(token)


def add_update(record: logging.LogRecord) -> bool:
    """A handler filter: the update's chat and id onto the record (None outside an update)."""
    chat_id, update_id = _UPDATE.get()
    record.chat_id = getattr(record, "chat_id", None) or chat_id
    record.update_id = getattr(record, "update_id", None) or update_id
    return True


def quiet_bad_requests(record: logging.LogRecord) -> bool:
    """A handler filter: aiohttp's error for a request it could not parse becomes one WARNING
    line without the traceback (the client's fault, already answered 400)."""
    if record.name != "aiohttp.server" or not record.exc_info:
        return True
    error = record.exc_info[1]
    if isinstance(error, HttpProcessingError):
        where = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
        record.msg = "bad HTTP request from %s: %s %s"
        record.args = (where, error.code, error.message)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text = None, None
    return True


@dataclass(slots=True)
class _Count:
    since: float
    first: logging.LogRecord
    more: int = 0


class Repeats:
    """Which records to write, repeated failures counted instead (see the module's docstring)."""

    def __init__(
        self, window: float = REPEAT_WINDOW, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self._clock = clock
        self._counts: dict[tuple[str, int, str, str], _Count] = {}

    @staticmethod
    def _key(record: logging.LogRecord) -> tuple[str, int, str, str] | None:
        if getattr(record, "every_time", False):
            return None
        if record.levelno < logging.WARNING and not record.exc_info:
            return None
        error = record.exc_info[1] if record.exc_info else None
        return record.name, record.levelno, str(record.msg), type(error).__name__

    def admit(self, record: logging.LogRecord) -> list[logging.LogRecord]:
        """The records to write now: the counts whose minute is over, then `record` unless it
        repeats a failure of this minute."""
        now = self._clock()
        out = self.due(now)
        key = self._key(record)
        if key is None:
            return [*out, record]
        count = self._counts.get(key)
        if count is None:
            if len(self._counts) < MOST_KEYS:
                self._counts[key] = _Count(now, record)
            return [*out, record]
        count.more += 1
        return out

    def due(self, now: float | None = None) -> list[logging.LogRecord]:
        """The counts whose minute is over (all of them at `now=inf`), as records to write."""
        now = self._clock() if now is None else now
        out: list[logging.LogRecord] = []
        for key, count in list(self._counts.items()):
            if now - count.since < self.window:
                continue
            if count.more == 0:
                del self._counts[key]
                continue
            seconds = min(now, self._clock()) - count.since  # `inf`: at exit
            out.append(summary(count.first, count.more, seconds))
            self._counts[key] = _Count(now, count.first, more=0)
        return out


def summary(first: logging.LogRecord, more: int, seconds: float) -> logging.LogRecord:
    """The one line that stands for `more` repeats of `first`'s failure."""
    record = logging.makeLogRecord(
        {
            "name": first.name,
            "levelno": first.levelno,
            "levelname": first.levelname,
            "msg": "%s (and %d more like it in the last %.0f s)",
            "args": (first.getMessage(), more, seconds),
            "chat_id": None,
            "update_id": None,
        }
    )
    record.repeated = more
    return record


class OperatorHandler(logging.StreamHandler[IO[str]]):
    """stderr, repeated failures counted (`Repeats`); the counts left are written at exit."""

    def __init__(self, stream: IO[str] | None = None, repeats: Repeats | None = None) -> None:
        super().__init__(stream if stream is not None else sys.stderr)
        self.repeats = repeats or Repeats()

    def emit(self, record: logging.LogRecord) -> None:
        for item in self.repeats.admit(record):
            super().emit(item)

    def close(self) -> None:
        self.acquire()
        try:
            for item in self.repeats.due(float("inf")):
                super().emit(item)
        finally:
            self.release()
        super().close()


class Redactor:
    """Replaces each secret of the settings in a text: whole URLs by their masked form first,
    then the token (`<token>`) and every password (`***`), raw and percent-encoded."""

    def __init__(self, urls: Iterable[str], secrets: Iterable[tuple[str, str]]) -> None:
        self.urls = sorted({u for u in urls if u}, key=len, reverse=True)
        pairs = {(s, mark) for s, mark in secrets if s}
        self.secrets = sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)

    @classmethod
    def of(cls, settings: Settings) -> Redactor:
        urls = [settings.database_url, settings.redis_url, settings.telegram_api_url]
        found: list[tuple[str, str]] = [(settings.bot_token.get_secret_value(), "<token>")]
        for secret in (settings.webhook_secret, settings.pgpassword):
            if secret is not None:
                found.append((secret.get_secret_value(), "***"))
        for url in urls:
            if url and (password := _password_of(url)):
                found.append((password, "***"))
        found += [(quote(text, safe=""), mark) for text, mark in list(found)]
        return cls([u for u in urls if u], found)

    def __call__(self, text: str) -> str:
        for url in self.urls:
            if url in text:
                text = text.replace(url, masked_url(url))
        for secret, mark in self.secrets:
            if secret in text:
                text = text.replace(secret, mark)
        return text


def _password_of(url: str) -> str | None:
    """The password of a URL's user info (up to its last `@`), percent-decoded, if any."""
    rest = url.partition("://")[2]
    auth = rest[: rest.rfind("@")] if "@" in rest else ""
    return unquote(auth.partition(":")[2]) or None


class TextFormatter(logging.Formatter):
    """`time LEVEL logger: message (chat …, update …)`, the traceback below; redacted."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        super().__init__(TEXT_FORMAT)
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        chat_id, update_id = getattr(record, "chat_id", None), getattr(record, "update_id", None)
        if chat_id is not None or update_id is not None:
            head, newline, tail = text.partition("\n")
            where = ", ".join(
                f"{name} {value}"
                for name, value in (("chat", chat_id), ("update", update_id))
                if value is not None
            )
            text = f"{head} ({where}){newline}{tail}"
        return self.redact(text)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, chat_id and update_id when
    known, the exception's traceback as one field; every text redacted."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        at = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": self.redact(record.getMessage()),
        }
        for name in ("chat_id", "update_id", "repeated"):
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["exception"] = self.redact(self.formatException(record.exc_info))
        elif record.exc_text:
            line["exception"] = self.redact(record.exc_text)
        if record.stack_info:
            line["stack"] = self.redact(self.formatStack(record.stack_info))
        return json.dumps(line, ensure_ascii=False, default=str)


def setup_logging(settings: Settings, stream: IO[str] | None = None) -> OperatorHandler:
    """The root logger writes through one `OperatorHandler` at LOG_LEVEL, in LOG_FORMAT."""
    handler = OperatorHandler(stream)
    redact = Redactor.of(settings)
    if settings.log_format == "json":
        handler.setFormatter(JsonFormatter(redact))
    else:
        handler.setFormatter(TextFormatter(redact))
    handler.addFilter(quiet_bad_requests)
    handler.addFilter(add_update)
    root = logging.getLogger()
    for old in root.handlers:
        old.close()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    return handler
