"""Database engines and schema migrations (alembic is the only thing that creates tables)."""

from __future__ import annotations

import fcntl
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url

MIGRATION_LOCK = 0x5AD0_5717  # any fixed bigint, the same in every replica
# Shipped inside the package, so an installed wheel migrates too; a plain directory on disk, as
# alembic reads it by path (the package is never zipped).
MIGRATIONS = Path(str(files("shadowswitch.store.migrations")))


def make_engine(url: str) -> Engine:
    """A SQLAlchemy engine; SQLite gets WAL and a busy timeout so replicas and the CLI can share it."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        connect_args = {"check_same_thread": False, "timeout": 30}
        engine = create_engine(url, connect_args=connect_args, json_serializer=to_json)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    # connect_timeout: a database host that does not answer counts as away in seconds, not minutes
    connect = {"connect_timeout": 10}
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=10,
        connect_args=connect,
        json_serializer=to_json,
    )


def to_json(value: Any) -> str:
    """`json.dumps`, the JSON columns' serializer, with their most common value (None, which is
    stored as JSON null) answered at once: a decision has five, mostly empty, on every insert."""
    return "null" if value is None else json.dumps(value)


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def alembic_config(url: str) -> Config:
    """The alembic configuration, built here: there is no alembic.ini to find."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at `url` to `revision` (creating it when empty).

    Replicas starting together must not migrate at the same time: one waits for the
    other, on an advisory lock (PostgreSQL) or a lock file beside the database (SQLite).
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            command.upgrade(alembic_config(url), revision)
            return
        with open(f"{database}.migrate.lock", "a") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            command.upgrade(alembic_config(url), revision)
        return
    engine = make_engine(url)
    try:
        with engine.connect() as lock:
            lock.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            try:
                command.upgrade(alembic_config(url), revision)
            finally:
                lock.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
    finally:
        engine.dispose()


def is_current(engine: Engine) -> bool:
    return inspect(engine).has_table("alembic_version")


def schema_problem(url: str) -> str | None:
    """None when the database at `url` is at the code's schema; else what is wrong, in a sentence.

    Read-only: commands that only read must not create or migrate a database behind a person's back.
    """
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        return f"there is no database at {parsed.database!r}"
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
    if current == head:
        return None
    return f"the database schema is at {current or 'nothing (empty)'}, this version needs {head}"


def ping(engine: Engine) -> None:
    """Raise unless the database answers, with our own table: one that lost it cannot be written to."""
    with engine.connect() as connection:
        connection.execute(text("SELECT 1 FROM rollout LIMIT 1"))
