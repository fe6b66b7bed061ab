"""Secrets never in a message, the database named by the setting the user set, PostgreSQL by libpq's
PG* variables with any password, a misspelt key warned about, REDIS_URL refused without its
package: what an operator meets at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from pydantic import ValidationError

from bot.redact import masked_url
from bot.settings import Settings, known_keys, pg_url, settings_error_lines, unknown_settings
from bot.startup import StartupError, open_store

REPO = Path(__file__).resolve().parents[2]
# Every character that means something in a URL, and '+' that a form decoder turns into a space.
PASSWORD = "p@ss/w#rd%41:z+="
PIECES = ("p@ss", "ss/w", "w#rd", "rd%41", "%41:z", "z+=")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.upper() in known_keys() or name.upper().startswith("PREFBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def secret_free(text: str) -> bool:
    return not any(piece in text for piece in (PASSWORD, quote(PASSWORD, safe=""), *PIECES))


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://prefbot:{PASSWORD}@db:5432/prefbot",
        f"postgresql://prefbot:{quote(PASSWORD, safe='')}@db:5432/prefbot",
        f"postgresql://{quote(PASSWORD, safe='')}@db:5432/prefbot",
        f"redis://:{PASSWORD}@db:5432/prefbot",
        f"prefbot:{PASSWORD}@db:5432/prefbot",
    ],
)
def test_a_masked_url_keeps_no_part_of_the_user_info_whatever_it_holds(url: str) -> None:
    masked = masked_url(url)
    assert secret_free(masked) and "prefbot:" not in masked
    assert masked.endswith("***@db:5432/prefbot")


def test_a_url_without_user_info_is_shown_as_it_is() -> None:
    assert masked_url("https://api.example.org/x") == "https://api.example.org/x"


def test_a_database_url_with_a_raw_at_sign_in_its_password_is_refused_without_quoting_it() -> None:
    url = f"postgresql://prefbot:{PASSWORD}@db:5432/prefbot"
    with pytest.raises(ValidationError) as caught:
        Settings(bot_token="42:TEST", database_url=url)
    lines = settings_error_lines(caught.value)
    assert len(lines) == 1 and lines[0].startswith("DATABASE_URL is invalid: ")
    assert "%40" in lines[0] and "PGPASSWORD" in lines[0]
    assert secret_free(lines[0]) and secret_free(str(caught.value))


def test_a_percent_encoded_password_in_database_url_is_taken() -> None:
    url = f"postgresql://prefbot:{quote(PASSWORD, safe='')}@db:5432/prefbot"
    assert Settings(bot_token="42:TEST", database_url=url).database_url == url
    assert (
        Settings(bot_token="42:TEST", database_url=url).database_setting()
    ) == "DATABASE_URL=postgresql://***@db:5432/prefbot"


def test_pg_variables_name_postgresql_with_any_password_encoded_in_the_url() -> None:
    settings = Settings(
        bot_token="42:TEST",
        pghost="db",
        pguser="pref bot",
        pgpassword=PASSWORD,
        pgdatabase="prefbot",
    )
    assert settings.database_url == pg_url("db", 5432, "pref bot", PASSWORD, "prefbot")
    assert settings.database_url == (
        "postgresql://pref%20bot:p%40ss%2Fw%23rd%2541%3Az%2B%3D@db:5432/prefbot"
    )
    assert settings.database_setting() == "PGHOST=db PGPORT=5432 PGDATABASE=prefbot"
    assert secret_free(repr(settings)) and secret_free(str(settings))


def test_database_url_wins_over_the_pg_variables() -> None:
    url = "postgresql://a:b@elsewhere:5433/other"
    settings = Settings(bot_token="42:TEST", database_url=url, pghost="db", pguser="u")
    assert settings.database_url == url
    assert settings.database_setting() == "DATABASE_URL=postgresql://***@elsewhere:5433/other"


def test_pg_variables_come_from_the_environment_and_the_database_defaults_to_the_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in {"BOT_TOKEN": "42:TEST", "PGHOST": "db", "PGPORT": "6432"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PGUSER", "prefbot")
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    settings = Settings()
    assert settings.database_url is not None
    assert settings.database_url.endswith("@db:6432/prefbot")


@pytest.mark.parametrize(
    ("given", "line"),
    [
        ({"pghost": "db", "pguser": "u", "pgport": "54x"}, "PGPORT is invalid: "),
        ({"pghost": "db", "pguser": "u", "pgport": "70000"}, "PGPORT is invalid: "),
        ({"pghost": "db"}, "PGUSER is invalid: is required with PGHOST"),
        ({"pghost": "d b", "pguser": "u"}, "PGHOST is invalid: must be a host name"),
    ],
)
def test_a_bad_pg_variable_is_named_itself_never_database_url(
    given: dict[str, Any], line: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(bot_token="42:TEST", pgpassword=PASSWORD, **given)
    lines = settings_error_lines(caught.value)
    assert len(lines) == 1 and lines[0].startswith(line), lines
    assert secret_free(lines[0])


async def test_an_unreachable_postgresql_named_by_pg_variables_is_one_line_naming_them() -> None:
    settings = Settings(
        bot_token="42:TEST", pghost="127.0.0.1", pgport=1, pguser="prefbot", pgpassword=PASSWORD
    )
    with pytest.raises(StartupError) as caught:
        await open_store(settings)
    message = str(caught.value)
    assert message.startswith("PGHOST=127.0.0.1 PGPORT=1 PGDATABASE=prefbot cannot be opened")
    assert secret_free(message) and "\n" not in message and caught.value.transient


def _start(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    own = known_keys()
    base = {k: v for k, v in os.environ.items() if k.upper() not in own}
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={**base, "PYTHONPATH": str(REPO), "BOT_TOKEN": "123456:ABC-def", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_python_m_bot_never_writes_the_password_of_a_bad_database_url(tmp_path: Path) -> None:
    done = _start({"DATABASE_URL": f"postgresql://prefbot:{PASSWORD}@db:5432/prefbot"}, tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("DATABASE_URL is invalid")
    assert secret_free(done.stderr + done.stdout)


def test_python_m_bot_gives_up_on_an_unreachable_database_naming_it_without_the_password(
    tmp_path: Path,
) -> None:
    """PostgreSQL by PG* on a port where nothing listens: one line a try, then exit 2."""
    done = _start(
        {
            "PGHOST": "127.0.0.1",
            "PGPORT": "1",
            "PGUSER": "prefbot",
            "PGPASSWORD": PASSWORD,
            "DATABASE_WAIT_SECONDS": "2",
        },
        tmp_path,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    tries = [line for line in done.stderr.splitlines() if "Trying again in" in line]
    assert len(tries) >= 1 and all("PGHOST=127.0.0.1 PGPORT=1" in line for line in tries)
    last = done.stderr.strip().splitlines()[-1]
    assert "Gave up after" in last and "DATABASE_WAIT_SECONDS" in last
    assert secret_free(done.stderr + done.stdout)


def test_unknown_keys_of_dot_env_and_prefixed_variables_are_named_with_the_nearest_setting(
    tmp_path: Path,
) -> None:
    (tmp_path / ".env").write_text(
        "BOT_TOKEN=42:TEST\nDATABSE_PATH=x.db\nPOSTGRES_PASSWORD=pw\nWEBHOOK_HOST=h\nFOO=1\n"
    )
    environ = {
        "LOG_LEVL": "DEBUG",
        "PREFBOT_DEBUG": "1",
        "HOME": "/root",
        "PGSSLMODE": "require",  # libpq's own, read by asyncpg
        "DEFAULT_EDITOR": "vi",
        "REDIS_URL": "",
    }
    lines = unknown_settings(tmp_path / ".env", environ)
    assert lines == [
        f"DATABSE_PATH in {tmp_path / '.env'} is not a setting of the bot and is ignored"
        " (did you mean DATABASE_PATH?)",
        f"FOO in {tmp_path / '.env'} is not a setting of the bot and is ignored",
        "LOG_LEVL in the environment is not a setting of the bot and is ignored"
        " (did you mean LOG_LEVEL?)",
        "PREFBOT_DEBUG in the environment is not a setting of the bot and is ignored",
    ]


def test_redis_url_without_the_redis_extra_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    """The bot started with REDIS_URL where `redis` cannot be imported (no extra, or a broken
    one): one line saying what to install, exit status 2, no traceback (issue 36)."""
    broken = tmp_path / "site" / "redis"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('no redis here')\n")
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "site"),
        "BOT_TOKEN": "42:TEST",
        "REDIS_URL": "redis://:pw@redis:6379/0",
        "DATABASE_PATH": str(tmp_path / "bot.sqlite3"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("REDIS_URL is invalid: needs the redis package")
    assert "EXTRAS=redis" in lines[0] and "pip install" in lines[0] and ":pw@" not in lines[0]


def test_with_the_redis_extra_redis_url_gives_aiograms_redis_storage() -> None:
    from aiogram.fsm.storage.redis import RedisEventIsolation, RedisStorage

    from bot.telegram.inbound.fsm import fsm_backend

    settings = Settings(bot_token="42:TEST", redis_url="redis://127.0.0.1:1/0")
    storage, isolation = fsm_backend(settings)
    assert isinstance(storage, RedisStorage)  # no connection until it is used
    assert isinstance(isolation, RedisEventIsolation)
