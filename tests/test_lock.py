"""The set-up is reproducible (issue 11): every distribution in the virtual environment is in
`requirements.lock` at the version installed, and every pin of pyproject.toml agrees with it. A
failure means the lock is stale (a dependency changed: run `make lock` and commit it) or the
venv is (built before the lock changed: `rm -rf .venv` and `make test` installs from the lock)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;#]+)")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines():
        if match := _PIN.match(line.strip()):
            pins[canonical(match[1])] = match[2]
    return pins


def test_every_installed_distribution_is_locked_at_its_version() -> None:
    pins = locked()
    installed = {
        canonical(d.metadata["Name"]): d.version
        for d in distributions()
        if canonical(d.metadata["Name"]) != "prefbot"
    }
    missing = sorted(set(installed) - set(pins))
    assert not missing, f"installed but not locked (`make lock`, or rebuild .venv): {missing}"
    differ = {n: (v, pins[n]) for n, v in installed.items() if pins[n] != v}
    assert not differ, f"installed ≠ locked (installed, locked; rebuild .venv): {differ}"


def test_the_lock_agrees_with_every_pin_of_pyproject() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]  # dev, and redis (the image's EXTRAS)
    wanted = [*project["dependencies"], *(pin for group in extras.values() for pin in group)]
    pins = locked()
    for requirement in wanted:
        match = _PIN.match(requirement)
        assert match, f"pyproject pins every dependency exactly: {requirement!r}"
        assert pins.get(canonical(match[1])) == match[2], requirement
