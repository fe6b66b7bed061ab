"""The image as the README runs it: `docker build` then `docker run --env-file .env` with `.env`
copied from `.env.example`. There is no Docker engine on this machine, so the Dockerfile is
linted (hadolint) and read, and what the image would do is run here: its dependency step on this
pyproject.toml, its settings from its ENV and the env file, its health check against a listener."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from bot.settings import Settings, unknown_settings
from tests.test_lock import locked

REPO = Path(__file__).resolve().parents[2]
HADOLINT = Path(sys.executable).parent / "hadolint"
SOURCES = ("scoring", "bot", "handlers", "locales")


def instructions(text: str | None = None) -> list[tuple[str, str]]:
    """The Dockerfile's instructions (name, arguments), continuation lines joined."""
    text = (REPO / "Dockerfile").read_text(encoding="utf-8") if text is None else text
    joined = re.sub(r"\\\n", " ", text)
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, rest = line.partition(" ")
            found.append((name.upper(), rest.strip()))
    return found


def image_env() -> dict[str, str]:
    """What the image's ENV instructions set."""
    env: dict[str, str] = {}
    for name, rest in instructions():
        if name == "ENV":
            for word in shlex.split(rest):
                key, _, value = word.partition("=")
                env[key] = value
    return env


def env_file(path: Path) -> dict[str, str]:
    """A file read the way `docker run --env-file` reads it: KEY=VALUE lines taken literally
    (no quotes removed, no comment after a value), `#` lines and blank lines skipped."""
    env: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition("=")
        assert sep, f"{line!r}: docker takes a line without = as a variable of the host"
        env[key] = value
    return env


def run_hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(HADOLINT), "--no-color", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_hadolint_passes_the_dockerfile() -> None:
    done = run_hadolint(REPO / "Dockerfile")
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_is_a_real_linter_that_fails_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN apt-get install curl\nCMD python -m bot\n")
    done = run_hadolint(bad)
    assert done.returncode != 0
    assert "DL3007" in done.stdout and "DL3008" in done.stdout  # :latest, unpinned apt


def test_the_dependencies_are_installed_from_the_lock_before_the_sources_are_copied() -> None:
    steps = instructions()
    copies = [i for i, (name, _) in enumerate(steps) if name == "COPY"]
    first_source = min(
        i for i in copies if steps[i][1].split()[0] in SOURCES or steps[i][1].startswith(".")
    )
    installs = [
        i
        for i, (name, rest) in enumerate(steps)
        if name == "RUN" and "-r /tmp/requirements.txt" in rest
    ]
    assert installs and installs[0] < first_source
    assert "-c requirements.lock" in steps[installs[0]][1]
    before = [steps[i][1].split()[:-1] for i in copies if i < installs[0]]
    assert before == [["pyproject.toml", "requirements.lock"]]
    project = next(rest for name, rest in steps[first_source:] if name == "RUN")
    assert "--no-deps" in project  # the project alone: nothing outside the lock


def _dependency_script() -> str:
    run = next(rest for name, rest in instructions() if name == "RUN" and "tomllib" in rest)
    found = re.search(r"python -c ('[^']+')", run)
    assert found
    return shlex.split(found[1])[0]


@pytest.mark.parametrize("extras", ["", "redis"])
def test_the_image_installs_pyprojects_dependencies_and_the_extras_asked_for(
    extras: str,
) -> None:
    """The Dockerfile's own step, run on this pyproject.toml (EXTRAS is its build argument)."""
    done = subprocess.run(
        [sys.executable, "-c", _dependency_script(), extras],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    wanted = done.stdout.split()
    assert "aiogram==3.31.0" in wanted and "asyncpg==0.32.0" in wanted
    assert any(w.startswith("redis==") for w in wanted) == (extras == "redis")
    assert not any(w.startswith(("pytest", "ruff", "hadolint")) for w in wanted)
    pins = locked()
    for requirement in wanted:
        name, _, version = requirement.partition("==")
        assert pins[name.lower()] == version, f"{requirement} is not what the lock pins"


def test_the_image_runs_as_a_numeric_user_and_has_a_health_check() -> None:
    steps = dict(instructions())
    assert re.fullmatch(r"\d+(:\d+)?", steps["USER"]) and not steps["USER"].startswith("0")
    assert "python" in steps["HEALTHCHECK"] and "/healthz" in steps["HEALTHCHECK"]
    assert "curl" not in steps["HEALTHCHECK"] and "--start-period" in steps["HEALTHCHECK"]
    assert steps["ARG"].startswith("EXTRAS=")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    for name in list(os.environ):
        if name.upper() in {k.upper() for k in Settings.model_fields}:
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def test_env_example_is_a_file_docker_run_env_file_reads_as_written() -> None:
    for line in (REPO / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            assert re.fullmatch(r"[A-Z][A-Z0-9_]*", key), line
            assert not value.startswith(("'", '"')) and " #" not in value, line


def test_env_example_under_docker_run_keeps_the_images_database_on_its_volume(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`docker run --env-file .env`: the image's ENV, then the file's lines over them."""
    env = {**image_env(), **env_file(REPO / ".env.example"), "BOT_TOKEN": "123456:ABC-def"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.database_path == Path("/data/prefbot.sqlite3")
    assert settings.web_address() == ("0.0.0.0", 8080)  # /healthz answers the HEALTHCHECK
    assert settings.database_url is None and settings.log_format == "text"


def test_env_example_as_dot_env_under_make_run_keeps_the_database_in_data(
    clean_env: Path,
) -> None:
    text = (REPO / ".env.example").read_text(encoding="utf-8")
    (clean_env / ".env").write_text(text.replace("BOT_TOKEN=\n", "BOT_TOKEN=123456:ABC-def\n"))
    settings = Settings()
    assert settings.database_path == Path("data/prefbot.sqlite3")
    assert unknown_settings(environ={}) == []  # every key of the example is a setting


def test_every_setting_is_described_in_env_example() -> None:
    text = (REPO / ".env.example").read_text(encoding="utf-8")
    undocumented = {"polling_timeout"}  # the tests' own
    for name in sorted(set(Settings.model_fields) - undocumented):
        assert re.search(rf"^#? ?{name.upper()}=", text, re.M), name


async def _health_check(status: int, tmp_path: Path) -> int:
    """The image's HEALTHCHECK command against a listener answering `status` on /healthz."""

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"ok": status == 200}, status=status)

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    argv = json.loads(dict(instructions())["HEALTHCHECK"].partition("CMD ")[2])  # exec form
    assert argv[0] == "python"
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            *argv[1:],
            env={**os.environ, "WEB_LISTEN": f"0.0.0.0:{port}"},
            stderr=asyncio.subprocess.DEVNULL,
            cwd=tmp_path,
        )
        return await asyncio.wait_for(process.wait(), 30)
    finally:
        await runner.cleanup()


async def test_the_health_check_passes_on_200_and_fails_on_503(tmp_path: Path) -> None:
    assert await _health_check(200, tmp_path) == 0
    assert await _health_check(503, tmp_path) != 0
