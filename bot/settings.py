"""The bot's settings, read once from the environment and `.env`.

`Settings()` is built in `bot.__main__` and passed down; nothing else reads the environment. A bad
setting stops the start-up with one line on stderr and exit status 2 — never a traceback, and never a
secret: the token, a password, a URL's user info (`masked_url`). PostgreSQL is named by DATABASE_URL
or, so that any password works without percent-encoding it, by libpq's PGHOST, PGPORT, PGUSER,
PGPASSWORD and PGDATABASE (the URL is then built here, each part encoded).
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal, NoReturn
from urllib.parse import quote, urlsplit

from dotenv import dotenv_values
from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.redact import masked_url

TOKEN_FORM: Final = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{1,100}$")
EXIT_BAD_SETTINGS: Final = 2
DEFAULT_HOST: Final = "0.0.0.0"
DEFAULT_PORT: Final = 8080

ENV_FILE: Final = ".env"
DEFAULT_PG_PORT: Final = 5432
# postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?options]: no raw @ : / ? # in the user or the
# password (asyncpg splits the URL at the first @ and the first :), a % only as an escape.
_PG_URL: Final = re.compile(
    r"^postgres(?:ql)?://(?P<user>[^\s:/@?#]+)(?::(?P<password>[^\s/@?#]*))?"
    r"@(?P<host>[^\s/:@?#\[\]]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?/[^\s/?#]+(?:\?\S*)?$"
)
_BAD_ESCAPE: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PG_HOST: Final = re.compile(r"^[^\s/@?#]+$")

Locale = Literal["ru", "en"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
LogFormat = Literal["text", "json"]


def pg_url(host: str, port: int, user: str, password: str | None, database: str) -> str:
    """The DATABASE_URL of libpq's PG* settings, each part percent-encoded (any password)."""
    auth = quote(user, safe="")
    if password:
        auth += ":" + quote(password, safe="")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    return f"postgresql://{auth}@{host}:{port}/{quote(database, safe='')}"


