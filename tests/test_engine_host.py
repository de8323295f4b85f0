"""`serve --workers 2` loads the local models once, in an engine process its workers share.

Real processes: the CLI, uvicorn's two workers, the engine process with the real embedded
models, a real upstream over HTTP, the `openai` SDK as the agent, SQLite.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from openai import OpenAI
from sqlalchemy import create_engine, text

from research.overhead.processes import process_tree, started
from tests.support.policies import TOOLS, write_policies
from tests.support.servers import free_port
from tests.support.wait import eventually

POLICY = {
    "task_type": "travel",
    "match": {"tools_include": ["search_flights", "book_hotel"]},
    "rollout": {"mode": "canary", "percent": 100},
    "engine": {"min_confidence": 0.0, "min_margin": 0.0, "allow_no_tool": False},
    "breaker": {"consecutive_failures": 2, "reprobe_after_s": 0},
}
HOTEL = [{"role": "user", "content": "Book me a hotel in Rome for 3 nights"}]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _engines(root: int) -> list[int]:
    return [p for p in process_tree(root) if "shadowswitch.engines.host" in _cmdline(p)]


@pytest.mark.slow
def test_workers_share_one_engine_and_fall_back_while_it_is_away(tmp_path: Path, upstream: str) -> None:
    policies = write_policies(tmp_path / "policies", upstream, POLICY)
    db = tmp_path / "host.db"
    port = free_port()
    cmd = [sys.executable, "-m", "shadowswitch.cli", "serve", "--workers", "2", "--port", str(port)]
    cmd += ["--policies", str(policies), "--db", f"sqlite:///{db}"]
    with started(cmd, f"http://127.0.0.1:{port}/readyz", tmp_path / "serve.log", timeout_s=300) as server:
        client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)

        def ask() -> tuple[str, str]:
            raw = client.chat.completions.with_raw_response.create(
                model="travel-agent-step", messages=HOTEL, tools=TOOLS
            )
            call = raw.parse().choices[0].message.tool_calls
            assert call and call[0].function.name == "book_hotel"
            return raw.headers["x-shadowswitch-path"], raw.headers["x-shadowswitch-decision-id"]

        engines = _engines(server.pid)
        assert len(engines) == 1, [_cmdline(p) for p in process_tree(server.pid)]
        # Enough requests that both workers answer: every one of them locally, by the one engine.
        assert {ask()[0] for _ in range(8)} == {"local"}
        workers = [p for p in process_tree(server.pid) if "spawn_main" in _cmdline(p)]
        assert len(workers) == 2
        # The models live in the engine process; a worker holds the proxy, not a second copy.
        assert all(_rss_mb(w) < 0.6 * _rss_mb(engines[0]) for w in workers), (
            [_rss_mb(w) for w in workers],
            _rss_mb(engines[0]),
        )

        os.kill(engines[0], signal.SIGKILL)
        # While it is away: the upstream answers, and the breaker (2 failures trip it) counts nothing.
        away = [ask() for _ in range(4)]
        assert all(path == "fallback" for path, _ in away), away
        errors = _errors(db, [decision for _, decision in away])
        assert all(e and "local engine unavailable" in e for e in errors), errors

        eventually(lambda: len(_engines(server.pid)) == 1, timeout_s=30, what="the engine restarted")
        eventually(lambda: ask()[0] == "local", timeout_s=300, interval_s=1, what="served locally again")


def _errors(db: Path, ids: list[str]) -> list[str | None]:
    def read() -> list[str | None]:
        with create_engine(f"sqlite:///{db}").connect() as conn:
            rows = conn.execute(text("SELECT id, error FROM decision")).all()
        found = {row[0]: row[1] for row in rows}
        return [found[i] for i in ids] if all(i in found for i in ids) else []

    return eventually(read, timeout_s=10, what="the decisions recorded")
