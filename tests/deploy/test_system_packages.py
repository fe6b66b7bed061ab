"""`make test` sets itself up (.ci/system-packages, its first step): what the tests need from the
system and the machine lacks is installed with apt-get as root or through sudo, or else one line
says what to install. Run here with stand-ins for `id`, `sudo` and `apt-get` on PATH, so that
nothing is installed for real."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".ci" / "system-packages"


def stand_in(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def machine(tmp_path: Path, *, uid: int, sudo: bool, apt: bool) -> tuple[Path, Path]:
    """A PATH of stand-ins; apt-get notes its calls and "installs" by creating the files."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("env", "cat", "mkdir", "touch", "chmod"):
        os.symlink(f"/usr/bin/{tool}", bin_dir / tool)
    stand_in(bin_dir, "id", f"echo {uid}")
    calls = tmp_path / "calls"
    if apt:
        install = (
            f'echo "apt-get $*" >> {calls}; '
            f'case "$*" in *install*) '
            f"mkdir -p {tmp_path}/pg/15/bin; touch {tmp_path}/chromium {tmp_path}/pg/15/bin/initdb "
            f"{tmp_path}/pg/15/bin/pg_ctl; chmod +x {tmp_path}/chromium {tmp_path}/pg/15/bin/*;; esac"
        )
        stand_in(bin_dir, "apt-get", install)
    if sudo:
        stand_in(bin_dir, "sudo", f'echo "sudo $*" >> {calls}; [ "$1" = -n ] && exit 0; "$@"')
    return bin_dir, calls


def run(tmp_path: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": str(bin_dir),
        "CHROMIUM": str(tmp_path / "chromium"),
        "POSTGRESQL_LIB": str(tmp_path / "pg"),
    }
    return subprocess.run(
        ["/bin/bash", str(SCRIPT)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_as_root_the_missing_packages_are_installed_with_apt_get(tmp_path: Path) -> None:
    bin_dir, calls = machine(tmp_path, uid=0, sudo=False, apt=True)
    done = run(tmp_path, bin_dir)
    assert done.returncode == 0, done.stderr
    assert "installing postgresql chromium" in done.stdout
    assert calls.read_text().splitlines() == [
        "apt-get update -qq",
        "apt-get install -y -qq --no-install-recommends postgresql chromium",
    ]


def test_a_user_with_sudo_gets_them_installed_through_sudo(tmp_path: Path) -> None:
    bin_dir, calls = machine(tmp_path, uid=1000, sudo=True, apt=True)
    done = run(tmp_path, bin_dir)
    assert done.returncode == 0, done.stderr
    said = calls.read_text().splitlines()
    assert "sudo apt-get update -qq" in said
    assert any(
        line.startswith("sudo env DEBIAN_FRONTEND=noninteractive apt-get install") for line in said
    )


def test_a_user_without_sudo_is_told_in_one_line_what_to_install(tmp_path: Path) -> None:
    bin_dir, calls = machine(tmp_path, uid=1000, sudo=False, apt=True)
    done = run(tmp_path, bin_dir)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "apt-get install postgresql chromium" in done.stderr
    assert not calls.exists()


def test_nothing_is_done_when_the_machine_has_both(tmp_path: Path) -> None:
    bin_dir, _ = machine(tmp_path, uid=1000, sudo=False, apt=False)
    (tmp_path / "pg" / "15" / "bin").mkdir(parents=True)
    for path in (
        tmp_path / "chromium",
        tmp_path / "pg/15/bin/initdb",
        tmp_path / "pg/15/bin/pg_ctl",
    ):
        path.write_text("")
        path.chmod(0o755)
    done = run(tmp_path, bin_dir)
    assert done.returncode == 0 and done.stdout == done.stderr == ""


def test_ci_runs_make_test_and_nothing_else() -> None:
    commands = [
        line
        for line in (REPO / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert commands == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "make test"]
    makefile = (REPO / "Makefile").read_text()
    assert "checks: system lint typecheck pytest" in makefile
    assert "$(MAKE) --no-print-directory checks" in makefile  # make test, timed
    assert "bash .ci/system-packages" in makefile
    assert "$(BIN)/hadolint Dockerfile" in makefile
    assert "$(BIN)/python -m tests.deploy.compose_lint docker-compose.yml" in makefile
