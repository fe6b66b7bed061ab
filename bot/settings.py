"""The bot's settings, read once from the environment and `.env`; a bad one is one line, status 2."""

import difflib
import importlib
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal, NoReturn
from urllib.parse import quote, urlsplit

from dotenv import dotenv_values
from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.redact import masked_url

EXIT_BAD_SETTINGS: Final = 2
ENV_FILE: Final = ".env"

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
# A URL that may hold a password: kept out of the settings' repr.
HiddenUrl = Annotated[str | None, Field(repr=False)]

# The checks of single settings: each returns the value as the bot uses it, or raises ValueError
# with the hint printed after the setting's name.
DEFAULT_HOST: Final = "0.0.0.0"
DEFAULT_PG_PORT: Final = 5432
# postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?options]: no raw @ : / ? # in the user or the
# password (asyncpg splits the URL at the first @ and the first :), a % only as an escape.
_PG_URL: Final = re.compile(
    r"^postgres(?:ql)?://(?P<user>[^\s:/@?#]+)(?::(?P<password>[^\s/@?#]*))?"
    r"@(?P<host>[^\s/:@?#\[\]]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?/[^\s/?#]+(?:\?\S*)?$"
)
_BAD_ESCAPE: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PG_HOST: Final = re.compile(r"^[^\s/@?#]+$")


def pg_url(host: str, port: int, user: str, password: str | None, database: str) -> str:
    """The DATABASE_URL of libpq's PG* settings, each part percent-encoded (any password)."""
    auth = quote(user, safe="")
    if password:
        auth += ":" + quote(password, safe="")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    return f"postgresql://{auth}@{host}:{port}/{quote(database, safe='')}"


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else "" if value is None else str(value)


def _optional(check: Callable[[str], str]) -> Callable[[str | None], str | None]:
    """A check of an optional text setting: blank is unset, else `check` of it stripped."""
    return lambda value: check(value.strip()) if value and value.strip() else None


def _below(count_field: str) -> AfterValidator:
    def check(value: int, info: ValidationInfo) -> int:
        count = info.data.get(count_field)
        if isinstance(count, int) and value >= count:
            raise ValueError(f"must be below {count_field.upper()} ({count})")
        return value

    return AfterValidator(check)


def _token(value: SecretStr) -> SecretStr:
    if not re.match(r"^\d{1,20}:[A-Za-z0-9_-]{1,100}$", value.get_secret_value().strip()):
        raise ValueError("not of the form 123456:ABC-DEF")
    return SecretStr(value.get_secret_value().strip())


def _matching(pattern: str, hint: str, strip: str = "") -> Callable[[str | None], str | None]:
    """An optional text setting that matches `pattern`, `strip`'s characters taken off its end."""

    def check(value: str) -> str:
        if not re.match(pattern, value := value.rstrip(strip)):
            raise ValueError(hint)
        return value

    return _optional(check)


_api_url = _matching(r"^https?://[^\s/]+", "must start with http:// or https://", strip="/")
_pghost = _matching(_PG_HOST.pattern, "must be a host name or address, e.g. db or 127.0.0.1")
_webhook_url = _matching(
    r"^https?://[^\s/?#]+(/[^\s?#]*)?$", "must be a URL such as https://bot.example.org/telegram"
)
_miniapp_link = _matching(
    r"^https://t\.me/[A-Za-z0-9_]+/[A-Za-z0-9_]+$",
    "must be https://t.me/<bot username>/<app short name>",
    strip="/",
)
_miniapp_url = _matching(
    r"^https://", "must be the page's https:// address, e.g. https://example.org/app", strip="/"
)


@_optional
def _database_url(value: str) -> str:
    found = _PG_URL.match(value)
    if not found or any(_BAD_ESCAPE.search(found[part] or "") for part in ("user", "password")):
        raise ValueError(
            "must be of the form postgresql://USER:PASSWORD@HOST:5432/DBNAME, with each"
            " @ : / ? # % of the password written %40 %3A %2F %3F %23 %25 (or set PGHOST,"
            " PGUSER, PGPASSWORD and PGDATABASE instead: any password works there)"
        )
    return value


