"""The PostgreSQL server the tests use (trust auth; SHADOWSWITCH_TEST_PG names another), and its
fresh databases.

A database made and dropped for each test costs the server about 0.3 s of CPU (CREATE DATABASE
copies the template through the WAL); emptying one that a test is done with costs 0.015 s. So a
test process keeps the databases its tests are done with, emptied, and hands them to the next
tests; one it cannot empty is dropped. Each still starts empty: the same as a new one.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

import psycopg

PG_ADMIN = os.environ.get("SHADOWSWITCH_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
SERVER = PG_ADMIN.rsplit("/", 1)[0]
SQLALCHEMY = SERVER.replace("postgresql://", "postgresql+psycopg://")


class Databases:
    """Empty databases for one test process: `fresh()` lends one; `close()` drops them all."""

    def __init__(self) -> None:
        self.idle: list[str] = []

    @contextlib.contextmanager
    def fresh(self) -> Iterator[str]:
        """The SQLAlchemy URL of an empty database, emptied again (or dropped) when done."""
        name = self.idle.pop() if self.idle else _create()
        try:
            yield f"{SQLALCHEMY}/{name}"
        finally:
            if _emptied(name):
                self.idle.append(name)
            else:
                _drop(name)

    def close(self) -> None:
        while self.idle:
            _drop(self.idle.pop())


def _create() -> str:
    name = f"ss_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def _drop(name: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _emptied(name: str) -> bool:
    """Empty `name` as CREATE DATABASE leaves it: no session on it, no schema but a new `public`.
    False when that cannot be done (a test closed it to connections, made another schema...)."""
    try:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
        with psycopg.connect(f"{SERVER}/{name}", autocommit=True) as conn:
            others = conn.execute(
                "SELECT count(*) FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%'"
                " AND nspname NOT IN ('information_schema', 'public')"
            ).fetchone()
            if others is None or others[0]:
                return False
            conn.execute("DROP SCHEMA public CASCADE")
            conn.execute("CREATE SCHEMA public AUTHORIZATION pg_database_owner")
            conn.execute("GRANT USAGE ON SCHEMA public TO PUBLIC")
        return True
    except psycopg.Error:
        return False
