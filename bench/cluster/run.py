"""`shadowswitch bench cluster`: two `serve` replicas on one PostgreSQL database behind HAProxy,
the load benchmark's mixed traffic (bench/load/traffic.py) and its scripted upstream.

Four phases, in one run: the traffic straight to one replica; the same through HAProxy to both;
once more through HAProxy while one replica is killed (SIGKILL) and started again; then a ramp
from shadow to 100% and a breaker trip driven through HAProxy (rollout.py), each step and the
trip to happen once. Every request answered with a decision id must have exactly one row (rows
read once the replicas have stopped).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench.bfcl.proxy import free_port
from bench.bfcl.results import git_commit, machine_info, shown_path
from bench.cluster import rollout
from bench.cluster.balancer import balancer
from bench.load import traffic
from bench.load.records import check_records
from bench.load.run import upstream, versions, wait_for, write_policies

DATABASE = "shadowswitch_bench_cluster"


@dataclass
class ClusterConfig:
    requests: int = 2_000  # per phase
    concurrency: int = 32
    kill_at: float = 0.4  # share of the kill phase's expected time before the SIGKILL
    db: str = "postgresql+psycopg://postgres@127.0.0.1:5432/test"  # where a fresh database is made
    out: Path = Path("bench/results/cluster.json")


class Replica:
    """One `shadowswitch serve` with the embedded models, on a fixed port so it can come back."""

    def __init__(self, work: Path, name: str, policies: Path, db_url: str) -> None:
        self.name, self.work, self.port = name, work, free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.command = [sys.executable, "-m", "shadowswitch.cli", "serve", "--port", str(self.port)]
        self.command += ["--policies", str(policies), "--db", db_url, "--log-level", "warning"]
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.started_at = 0.0

    def start(self) -> None:
        self.starts += 1
        self.started_at = time.monotonic()
        log = self.work / f"{self.name}-{self.starts}.log"
        env = os.environ | {
            "HF_HUB_OFFLINE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OPENAI_API_KEY": "x",
        }
        with log.open("wb") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, env=env)

    def wait_ready(self) -> float:
        """Seconds from its start to /readyz."""
        assert self.process is not None
        wait_for(self.base + "/readyz", self.process, 600, self.work / f"{self.name}-{self.starts}.log")
        return time.monotonic() - self.started_at

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: nothing flushed, nothing drained
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # drains and flushes its records
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run_cluster(config: ClusterConfig) -> dict[str, Any]:
    started_at = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="shadowswitch-cluster-") as tmp,
        fresh_database(config.db) as db_url,
    ):
        work = Path(tmp)
        from shadowswitch.store import db

        db.upgrade(db_url)  # once, as a deploy does before it starts the replicas
        with upstream(work) as upstream_url:
            policies = write_policies(work / "policies", upstream_url)
            rollout.write_policy(policies)
            replicas = [Replica(work, f"r{i}", policies, db_url) for i in (1, 2)]
            try:
                for replica in replicas:
                    replica.start()
                ready_s = [round(replica.wait_ready(), 1) for replica in replicas]
                warm = _warm(replicas, config.concurrency)
                one, sent_one = _phase(replicas[0].base, config, 0)
                with balancer(work, [r.base for r in replicas]) as lb:
                    two, sent_two = _phase(lb, config, config.requests)
                    kill = {"kill": replicas[1], "after_s": two["seconds"]}
                    killed, sent_killed = _phase(lb, config, 2 * config.requests, **kill)
                    back_s = round(replicas[1].wait_ready(), 1)  # and writing what it left behind
                    ramp, sent_ramp = rollout.ramp_and_trip(lb, db_url)
            finally:
                for replica in replicas:
                    replica.stop()
        records = check_records(db_url, [*warm, *sent_one, *sent_two, *sent_killed, *sent_ramp])
        in_kill = check_records(db_url, sent_killed)
        killed["records"] = {k: v for k, v in in_kill.items() if k != "unexpected_rows"}
        killed["restarted_ready_after_s"] = back_s
    return {
        "benchmark": "cluster",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info() | {"versions": versions()},
        "config": {**asdict(config), "out": shown_path(config.out), "db": "postgresql", "replicas": 2},
        "balancer": "HAProxy (Debian package), round robin, health checks on /readyz, retry-on conn-failure",
        "mix": traffic.MIX,
        "startup_to_readyz_s": ready_s,
        "one_replica": one,
        "two_replicas": two,
        "kill_and_restart": killed,
        "ramp_and_breaker": ramp,
        "records": records,
        "duration_s": round(time.monotonic() - started_at, 1),
    }


def _warm(replicas: list[Replica], concurrency: int) -> list[traffic.Result]:
    """First requests build clients and fill caches; not measured (their rows are counted)."""
    return [
        r for replica in replicas for r in asyncio.run(traffic.run(replica.base, 100, concurrency, 10**6))
    ]


def _phase(
    base: str, config: ClusterConfig, offset: int, kill: Replica | None = None, after_s: float = 0.0
) -> tuple[dict[str, Any], list[traffic.Result]]:
    """The traffic through `base`; with `kill`, that replica is SIGKILLed and started again
    `kill_at` of the way through (by the time the phase before took)."""
    events: dict[str, float] = {}

    async def go() -> list[traffic.Result]:
        began = time.perf_counter()
        sending = asyncio.create_task(traffic.run(base, config.requests, config.concurrency, offset))
        if kill is not None:
            await asyncio.sleep(after_s * config.kill_at)
            events["killed_at_s"] = round(time.perf_counter() - began, 1)
            await asyncio.to_thread(kill.kill)
            kill.start()
        return await sending

    started = time.perf_counter()
    results = asyncio.run(go())
    seconds = time.perf_counter() - started
    summary = traffic.summary(results)
    local = summary["by_kind"].get("local", {}).get("paths", {}).get("local", 0)
    passed = summary["by_kind"].get("pass_through", {})
    phase = {
        "seconds": round(seconds, 1),
        "throughput_rps": round(len(results) / seconds, 1),
        "decisions_per_s": round(local / seconds, 1),
        "pass_through_rps": round(passed.get("requests", 0) / seconds, 1),
        **events,
        "summary": summary,
    }
    return phase, results


@contextlib.contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """An empty database of its own on the server `admin_url` names; dropped at the end."""
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{DATABASE}"'))
        yield make_url(admin_url).set(database=DATABASE).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)'))
        admin.dispose()
