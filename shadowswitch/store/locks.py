"""One trainer per task type across every replica and the CLI: a lock taken without waiting.

PostgreSQL: a session-level advisory lock on a connection held for the run (it is released when
the run ends, or when a replica dies with its connection). SQLite: an exclusive `flock` on a file
beside the database (released likewise by the kernel); an in-memory database has one process, so
a lock of that process is enough. Whoever does not get the lock skips the run: the holder is
doing the same work.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import threading
from collections.abc import Iterator

from sqlalchemy import Engine, text

_LOCAL: dict[str, threading.Lock] = {}
_LOCAL_GUARD = threading.Lock()


def lock_key(name: str) -> int:
    """A signed 64-bit key for `pg_try_advisory_lock`, the same in every replica for one name."""
    return int.from_bytes(hashlib.sha256(f"shadowswitch:{name}".encode()).digest()[:8], "big", signed=True)


@contextlib.contextmanager
def try_lock(engine: Engine, name: str) -> Iterator[bool]:
    """Yield True while holding the lock `name`, or False at once when someone else holds it."""
    if engine.dialect.name == "sqlite":
        database = engine.url.database or ""
        if database in ("", ":memory:"):
            with _process_lock(name) as held:
                yield held
            return
        suffix = hashlib.sha256(name.encode()).hexdigest()[:16]
        with open(f"{database}.{suffix}.lock", "a") as lock_file:
            try:
                fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)
        return
    key = lock_key(name)
    with engine.connect() as connection:  # held for the run: the lock lives as long as it
        held = bool(connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar())
        connection.commit()
        try:
            yield held
        finally:
            if held:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                connection.commit()


@contextlib.contextmanager
def _process_lock(name: str) -> Iterator[bool]:
    with _LOCAL_GUARD:
        lock = _LOCAL.setdefault(name, threading.Lock())
    held = lock.acquire(blocking=False)
    try:
        yield held
    finally:
        if held:
            lock.release()
