"""The two tiers: `unit` (no processes, no servers, no models, no database server; SQLite files
are fine) and `integration` (everything else). Every test gets one, by rule:

- a test that asks for a fixture which starts a server, a process or a model is integration;
- so is one marked `slow` or `postgres`;
- a test (or module) marked `unit` or `integration` by hand keeps its mark: that is how a test
  that starts a process of its own, without a fixture, says so;
- every other test is unit.

The rule is checked as the unit tests run: an audit hook fails a unit test that starts a
process, binds a socket, connects to PostgreSQL or opens model weights.
"""

from __future__ import annotations

import contextlib
import multiprocessing.process
import os
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

# fixtures that start a server, a process or the embedded models (conftest.py and test modules)
INTEGRATION_FIXTURES = {
    "browser",
    "engine",
    "faulty",
    "local_engine",
    "model",
    "model_dir",
    "outage",
    "pg_url",
    "proxy",
    "replay",
    "replicas",
    "served",
    "simulated",
    "steady_upstream",
    "stub_proxy",
    "tiny",
    "tokenizer_dir",
    "upstream",
}
MODEL_FILES = (".safetensors", ".gguf", ".onnx", ".pt", ".bin")
POSTGRES_PORT = 5432


def mark(item: pytest.Item) -> None:
    if item.get_closest_marker("unit") or item.get_closest_marker("integration"):
        return
    fixtures = set(getattr(item, "fixturenames", ()))
    integration = (
        bool(fixtures & INTEGRATION_FIXTURES)
        or item.get_closest_marker("slow") is not None
        or item.get_closest_marker("postgres") is not None
    )
    item.add_marker(pytest.mark.integration if integration else pytest.mark.unit)


class NotAUnitTest(AssertionError):
    pass


_guarding: list[str] = []  # the unit test being run, if any


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _guarding:
        return
    what = None
    if event in ("subprocess.Popen", "os.posix_spawn", "os.fork", "os.system"):
        what = f"starts a process: {args[1] if event == 'subprocess.Popen' else event}"
    elif event == "socket.bind":
        what = f"binds a socket: {args[1]!r}"
    elif event == "socket.connect" and isinstance(args[1], tuple) and args[1][1:2] == (POSTGRES_PORT,):
        what = "connects to PostgreSQL"
    elif event == "open" and isinstance(args[0], str | os.PathLike) and str(args[0]).endswith(MODEL_FILES):
        what = f"opens model weights: {args[0]}"
    if what:
        _refuse(what)()


sys.addaudithook(_audit)


@contextlib.contextmanager
def guarded(item: pytest.Item, enabled: bool = True) -> Iterator[None]:
    """While a unit test (its set-up included) runs, what a unit test must not do fails it."""
    if not enabled or item.get_closest_marker("unit") is None:
        yield
        return
    _guarding.append(item.nodeid)
    try:
        with pytest.MonkeyPatch.context() as patch:
            # what the audit hook does not see: libpq's connections, multiprocessing's spawn
            for owner in (psycopg, psycopg.Connection):
                patch.setattr(owner, "connect", _refuse("connects to PostgreSQL"))
            patch.setattr(multiprocessing.process.BaseProcess, "start", _refuse("starts a process"))
            yield
    finally:
        _guarding.pop()


def _refuse(what: str) -> Any:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise NotAUnitTest(f"{_guarding[0]} is marked unit but {what}: mark it integration")

    return refused
