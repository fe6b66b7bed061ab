"""docker-compose.yml: valid under the Compose Specification's schema once interpolated (as `docker
compose config` checks it: `tests.deploy.compose_lint`, also run by `make lint`), and giving the
bot a PostgreSQL password that works whatever characters it holds, a Redis under a profile, and
nothing the bot does not read."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from bot.settings import Settings, known_keys
from tests.deploy.compose_lint import LINT_ENV, Unset, interpolate, load, problems

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
# What `openssl rand -base64` makes, and worse: every character a URL gives a meaning to.
PASSWORDS = ("p@ss/w#rd%41:z+=", "a/b+c==", "x?y&z=1 ~'\"\\", "ü@:%25")


def bot_environment(password: str) -> dict[str, str]:
    service = load(COMPOSE, {"POSTGRES_PASSWORD": password})["services"]["bot"]
    environment = service["environment"]
    assert isinstance(environment, dict)
    return {key: str(value) for key, value in environment.items()}


def test_the_compose_file_is_valid_under_the_compose_specification() -> None:
    assert problems(COMPOSE) == []


def test_the_compose_lint_fails_a_misspelt_key_a_wrong_type_and_a_missing_password(
    tmp_path: Path,
) -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    misspelt = tmp_path / "misspelt.yml"
    misspelt.write_text(text.replace("restart: unless-stopped", "restrat: unless-stopped", 1))
    assert any("'restrat'" in line for line in problems(misspelt))
    wrong = tmp_path / "wrong.yml"
    wrong.write_text(text.replace("retries: 10", "retries: [10]", 1))
    assert any("retries" in line for line in problems(wrong))
    assert any("set POSTGRES_PASSWORD in .env" in line for line in problems(COMPOSE, env={}))


def test_interpolation_reads_variables_as_compose_does() -> None:
    env = {"A": "1", "E": ""}
    cases: dict[str, Any] = {
        "${A}": "1",
        "$A-x": "1-x",
        "${B:-d}": "d",
        "${E:-d}": "d",
        "${E-d}": "",
        "${A:+on}": "on",
        "${E:+on}": "",
        "$$A": "$A",
    }
    for text, wanted in cases.items():
        assert interpolate(text, env) == wanted, text
    with pytest.raises(Unset, match="B: say so"):
        interpolate({"k": ["${B:?say so}"]}, env)


@pytest.mark.parametrize("password", PASSWORDS)
def test_compose_gives_the_bot_any_postgres_password_as_it_is(
    password: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The password goes as PGPASSWORD, unencoded; the bot builds its URL with every part
    encoded, and asyncpg's reading of that URL (it unquotes each part) gives the password back."""
    env = bot_environment(password)
    assert env["PGPASSWORD"] == password and env["DATABASE_URL"] == ""
    database = load(COMPOSE, {"POSTGRES_PASSWORD": password})["services"]["db"]["environment"]
    assert database["POSTGRES_PASSWORD"] == password
    for name in list(os.environ):
        if name.upper() in known_keys():
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("BOT_TOKEN", "123456:ABC-def")
    settings = Settings()
    assert settings.database_url is not None
    found = re.fullmatch(r"postgresql://([^:@]+):([^@]+)@db:5432/prefbot", settings.database_url)
    assert found and unquote(found[1]) == "prefbot" and unquote(found[2]) == password
    assert settings.database_setting() == "PGHOST=db PGPORT=5432 PGDATABASE=prefbot"


def test_every_variable_compose_gives_the_bot_is_a_setting_it_reads() -> None:
    unknown = set(bot_environment("x")) - known_keys()
    assert unknown == set()


def test_redis_is_a_service_under_a_profile_and_the_image_is_built_with_the_redis_extra() -> None:
    services = load(COMPOSE, LINT_ENV)["services"]
    assert services["redis"]["profiles"] == ["redis"]
    assert services["bot"]["build"]["args"]["EXTRAS"] == "redis"
    assert "redis" not in services["bot"].get("depends_on", {})  # the bot starts without it
    assert services["proxy"]["profiles"] == ["webhook"]
    assert services["bot"]["depends_on"]["db"]["condition"] == "service_healthy"
