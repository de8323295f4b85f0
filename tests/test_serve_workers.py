"""`shadowswitch serve --workers 2`: a real multi-process server, its flags seen by every worker."""

from __future__ import annotations

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


def _recorded(db: Path, expected: int, timeout_s: float = 10) -> int:
    engine = create_engine(f"sqlite:///{db}")
    deadline = time.monotonic() + timeout_s
    while True:
        with engine.connect() as conn:
            count = int(conn.execute(text("SELECT count(*) FROM decision")).scalar_one())
        if count >= expected or time.monotonic() > deadline:
            return count
        time.sleep(0.2)
