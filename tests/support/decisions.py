"""The decision rows a test's requests left, read from the database."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text

from tests.support.wait import eventually


def recorded_errors(db: Path, ids: list[str]) -> list[str | None]:
    """The `error` of each decision row named, once all are written (SQLite at `db`)."""

    def read() -> list[str | None]:
        with create_engine(f"sqlite:///{db}").connect() as conn:
            rows = conn.execute(text("SELECT id, error FROM decision")).all()
        found = {row[0]: row[1] for row in rows}
        return [found[i] for i in ids] if all(i in found for i in ids) else []

    return eventually(read, timeout_s=10, what="the decisions recorded")
