"""`python -m tests.deploy.compose_lint docker-compose.yml`: the compose file checked as `docker
compose config` checks it, without the compose plugin (this machine has none, and Debian 12's
`docker-compose` is the retired v1, which does not know this file's `configs: content:`).

The file is read as YAML, its values interpolated the way compose does (`$$`, `$NAME`, `${NAME}`,
`${NAME:-default}`, `${NAME-default}`, `${NAME:?message}`, `${NAME?message}`, `${NAME:+other}`),
then validated against the Compose Specification's own JSON schema (tests/data/compose/). Each
problem is one line; the exit status is 1 when there is any.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import jsonschema
import yaml

SCHEMA: Final = Path(__file__).resolve().parents[1] / "data" / "compose" / "compose-spec.json"
# What the lint assumes the operator's .env holds: the one variable the file requires.
LINT_ENV: Final = {"POSTGRES_PASSWORD": "lint-only-password"}
_VARIABLE: Final = re.compile(
    r"\$(?:(?P<dollar>\$)|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)


class Unset(Exception):
    """A required variable (`${NAME:?message}`) is not set."""


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """Every string value of `value` (not the mapping keys) interpolated from `env`."""
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if not isinstance(value, str):
        return value

    def one(found: re.Match[str]) -> str:
        if found["dollar"]:
            return "$"
        name = found["name"] or found["bare"]
        op, arg = found["op"], found["arg"] or ""
        given = env.get(name)
        empty = not given
        if op in (":-", "-"):
            return arg if (given is None or (op == ":-" and empty)) else str(given)
        if op in (":?", "?"):
            if given is None or (op == ":?" and empty):
                raise Unset(f"{name}: {arg or 'required'}")
            return str(given)
        if op in (":+", "+"):
            return arg if (given is not None and (op == "+" or not empty)) else ""
        return given or ""

    return _VARIABLE.sub(one, value)


def load(path: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """The compose file as compose sees it: YAML, interpolated."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a mapping at the top")
    result: dict[str, Any] = interpolate(data, env)
    return result


def problems(path: Path, env: Mapping[str, str] = LINT_ENV) -> list[str]:
    """Every problem of the compose file at `path`, one line each."""
    try:
        data = load(path, env)
    except (yaml.YAMLError, ValueError, Unset) as error:
        return [f"{path}: {error}"]
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    found = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.path))):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        found.append(f"{path}: {where}: {error.message}")
    return found


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or [Path("docker-compose.yml")]
    lines = [line for path in paths for line in problems(path)]
    for line in lines:
        print(line, file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
