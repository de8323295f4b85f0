"""Alembic is the only schema source: an empty database upgraded to head matches the models."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import SQLModel

from shadowswitch.store import db, tables  # noqa: F401


def _diff(url: str) -> list[object]:
    db.upgrade(url)
    engine = db.make_engine(url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
        names = set(inspect(connection).get_table_names())
    engine.dispose()
    assert {"decision", "tool_call", "rollout", "audit_event", "alembic_version"} <= names
    return list(diff)


def test_sqlite_head_matches_models(tmp_path: object) -> None:
    assert _diff(f"sqlite:///{tmp_path}/m.db") == []


def test_postgres_head_matches_models(pg_url: str) -> None:
    assert _diff(pg_url) == []


def test_backend_under_test_head_matches_models(db_url: str) -> None:
    assert _diff(db_url) == []
    db.upgrade(db_url)  # idempotent


@pytest.mark.integration  # processes of their own
def test_replicas_starting_together_migrate_once(db_url: str) -> None:
    """Four processes upgrading one empty database at the same moment all succeed."""
    import subprocess
    import sys

    code = "import sys; from shadowswitch.store import db; db.upgrade(sys.argv[1])"
    procs = [subprocess.Popen([sys.executable, "-c", code, db_url], stderr=subprocess.PIPE) for _ in range(4)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()[-2000:]
    assert _diff(db_url) == []
