"""`shadowswitch serve --workers 2`: a real multi-process server, its flags seen by every worker."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import httpx
from openai import OpenAI
from sqlalchemy import create_engine, text

from research.overhead.processes import process_tree, started
from tests.conftest import write_policies
from tests.servers import free_port

POLICY = {"task_type": "workers", "match": {"model": "workers-model"}, "rollout": {"mode": "off"}}


def test_two_workers_answer_with_the_flags_settings(tmp_path: Path, upstream: str) -> None:
    policies = write_policies(tmp_path / "elsewhere", upstream, POLICY)  # not ./policies: a flag
    db = tmp_path / "workers.db"
    port = free_port()
    cmd = [sys.executable, "-m", "shadowswitch.cli", "serve", "--workers", "2", "--no-models"]
    cmd += ["--port", str(port), "--policies", str(policies), "--db", f"sqlite:///{db}"]
    with started(cmd, f"http://127.0.0.1:{port}/readyz", tmp_path / "serve.log", timeout_s=120) as server:
        assert len(process_tree(server.pid)) >= 3  # uvicorn's supervisor and its two workers
        client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
        for i in range(8):
            raw = client.chat.completions.with_raw_response.create(
                model="workers-model", messages=[{"role": "user", "content": f"hello {i}"}]
            )
            assert raw.headers["x-shadowswitch-task"] == "workers"  # the policies the flag named
            assert raw.parse().choices[0].message.content == f"echo: hello {i}"
        assert httpx.get(f"http://127.0.0.1:{port}/v1/models").json()["data"]
        assert _recorded(db, expected=8) == 8  # into the database the flag named
        _a_stalled_worker_is_not_killed(server.pid, client)


def _a_stalled_worker_is_not_killed(supervisor: int, client: OpenAI) -> None:
    """A worker that cannot answer uvicorn's health ping for a few seconds (here SIGSTOP; in life
    a model load or CPU starvation) is busy, not hung: uvicorn's 5 s default killed it, and every
    request in flight on it with it."""
    workers = _workers(supervisor)
    stalled = min(workers)
    os.kill(stalled, signal.SIGSTOP)
    try:
        time.sleep(8)
    finally:
        with contextlib.suppress(ProcessLookupError):  # killed by its supervisor
            os.kill(stalled, signal.SIGCONT)
    time.sleep(1)
    assert _workers(supervisor) == workers
    messages = [{"role": "user", "content": "on"}]
    reply = client.chat.completions.create(model="workers-model", messages=messages)
    assert reply.choices[0].message.content == "echo: on"


def _workers(supervisor: int) -> set[int]:
    """uvicorn's worker processes (multiprocessing's resource tracker is a child too)."""
    tree = process_tree(supervisor)
    return {pid for pid in tree if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()}


def _recorded(db: Path, expected: int, timeout_s: float = 10) -> int:
    engine = create_engine(f"sqlite:///{db}")
    deadline = time.monotonic() + timeout_s
    while True:
        with engine.connect() as conn:
            count = int(conn.execute(text("SELECT count(*) FROM decision")).scalar_one())
        if count >= expected or time.monotonic() > deadline:
            return count
        time.sleep(0.2)
