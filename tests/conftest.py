"""What every test shares: no database setting of the machine's environment leaks into a test's
`Settings()` (libpq's PGHOST… would turn it to PostgreSQL: the bot reads them, as compose passes
them); and, run in parallel (`make test`: `-n … --dist loadgroup`), the tests of a module that share
a module-scoped fixture (a bot process, a PostgreSQL server) go to one worker, which starts it once."""

from __future__ import annotations

import pytest

OUTSIDE_DATABASE = ("DATABASE_URL", "PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE")


@pytest.fixture(autouse=True)
def no_outside_database(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OUTSIDE_DATABASE:
        monkeypatch.delenv(name, raising=False)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(chain and chain[-1].scope == "module" for chain in defs):
            item.add_marker(pytest.mark.xdist_group(item.path.name))