class Settings(BaseSettings):
    """Env names are the field names in upper case: BOT_TOKEN, DATABASE_PATH, TELEGRAM_API_URL…"""

    # hide_input_in_errors: a ValidationError printed whole never shows a value (a password).
    model_config = SettingsConfigDict(
        env_file=ENV_FILE,
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        hide_input_in_errors=True,
    )

    bot_token: SecretStr
    # Relative to where the bot runs (`make run`: data/ of the checkout); the image sets
    # DATABASE_PATH=/data/prefbot.sqlite3, its volume.
    database_path: Path = Path("data/prefbot.sqlite3")
    # postgresql://USER[:PASSWORD]@HOST:PORT/DBNAME; when set, PostgreSQL instead of the SQLite file.
    # Built from PGHOST… when those are given instead (`_url_of_pg`).
    database_url: str | None = Field(default=None, repr=False)
    # libpq's own names, so that compose passes the password as it is, unencoded.
    pghost: str | None = None
    pgport: int = Field(default=DEFAULT_PG_PORT, ge=1, le=65535)
    pguser: str | None = Field(default=None, validate_default=True)
    pgpassword: SecretStr | None = None
    pgdatabase: str | None = None
    # How long the start waits for a database that does not answer yet, retrying with back-off.
    database_wait_seconds: float = Field(default=60.0, ge=0, le=3600)
    telegram_api_url: str | None = Field(default=None, repr=False)
    default_locale: Locale = "ru"
    log_level: LogLevel = "INFO"
    # text: one line a record, tracebacks below it; json: one JSON object a line (bot.logs).
    log_format: LogFormat = "text"
    # The Mini App: the web listener HOST:PORT, and the app's t.me link from @BotFather.
    web_listen: str | None = None
    miniapp_link: str | None = None
    # The page's own https address as registered with @BotFather (`https://HOST/app`): in a private
    # chat the live sheet opens from a web_app button with it.
    miniapp_url: str | None = None
    # Webhook mode: Telegram POSTs updates to WEBHOOK_URL (served on WEB_LISTEN at its
    # path) with the header X-Telegram-Bot-Api-Secret-Token: WEBHOOK_SECRET; unset, long polling.
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = Field(default=None, validate_default=True)
    # aiogram's RedisStorage for the /deal steps (optional `redis` package).
    redis_url: str | None = Field(default=None, repr=False)
    # Not part of the documented environment contract; tests shorten it.
    polling_timeout: int = Field(default=10, ge=0, le=50)
    # How long the vote clock's lease lasts unrenewed before another instance takes it over.
    lease_seconds: float = Field(default=10.0, gt=0, le=600)
    # What the bot sends is paced to Telegram's limits by token buckets (bot/telegram/pacing.py): at most
    # PACE_GROUP_PER_MINUTE messages in any minute in one group, PACE_GROUP_BURST of them at once;
    # PACE_PRIVATE_PER_SECOND in a private chat after a burst of PACE_PRIVATE_BURST; at most
    # PACE_BOT_PER_SECOND in any second in all chats, PACE_BOT_BURST of them at once.
    pace_group_per_minute: int = Field(default=20, ge=2)
    pace_group_burst: int = Field(default=10, ge=1, validate_default=True)
    pace_private_per_second: float = Field(default=1.0, gt=0)
    pace_private_burst: int = Field(default=3, ge=1)
    pace_bot_per_second: int = Field(default=30, ge=2)
    pace_bot_burst: int = Field(default=10, ge=1, validate_default=True)

    @field_validator("pace_group_burst", "pace_bot_burst")
    @classmethod
    def _burst_below_count(cls, value: int, info: ValidationInfo) -> int:
        count_field = {"pace_group_burst": "pace_group_per_minute"}.get(
            str(info.field_name), "pace_bot_per_second"
        )
        count = info.data.get(count_field)
        if isinstance(count, int) and value >= count:
            raise ValueError(f"must be below {count_field.upper()} ({count})")
        return value

    @field_validator("bot_token")
    @classmethod
    def _token_form(cls, value: SecretStr) -> SecretStr:
        if not TOKEN_FORM.match(value.get_secret_value().strip()):
            raise ValueError("not of the form 123456:ABC-DEF")
        return SecretStr(value.get_secret_value().strip())

    @field_validator("telegram_api_url")
    @classmethod
    def _api_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        value = value.strip().rstrip("/")
        if not re.match(r"^https?://[^\s/]+", value):
            raise ValueError("must start with http:// or https://")
        return value

    @model_validator(mode="before")
    @classmethod
    def _url_of_pg(cls, data: Any) -> Any:
        """DATABASE_URL from PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE when it is not set
        itself and those are well formed (a bad one is then named by its own validator)."""
        if not isinstance(data, dict) or _text(data.get("database_url")):
            return data
        host, user = _text(data.get("pghost")), _text(data.get("pguser"))
        port = _text(data.get("pgport")) or str(DEFAULT_PG_PORT)
        if not host or not user or not _PG_HOST.match(host) or not port.isdigit():
            return data
        if not 1 <= int(port) <= 65535:
            return data
        password = data.get("pgpassword")
        if isinstance(password, SecretStr):
            password = password.get_secret_value()
        database = _text(data.get("pgdatabase")) or user
        url = pg_url(host, int(port), user, str(password) if password else None, database)
        return {**data, "database_url": url}

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip()
        found = _PG_URL.match(value)
        if not found or any(
            _BAD_ESCAPE.search(found[part] or "") for part in ("user", "password")
        ):
            raise ValueError(
                "must be of the form postgresql://USER:PASSWORD@HOST:5432/DBNAME, with each"
                " @ : / ? # % of the password written %40 %3A %2F %3F %23 %25 (or set PGHOST,"
                " PGUSER, PGPASSWORD and PGDATABASE instead: any password works there)"
            )
        return value

    @field_validator("pghost")
    @classmethod
    def _pghost(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip()
        if not _PG_HOST.match(value):
            raise ValueError("must be a host name or address, e.g. db or 127.0.0.1")
        return value

    @field_validator("pguser")
    @classmethod
    def _pguser(cls, value: str | None, info: ValidationInfo) -> str | None:
        value = value.strip() if value else None
        if not value and info.data.get("pghost") and not info.data.get("database_url"):
            raise ValueError("is required with PGHOST (the database role, e.g. prefbot)")
        return value or None

    @field_validator("webhook_url")
    @classmethod
    def _webhook_url(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip()
        if not re.match(r"^https?://[^\s/?#]+(/[^\s?#]*)?$", value):
            raise ValueError("must be a URL such as https://bot.example.org/telegram")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _webhook_secret(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        secret = value.get_secret_value().strip() if value is not None else ""
        if not secret:
            if info.data.get("webhook_url"):
                raise ValueError("is required with WEBHOOK_URL (1-256 of A-Z a-z 0-9 _ -)")
            return None
        if not re.match(r"^[A-Za-z0-9_-]{1,256}$", secret):
            raise ValueError("must be 1-256 characters of A-Z a-z 0-9 _ -, e.g. s3cret_Value-1")
        return SecretStr(secret)

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip()
        if not re.match(r"^rediss?://\S+$", value):
            raise ValueError("must be of the form redis://HOST:6379/0")
        try:  # importable, not merely present: a broken or partial install is told here too
            importlib.import_module("redis.asyncio")
        except ImportError:
            raise ValueError(
                "needs the redis package, which is not installed: build the image with"
                " --build-arg EXTRAS=redis, or pip install -e '.[redis]'"
            ) from None
        return value

    def database_setting(self) -> str:
        """The setting that names the database, as the user gave it and masked, for messages:
        `DATABASE_URL=postgresql://***@db:5432/prefbot`, `PGHOST=db PGPORT=5432 …` or
        `DATABASE_PATH=…`."""
        if self.database_url is None:
            return f"DATABASE_PATH={self.database_path}"
        if self.pghost is not None and self.pguser is not None:
            password = self.pgpassword.get_secret_value() if self.pgpassword else None
            database = self.pgdatabase or self.pguser
            built = pg_url(self.pghost, self.pgport, self.pguser, password, database)
            if built == self.database_url:
                return f"PGHOST={self.pghost} PGPORT={self.pgport} PGDATABASE={database}"
        return f"DATABASE_URL={masked_url(self.database_url)}"

    def webhook_path(self) -> str | None:
        """The path of WEBHOOK_URL the listener serves ("/" when it has none); None in polling."""
        if self.webhook_url is None:
            return None
        return urlsplit(self.webhook_url).path or "/"

    @field_validator("web_listen")
    @classmethod
    def _listen(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        host, sep, port = value.strip().rpartition(":")
        if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError("must be HOST:PORT, e.g. 0.0.0.0:8080")
        return f"{host or DEFAULT_HOST}:{int(port)}"

    @field_validator("miniapp_link")
    @classmethod
    def _miniapp_link(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip().rstrip("/")
        if not re.match(r"^https://t\.me/[A-Za-z0-9_]+/[A-Za-z0-9_]+$", value):
            raise ValueError("must be https://t.me/<bot username>/<app short name>")
        return value

    @field_validator("miniapp_url")
    @classmethod
    def _miniapp_url(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip().rstrip("/")
        if not value.startswith("https://"):
            raise ValueError("must be the page's https:// address, e.g. https://example.org/app")
        return value

    def web_address(self) -> tuple[str, int] | None:
        """Where the web listener runs: WEB_LISTEN, else 0.0.0.0:8080 when MINIAPP_LINK or
        WEBHOOK_URL is set, else nowhere (long polling alone)."""
        if self.web_listen is None:
            wanted = self.miniapp_link or self.webhook_url
            return (DEFAULT_HOST, DEFAULT_PORT) if wanted else None
        host, _, port = self.web_listen.rpartition(":")
        return host, int(port)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("default_locale", mode="before")
    @classmethod
    def _lower_locale(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


TOKEN_HELP: Final = (
    "BOT_TOKEN is {problem}: create a bot with @BotFather in Telegram (/newbot), then put its token "
    "into .env as BOT_TOKEN=123456789:AAE… or set the BOT_TOKEN environment variable."
)


def settings_error_lines(error: ValidationError) -> list[str]:
    """One line per bad setting, naming the env variable; never quoting a secret value."""
    lines: list[str] = []
    for item in error.errors(include_input=False, include_url=False):
        field = str(item["loc"][0]) if item["loc"] else "settings"
        if field == "bot_token":
            problem = "missing" if item["type"] == "missing" else "malformed"
            lines.append(TOKEN_HELP.format(problem=problem))
        else:
            message = str(item["msg"]).removeprefix("Value error, ")
            lines.append(f"{field.upper()} is invalid: {message}.")
    return lines


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else "" if value is None else str(value)


# Keys a `.env` holds for docker-compose.yml rather than for the bot.
COMPOSE_KEYS: Final = frozenset(
    {
        "POSTGRES_PASSWORD",
        "WEBHOOK_HOST",
        "COMPOSE_PROJECT_NAME",
        "COMPOSE_PROFILES",
        "COMPOSE_FILE",
    }
)
# Environment variables with these prefixes are taken for the bot's (a misspelt setting); the
# first word of a setting's name, but for words other programs use as well.
_OWN_PREFIX: Final = "PREFBOT_"
_SHARED_WORDS: Final = frozenset({"DEFAULT", "PG"})


def known_keys() -> frozenset[str]:
    return frozenset(name.upper() for name in Settings.model_fields) | COMPOSE_KEYS


def _prefixes() -> tuple[str, ...]:
    words = {name.upper().split("_")[0] for name in Settings.model_fields if "_" in name}
    return (_OWN_PREFIX, *sorted(f"{word}_" for word in words - _SHARED_WORDS))


def unknown_settings(
    env_file: Path | str = ENV_FILE, environ: Mapping[str, str] | None = None
) -> list[str]:
    """One line for each key of `.env` that no setting reads, and for each environment variable
    that looks like a setting (its prefix) but is none, with the nearest setting's name."""
    known = known_keys()
    lines: list[str] = []

    def say(key: str, where: str) -> None:
        near = difflib.get_close_matches(key.upper(), sorted(known), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        lines.append(f"{key} in {where} is not a setting of the bot and is ignored{hint}")

    path = Path(env_file)
    if path.is_file():
        for key in dotenv_values(path):
            if key.upper() not in known:
                say(key, str(path))
    environment = os.environ if environ is None else environ
    prefixes = _prefixes()
    for key in sorted(environment):
        upper = key.upper()
        if upper.startswith(prefixes) and upper not in known:
            say(key, "the environment")
    return lines


def storage_settings() -> Settings:
    """The settings of an operator's command (`python -m bot backup`): the database's, from the
    same environment and `.env` as the bot's, without needing its token."""
    return load_settings(bot_token=SecretStr("0:unused"))


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment and `.env`; a bad one exits with status 2 and one line."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        exit_with(settings_error_lines(error))


def exit_with(lines: list[str]) -> NoReturn:
    for line in lines:
        print(line, file=sys.stderr)
    raise SystemExit(EXIT_BAD_SETTINGS)
