"""`shadowswitch serve --workers 2`: a real multi-process server, its flags seen by every worker.

(What it asks of uvicorn for its workers' health pings: test_serve_options.py.)"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
from openai import OpenAI
from sqlalchemy import create_engine, text

from bench.overhead.processes import process_tree, started
from tests.support.policies import write_policies
from tests.support.servers import free_port
from tests.support.wait import eventually

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
        eventually(lambda: _recorded(db) == 8, timeout_s=10)  # into the database the flag named


def _recorded(db: Path) -> int:
    with create_engine(f"sqlite:///{db}").connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM decision")).scalar_one())