def _pguser(value: str | None, info: ValidationInfo) -> str | None:
    value = value.strip() if value else None
    if not value and info.data.get("pghost") and not info.data.get("database_url"):
        raise ValueError("is required with PGHOST (the database role, e.g. prefbot)")
    return value or None


def _webhook_secret(value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
    secret = value.get_secret_value().strip() if value is not None else ""
    if not secret:
        if info.data.get("webhook_url"):
            raise ValueError("is required with WEBHOOK_URL (1-256 of A-Z a-z 0-9 _ -)")
        return None
    if not re.match(r"^[A-Za-z0-9_-]{1,256}$", secret):
        raise ValueError("must be 1-256 characters of A-Z a-z 0-9 _ -, e.g. s3cret_Value-1")
    return SecretStr(secret)


@_optional
def _redis_url(value: str) -> str:
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


@_optional
def _listen(value: str) -> str:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError("must be HOST:PORT, e.g. 0.0.0.0:8080")
    return f"{host or DEFAULT_HOST}:{int(port)}"


def _cased(case: Callable[[str], str]) -> BeforeValidator:
    """A check of a choice: stripped, in the case of its choices."""
    return BeforeValidator(lambda value: case(value.strip()) if isinstance(value, str) else value)


class Settings(BaseSettings):
    """Env names are the field names in upper case: BOT_TOKEN, DATABASE_PATH, TELEGRAM_API_URL…"""

    # hide_input_in_errors: a ValidationError printed whole never shows a value (a password);
    # validate_default: a default is checked against the settings given (a burst below its count).
    model_config = SettingsConfigDict(
        env_file=ENV_FILE,
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        hide_input_in_errors=True,
        validate_default=True,
    )

    bot_token: Annotated[SecretStr, AfterValidator(_token)]
    # Relative to where the bot runs; the image sets /data/prefbot.sqlite3, its volume.
    database_path: Path = Path("data/prefbot.sqlite3")
    # PostgreSQL instead of the SQLite file; built from PGHOST… when those are given instead.
    database_url: Annotated[HiddenUrl, AfterValidator(_database_url)] = None
    # libpq's own names, so that compose passes the password as it is, unencoded.
    pghost: Annotated[str | None, AfterValidator(_pghost)] = None
    pgport: int = Field(default=DEFAULT_PG_PORT, ge=1, le=65535)
    pguser: Annotated[str | None, AfterValidator(_pguser)] = None
    pgpassword: SecretStr | None = None
    pgdatabase: str | None = None
    database_wait_seconds: float = Field(default=60.0, ge=0, le=3600)
    telegram_api_url: Annotated[HiddenUrl, AfterValidator(_api_url)] = None
    default_locale: Annotated[Literal["ru", "en"], _cased(str.lower)] = "ru"
    log_level: Annotated[LogLevel, _cased(str.upper)] = "INFO"
    log_format: Literal["text", "json"] = "text"
    web_listen: Annotated[str | None, AfterValidator(_listen)] = None
    miniapp_link: Annotated[str | None, AfterValidator(_miniapp_link)] = None
    # The page's https address registered with @BotFather: a private chat's web_app button.
    miniapp_url: Annotated[str | None, AfterValidator(_miniapp_url)] = None
    # Unset: long polling. Set: Telegram POSTs updates there, with WEBHOOK_SECRET in a header.
    webhook_url: Annotated[str | None, AfterValidator(_webhook_url)] = None
    webhook_secret: Annotated[SecretStr | None, AfterValidator(_webhook_secret)] = None
    # aiogram's RedisStorage for the /deal steps (the optional `redis` package).
    redis_url: Annotated[HiddenUrl, AfterValidator(_redis_url)] = None
    # Not part of the documented environment contract; tests shorten it.
    polling_timeout: int = Field(default=10, ge=0, le=50)
    # How long the vote clock's lease lasts unrenewed before another instance takes it over.
    lease_seconds: float = Field(default=10.0, gt=0, le=600)
    # The token buckets that pace what the bot sends to Telegram's limits (bot/telegram/pacing.py).
    pace_group_per_minute: int = Field(default=20, ge=2)
    pace_group_burst: Annotated[int, Field(ge=1), _below("pace_group_per_minute")] = 10
    pace_private_per_second: float = Field(default=1.0, gt=0)
    pace_private_burst: int = Field(default=3, ge=1)
    pace_bot_per_second: int = Field(default=30, ge=2)
    pace_bot_burst: Annotated[int, Field(ge=1), _below("pace_bot_per_second")] = 10

    @model_validator(mode="before")
    @classmethod
    def _url_of_pg(cls, data: Any) -> Any:
        """DATABASE_URL from PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE when it is not set
        itself and those are well formed (a bad one is then named by its own validator)."""
        if not isinstance(data, dict) or _text(data.get("database_url")):
            return data
        host, user = _text(data.get("pghost")), _text(data.get("pguser"))
        port = _text(data.get("pgport")) or str(DEFAULT_PG_PORT)
        if not (user and _PG_HOST.match(host) and port.isdigit() and 0 < int(port) < 65536):
            return data
        password = data.get("pgpassword")
        if isinstance(password, SecretStr):
            password = password.get_secret_value()
        database = _text(data.get("pgdatabase")) or user
        url = pg_url(host, int(port), user, str(password) if password else None, database)
        return {**data, "database_url": url}

    def database_setting(self) -> str:
        """The setting that names the database as the user gave it, masked, for messages."""
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
        return None if self.webhook_url is None else urlsplit(self.webhook_url).path or "/"

    def web_address(self) -> tuple[str, int] | None:
        """WEB_LISTEN, else 0.0.0.0:8080 for the Mini App or the webhook, else None."""
        if self.web_listen is None:
            return (DEFAULT_HOST, 8080) if self.miniapp_link or self.webhook_url else None
        host, _, port = self.web_listen.rpartition(":")
        return host, int(port)


def settings_error_lines(error: ValidationError) -> list[str]:
    """One line per bad setting, naming the env variable; never quoting a secret value."""
    lines: list[str] = []
    for item in error.errors(include_input=False, include_url=False):
        field = str(item["loc"][0]) if item["loc"] else "settings"
        if field == "bot_token":
            problem = "missing" if item["type"] == "missing" else "malformed"
            lines.append(
                f"BOT_TOKEN is {problem}: create a bot with @BotFather in Telegram (/newbot), then"
                " put its token into .env as BOT_TOKEN=123456789:AAE… or set the BOT_TOKEN"
                " environment variable."
            )
        else:
            message = str(item["msg"]).removeprefix("Value error, ")
            lines.append(f"{field.upper()} is invalid: {message}.")
    return lines


def known_keys() -> frozenset[str]:
    compose = {  # keys a `.env` holds for docker-compose.yml rather than for the bot
        "POSTGRES_PASSWORD",
        "WEBHOOK_HOST",
        "COMPOSE_PROJECT_NAME",
        "COMPOSE_PROFILES",
        "COMPOSE_FILE",
    }
    return frozenset(name.upper() for name in Settings.model_fields) | compose


def unknown_settings(
    env_file: Path | str = ENV_FILE, environ: Mapping[str, str] | None = None
) -> list[str]:
    """A line for each key of `.env`, or variable named like a setting, that no setting reads."""
    known = known_keys()
    # Environment variables with these prefixes are taken for misspelt settings: the bot's own, and
    # a setting's first word but for words other programs use as well.
    words = {name.upper().split("_")[0] for name in Settings.model_fields if "_" in name}
    prefixes = ("PREFBOT_", *(f"{word}_" for word in words - {"DEFAULT", "PG"}))
    path = Path(env_file)
    found = [(key, str(path)) for key in dotenv_values(path)] if path.is_file() else []
    env = os.environ if environ is None else environ
    found += [(key, "the environment") for key in sorted(env) if key.upper().startswith(prefixes)]
    lines = []
    for key, where in found:
        if key.upper() not in known:
            near = difflib.get_close_matches(key.upper(), sorted(known), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            lines.append(f"{key} in {where} is not a setting of the bot and is ignored{hint}")
    return lines


def storage_settings() -> Settings:
    """The settings of an operator's command (`python -m bot backup`): no token needed."""
    return load_settings(bot_token=SecretStr("0:unused"))


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment and `.env`; a bad one exits with status 2 and one line."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        exit_with(settings_error_lines(error))


def exit_with(lines: list[str]) -> NoReturn:
    print("\n".join(lines), file=sys.stderr)
    raise SystemExit(EXIT_BAD_SETTINGS)
