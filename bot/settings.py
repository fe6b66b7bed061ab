"""The bot's settings, read once from the environment and `.env`.

`Settings()` is built in `bot.__main__` and passed down; nothing else reads the environment. A bad
setting stops the start-up with one line on stderr and exit status 2 — never a traceback, and never the
token's value.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Final, Literal, NoReturn
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

TOKEN_FORM: Final = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{1,100}$")
EXIT_BAD_SETTINGS: Final = 2
DEFAULT_HOST: Final = "0.0.0.0"
DEFAULT_PORT: Final = 8080

Locale = Literal["ru", "en"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class Settings(BaseSettings):
    """Env names are the field names in upper case: BOT_TOKEN, DATABASE_PATH, TELEGRAM_API_URL…"""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    bot_token: SecretStr
    database_path: Path = Path("data/prefbot.sqlite3")
    # postgresql://USER[:PASSWORD]@HOST:PORT/DBNAME; when set, PostgreSQL instead of the SQLite file.
    database_url: str | None = None
    telegram_api_url: str | None = None
    default_locale: Locale = "ru"
    log_level: LogLevel = "INFO"
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
    redis_url: str | None = None
    # Not part of the documented environment contract; tests shorten it.
    polling_timeout: int = Field(default=10, ge=0, le=50)
    # How long the vote clock's lease lasts unrenewed before another instance takes it over.
    lease_seconds: float = Field(default=10.0, gt=0, le=600)
    # Processes that draw the sheet pictures: a core of their own, which a worker
    # thread under the GIL does not get; 0 draws them in worker threads of the bot's process.
    picture_processes: int = Field(default=2, ge=0, le=8)
    # What the bot sends is paced to Telegram's limits by token buckets (bot/tg/pacing.py): at most
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

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip()
        if not re.match(r"^postgres(ql)?://[^\s/@]+(:[^\s/@]*)?@[^\s/:@]+(:\d+)?/[^\s/?]+", value):
            raise ValueError("must be of the form postgresql://USER:PASSWORD@HOST:5432/DBNAME")
        return value

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
        return value

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
