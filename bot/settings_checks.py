"""The checks of single settings: each returns the value as the bot uses it, or raises ValueError
with the hint printed after the setting's name."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any, Final
from urllib.parse import quote

from pydantic import SecretStr, ValidationInfo

TOKEN_FORM: Final = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{1,100}$")
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


def _stripped(value: str | None) -> str | None:
    return value.strip() if value and value.strip() else None


def url_of_pg(data: Any) -> Any:
    """DATABASE_URL from PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE when it is not set
    itself and those are well formed (a bad one is then named by its own validator)."""
    if not isinstance(data, dict) or _text(data.get("database_url")):
        return data
    host, user = _text(data.get("pghost")), _text(data.get("pguser"))
    port = _text(data.get("pgport")) or str(DEFAULT_PG_PORT)
    if not (host and user and _PG_HOST.match(host) and port.isdigit() and 0 < int(port) < 65536):
        return data
    password = data.get("pgpassword")
    if isinstance(password, SecretStr):
        password = password.get_secret_value()
    database = _text(data.get("pgdatabase")) or user
    url = pg_url(host, int(port), user, str(password) if password else None, database)
    return {**data, "database_url": url}


def below(count_field: str) -> Callable[[int, ValidationInfo], int]:
    """A burst's check: below the count of `count_field`."""

    def check(value: int, info: ValidationInfo) -> int:
        count = info.data.get(count_field)
        if isinstance(count, int) and value >= count:
            raise ValueError(f"must be below {count_field.upper()} ({count})")
        return value

    return check


def token(value: SecretStr) -> SecretStr:
    if not TOKEN_FORM.match(value.get_secret_value().strip()):
        raise ValueError("not of the form 123456:ABC-DEF")
    return SecretStr(value.get_secret_value().strip())


def _matching(pattern: str, hint: str, strip: str = "") -> Callable[[str | None], str | None]:
    """A check of an optional text setting: blank is unset, else it matches `pattern` once
    `strip`'s characters are taken off its end."""

    def check(value: str | None) -> str | None:
        if (value := _stripped(value)) is None:
            return None
        if not re.match(pattern, value := value.rstrip(strip)):
            raise ValueError(hint)
        return value

    return check


api_url = _matching(r"^https?://[^\s/]+", "must start with http:// or https://", strip="/")
pghost = _matching(_PG_HOST.pattern, "must be a host name or address, e.g. db or 127.0.0.1")
webhook_url = _matching(
    r"^https?://[^\s/?#]+(/[^\s?#]*)?$", "must be a URL such as https://bot.example.org/telegram"
)
miniapp_link = _matching(
    r"^https://t\.me/[A-Za-z0-9_]+/[A-Za-z0-9_]+$",
    "must be https://t.me/<bot username>/<app short name>",
    strip="/",
)
miniapp_url = _matching(
    r"^https://", "must be the page's https:// address, e.g. https://example.org/app", strip="/"
)
_redis_form = _matching(r"^rediss?://\S+$", "must be of the form redis://HOST:6379/0")


def database_url(value: str | None) -> str | None:
    if (value := _stripped(value)) is None:
        return None
    found = _PG_URL.match(value)
    if not found or any(_BAD_ESCAPE.search(found[part] or "") for part in ("user", "password")):
        raise ValueError(
            "must be of the form postgresql://USER:PASSWORD@HOST:5432/DBNAME, with each"
            " @ : / ? # % of the password written %40 %3A %2F %3F %23 %25 (or set PGHOST,"
            " PGUSER, PGPASSWORD and PGDATABASE instead: any password works there)"
        )
    return value


def pguser(value: str | None, info: ValidationInfo) -> str | None:
    value = value.strip() if value else None
    if not value and info.data.get("pghost") and not info.data.get("database_url"):
        raise ValueError("is required with PGHOST (the database role, e.g. prefbot)")
    return value or None


def webhook_secret(value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
    secret = value.get_secret_value().strip() if value is not None else ""
    if not secret:
        if info.data.get("webhook_url"):
            raise ValueError("is required with WEBHOOK_URL (1-256 of A-Z a-z 0-9 _ -)")
        return None
    if not re.match(r"^[A-Za-z0-9_-]{1,256}$", secret):
        raise ValueError("must be 1-256 characters of A-Z a-z 0-9 _ -, e.g. s3cret_Value-1")
    return SecretStr(secret)


def redis_url(value: str | None) -> str | None:
    if (value := _redis_form(value)) is None:
        return None
    try:  # importable, not merely present: a broken or partial install is told here too
        importlib.import_module("redis.asyncio")
    except ImportError:
        raise ValueError(
            "needs the redis package, which is not installed: build the image with"
            " --build-arg EXTRAS=redis, or pip install -e '.[redis]'"
        ) from None
    return value


def listen(value: str | None) -> str | None:
    if (value := _stripped(value)) is None:
        return None
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError("must be HOST:PORT, e.g. 0.0.0.0:8080")
    return f"{host or DEFAULT_HOST}:{int(port)}"


def upper(value: object) -> object:
    return value.strip().upper() if isinstance(value, str) else value


def lower(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value
