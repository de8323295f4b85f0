"""What `shadowswitch serve` asks of uvicorn, for one process and for several workers.

- Keep-alive: httpx (so the openai SDK) drops a pooled connection after 5 s idle; at uvicorn's
  default 5 s both ends time out together, and a request an agent sends just as the server closes
  fails as a connection error. The server must outlast the client, so it is always the client
  that closes.
- Worker health: uvicorn kills a worker that misses its health ping for 5 s (its default), and
  every request in flight on it; a worker loading models or starved of CPU is busy, not hung.

The command runs for real up to `uvicorn.run`, which records what it was given instead of serving.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from openai._constants import DEFAULT_CONNECTION_LIMITS
from typer.testing import CliRunner

from shadowswitch import cli
from shadowswitch.cli import serving


def served_with(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str) -> dict[str, Any]:
    """Run `shadowswitch serve ARGS`; return the keyword arguments it gave `uvicorn.run`."""
    monkeypatch.setattr(os, "environ", os.environ.copy())  # serve sets the workers' environment
    monkeypatch.setattr(serving, "exit_zero_on_sigterm", lambda: None)  # the test process keeps its handler
    given: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: given.update(options))
    (tmp_path / "policies").mkdir()
    command = ["serve", "--no-models", "--policies", str(tmp_path / "policies")]
    command += ["--db", f"sqlite:///{tmp_path / 'ss.db'}", *args]
    result = CliRunner().invoke(cli.app, command)
    assert result.exit_code == 0, result.output
    return given


# With workers the schema is migrated by a `db upgrade` subprocess.
@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=pytest.mark.integration)])
def test_the_server_outlives_the_clients_idle_connections(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, workers: str
) -> None:
    options = served_with(monkeypatch, tmp_path, "--workers", workers)
    client_expiry = DEFAULT_CONNECTION_LIMITS.keepalive_expiry
    assert client_expiry is not None and options["timeout_keep_alive"] > client_expiry + 5


@pytest.mark.integration
def test_a_busy_worker_has_minutes_to_answer_its_health_ping(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    options = served_with(monkeypatch, tmp_path, "--workers", "2")
    assert options["workers"] == 2
    assert options["timeout_worker_healthcheck"] >= 60  # minutes, where uvicorn's default is 5 s
