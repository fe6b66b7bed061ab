"""The operator's log on stderr: text or JSON lines, the update named, secrets masked, repeats counted."""

import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import reduce
from typing import IO, Any, Final
from urllib.parse import quote, unquote

from aiohttp.http_exceptions import HttpProcessingError

from bot.redact import masked_url
from bot.settings import Settings

REPEAT_WINDOW: Final = 60.0  # seconds a repeated failure is counted before its count is written
MOST_KEYS: Final = 1000  # distinct failures counted at once (their messages are few)
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s%(where)s"
# `log.warning(..., extra=EVERY)`: written each time, never counted (the start's one line a try).
EVERY: Final = {"every_time": True}

# The update being handled in this task: (chat_id, update_id), either unknown (None).
_UPDATE: ContextVar[tuple[int | None, int | None]] = ContextVar(
    "logged_update", default=(None, None)
)

Handler = Callable[[Any, dict[str, Any]], Awaitable[Any]]


async def update_context(handler: Handler, event: Any, data: dict[str, Any]) -> Any:
    """The dispatcher's first outer middleware: lines logged while an update is handled name it."""
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
    """A handler filter: aiohttp's error for a request it could not parse (the client's fault,
    answered 400) becomes one WARNING line without the traceback."""
    error = record.exc_info[1] if record.exc_info else None
    if record.name == "aiohttp.server" and isinstance(error, HttpProcessingError):
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
    """A failure that repeats (same logger, level, message and exception; WARNING and above) is
    written once, then counted: one line a minute says how many more there were. A database
    outage of 30 s wrote thousands of tracebacks otherwise."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._counts: dict[tuple[str, int, str, str], _Count] = {}

    def admit(self, record: logging.LogRecord) -> list[logging.LogRecord]:
        """The counts whose minute is over, then `record` unless it repeats one of this minute."""
        now = self._clock()
        out = self.due(now)
        if getattr(record, "every_time", False) or (
            record.levelno < logging.WARNING and not record.exc_info
        ):
            return [*out, record]
        error = record.exc_info[1] if record.exc_info else None
        key = record.name, record.levelno, str(record.msg), type(error).__name__
        if (count := self._counts.get(key)) is not None:
            count.more += 1
            return out
        if len(self._counts) < MOST_KEYS:
            self._counts[key] = _Count(now, record)
        return [*out, record]

    def due(self, now: float) -> list[logging.LogRecord]:
        """The counts whose minute is over (all of them at `now=inf`), as records to write."""
        out: list[logging.LogRecord] = []
        for key, count in list(self._counts.items()):
            if now - count.since < REPEAT_WINDOW:
                continue
            if not count.more:
                del self._counts[key]
                continue
            seconds = min(now, self._clock()) - count.since  # `inf`: at exit
            first = count.first
            summary = {
                "name": first.name,
                "levelno": first.levelno,
                "levelname": first.levelname,
                "msg": "%s (and %d more like it in the last %.0f s)",
                "args": (first.getMessage(), count.more, seconds),
                "repeated": count.more,
            }
            out.append(logging.makeLogRecord(summary))
            self._counts[key] = _Count(now, first)
        return out


class OperatorHandler(logging.StreamHandler[IO[str]]):
    """stderr, repeated failures counted (`Repeats`); the counts left are written at exit."""

    def __init__(self, stream: IO[str] | None = None, repeats: Repeats | None = None) -> None:
        super().__init__(stream if stream is not None else sys.stderr)
        self.repeats = repeats or Repeats()

    def emit(self, record: logging.LogRecord) -> None:
        for item in self.repeats.admit(record):
            super().emit(item)

    def close(self) -> None:
        with self.lock:  # type: ignore[union-attr]
            for item in self.repeats.due(float("inf")):
                super().emit(item)
        super().close()


def redactor(settings: Settings) -> Callable[[str], str]:
    """Replaces each secret of the settings in a text: every URL by its masked form, the token by
    `<token>` and every password by `***`, raw and percent-encoded; longest first, so a URL is
    masked whole before the password in it."""
    urls = [u for u in (settings.database_url, settings.redis_url, settings.telegram_api_url) if u]
    passwords = [s.get_secret_value() for s in (settings.webhook_secret, settings.pgpassword) if s]
    for url in urls:  # the password of the user info (up to the last @), decoded
        auth = url.partition("://")[2].rpartition("@")[0]
        passwords.append(unquote(auth.partition(":")[2]))
    found = [(settings.bot_token.get_secret_value(), "<token>"), *((p, "***") for p in passwords)]
    found += [(quote(text, safe=""), mark) for text, mark in found]
    found += [(url, masked_url(url)) for url in urls]
    secrets = sorted({pair for pair in found if pair[0]}, key=lambda pair: -len(pair[0]))

    def redact(text: str) -> str:
        return reduce(lambda done, pair: done.replace(*pair), secrets, text)

    return redact


class OperatorFormatter(logging.Formatter):
    """LOG_FORMAT=text: `time LEVEL logger: message (chat …, update …)`, the traceback below;
    json: one object a line (time in UTC, level, logger, message, chat_id, update_id, exception
    as one field). Every text redacted: a library's error may quote a URL or a password."""

    def __init__(self, redact: Callable[[str], str], as_json: bool = False) -> None:
        super().__init__(TEXT_FORMAT, defaults={"where": ""})
        self.redact, self.as_json = redact, as_json

    def format(self, record: logging.LogRecord) -> str:
        names = ("chat_id", "update_id", "repeated")
        known = {name: v for name in names if (v := getattr(record, name, None)) is not None}
        if not self.as_json:
            where = [f"{k} {known[f'{k}_id']}" for k in ("chat", "update") if f"{k}_id" in known]
            record.where = f" ({', '.join(where)})" if where else ""
            return self.redact(super().format(record))
        at = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": self.redact(record.getMessage()),
            **known,
        }
        if record.exc_info or record.exc_text:
            text = self.formatException(record.exc_info) if record.exc_info else record.exc_text
            line["exception"] = self.redact(str(text))
        if record.stack_info:
            line["stack"] = self.redact(self.formatStack(record.stack_info))
        return json.dumps(line, ensure_ascii=False, default=str)


def setup_logging(settings: Settings, stream: IO[str] | None = None) -> OperatorHandler:
    """The root logger writes through one `OperatorHandler` at LOG_LEVEL, in LOG_FORMAT."""
    handler = OperatorHandler(stream)
    handler.setFormatter(OperatorFormatter(redactor(settings), settings.log_format == "json"))
    handler.addFilter(quiet_bad_requests)
    handler.addFilter(add_update)
    logging.basicConfig(handlers=[handler], level=settings.log_level, force=True)
    return handler
