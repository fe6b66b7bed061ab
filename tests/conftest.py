"""What every test shares: no database setting of the machine's environment leaks into a test's
`Settings()` (libpq's PGHOST… would turn it to PostgreSQL: the bot reads them, as compose passes
them)."""

from __future__ import annotations

import pytest

OUTSIDE_DATABASE = ("DATABASE_URL", "PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE")


@pytest.fixture(autouse=True)
def no_outside_database(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OUTSIDE_DATABASE:
        monkeypatch.delenv(name, raising=False)
