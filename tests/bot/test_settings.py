"""Settings from the environment and `.env` (issue 4, Deliver 1): a bad token stops the start with one
clear line and status 2, never a traceback and never the token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.settings import Settings, load_settings, settings_error_lines
from bot.startup import StartupError, open_when_ready

REPO = Path(__file__).resolve().parents[2]
OWN_ENV = (
    *("BOT_TOKEN", "DATABASE_PATH", "TELEGRAM_API_URL", "DEFAULT_LOCALE", "LOG_LEVEL"),
    *("PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE", "DATABASE_URL"),
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in OWN_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no developer's .env


def test_settings_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", "123456:ABC-def_1")
    monkeypatch.setenv("TELEGRAM_API_URL", "http://127.0.0.1:8081/")
    monkeypatch.setenv("DEFAULT_LOCALE", "EN")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    settings = Settings()
    assert settings.bot_token.get_secret_value() == "123456:ABC-def_1"
    assert settings.telegram_api_url == "http://127.0.0.1:8081"
    assert settings.default_locale == "en" and settings.log_level == "DEBUG"
    assert settings.database_path == Path("data/prefbot.sqlite3")
    assert "ABC-def" not in repr(settings)


def test_settings_are_read_from_a_dot_env_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("BOT_TOKEN=42:FROM_FILE\nDATABASE_PATH=x/y.db\n")
    settings = Settings()
    assert settings.bot_token.get_secret_value() == "42:FROM_FILE"
    assert settings.database_path == Path("x/y.db")


@pytest.mark.parametrize(
    ("token", "problem"), [(None, "missing"), ("not-a-token", "malformed"), ("12:", "malformed")]
)
def test_a_missing_or_malformed_token_is_one_line_saying_where_to_get_one(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    token: str | None,
    problem: str,
) -> None:
    if token is not None:
        monkeypatch.setenv("BOT_TOKEN", token)
    with pytest.raises(SystemExit) as stop:
        load_settings()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"BOT_TOKEN is {problem}" in err and "@BotFather" in err and ".env" in err
    if token:
        assert token not in err.replace("BOT_TOKEN", "")


def test_a_bad_api_url_names_its_setting() -> None:
    with pytest.raises(ValidationError) as error:
        Settings(bot_token="42:TEST", telegram_api_url="ftp://x")  # type: ignore[arg-type]
    assert settings_error_lines(error.value) == [
        "TELEGRAM_API_URL is invalid: must start with http:// or https://."
    ]


def test_python_m_bot_without_a_token_exits_2_without_a_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in OWN_ENV}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "@BotFather" in done.stderr


async def test_an_unopenable_database_is_one_clear_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    settings = Settings(bot_token="123456:SECRET-value", database_path=blocker / "db.sqlite3")
    with pytest.raises(StartupError) as error:
        await open_when_ready(settings)
    line = str(error.value)
    assert line.startswith("DATABASE_PATH=") and "\n" not in line and "SECRET" not in line


async def test_a_token_telegram_refuses_stops_the_start_with_one_clear_line() -> None:
    from aiogram.methods import GetMe

    from bot.app import wait_for_telegram
    from tests.bot.mocked_bot import MockedBot

    bot = MockedBot()
    bot.add_result_for(GetMe, ok=False, description="Unauthorized", error_code=401)
    with pytest.raises(StartupError) as error:
        await wait_for_telegram(bot)
    assert "@BotFather" in str(error.value) and "42:TEST" not in str(error.value)
