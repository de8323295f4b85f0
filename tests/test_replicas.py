"""Several real `shadowswitch serve` processes on one database share rollouts and the breaker.

Real processes, a real upstream over HTTP, the real CLI, real PostgreSQL (and SQLite
for one process); the slow tests also load the real embedded models so that the
local path really answers.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from shadowswitch.policy.models import Breaker
from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.store import db
from tests.support.clients import TASK, metric
from tests.support.policies import write_policies
from tests.support.replicas import BIN, Replica
from tests.support.wait import eventually

SECOND = 1.0  # SPEC: every server sees a change within 1 s


def policy(**breaker: Any) -> dict[str, Any]:
    return {
        "task_type": TASK,
        "match": {"tools_include": ["search_flights", "book_hotel"]},
        "rollout": {"mode": "canary", "percent": 100},
        "engine": {"min_confidence": 0.0, "min_margin": 0.0, "allow_no_tool": False},
        "breaker": {"consecutive_failures": 4, "reprobe_after_s": 0, **breaker},
    }


@pytest.fixture
def replicas(tmp_path: Path, upstream: str) -> Iterator[Any]:
    """Start replicas on one database (migrated first, as a deploy would); stop them all at the end."""
    started: list[Replica] = []

    def start(db_url: str, n: int, models: bool, **breaker: Any) -> list[Replica]:
        db.upgrade(db_url)
        policies = write_policies(tmp_path / "policies", upstream, policy(**breaker))
        group = [Replica(f"r{len(started) + i}", db_url, policies, tmp_path, models) for i in range(n)]
        started.extend(group)
        for replica in group:
            replica.wait_ready()
        return group

    yield start
    for replica in started:
        replica.stop()


def cli(*args: str) -> str:
    result = subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def audit_kinds(db_url: str) -> list[str]:
    status = json.loads(cli("rollout", "status", "--json", "--limit", "100", "--db", db_url))
    return [e["kind"] for e in status["audit"]]


def within_a_second(replicas: list[Replica], state: str) -> float:
    """Seconds until every replica's live view shows the breaker in `state`."""
    started = time.monotonic()
    eventually(lambda: all(r.breaker() == state for r in replicas), timeout_s=5)
    return time.monotonic() - started


def test_rollout_changes_reach_every_replica_within_a_second(pg_url: str, replicas: Any) -> None:
    a, b = replicas(pg_url, 2, models=False)
    cli("rollout", "set", TASK, "--percent", "30", "--reason", "widen", "--db", pg_url)
    changed = time.monotonic()
    eventually(
        lambda: all(metric(r.url, "shadowswitch_rollout_percent", task_type=TASK) == 30 for r in (a, b))
    )
    assert time.monotonic() - changed < SECOND
    # a third replica trips the breaker: both servers stop serving locally within a second
    breaker, config = RolloutRepository(db.make_engine(pg_url)), Breaker(**policy()["breaker"])
    for i in range(4):
        breaker.record(TASK, config, f"elsewhere{i}", "error")
    assert within_a_second([a, b], "open") < SECOND


@pytest.mark.slow
def test_a_trip_through_one_replica_reaches_the_other_and_happens_once(pg_url: str, replicas: Any) -> None:
    a, b = replicas(pg_url, 2, models=True)
    assert b.local_decisions(1, "warm-b") and a.local_decisions(1, "warm-a")
    served = a.local_decisions(4, "a")
    for decision_id in served:
        a.fail(decision_id)
    assert a.breaker() == "open"  # at once on the replica that tripped it
    assert within_a_second([b], "open") < SECOND
    assert a.ask("a-next").headers["x-shadowswitch-path"] == "generative"
    assert b.ask("b-next").headers["x-shadowswitch-path"] == "generative"
    assert audit_kinds(pg_url).count("trip") == 1
    lines = [line for r in (a, b) for line in r.log.read_text().splitlines() if "breaker tripped" in line]
    assert len(lines) == 1 and "WARNING" in lines[0] and TASK in lines[0]
    assert all(d in lines[0] for d in served) and f"shadowswitch rollout set {TASK}" in lines[0]

    # a person re-opens it from the CLI: both replicas serve locally again within a second
    cli("rollout", "set", TASK, "--percent", "100", "--reason", "fixed", "--db", pg_url)
    assert within_a_second([a, b], "closed") < SECOND
    assert b.ask("b-again").headers["x-shadowswitch-path"] == "local"

    # failures arriving at both replicas at the same moment: counted fully, tripped once
    decided = [(a, d) for d in a.local_decisions(2, "ca")] + [(b, d) for d in b.local_decisions(2, "cb")]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda pair: pair[0].fail(pair[1]), decided))
    assert within_a_second([a, b], "open") < SECOND
    assert audit_kinds(pg_url).count("trip") == 2


@pytest.mark.slow
def test_one_replica_on_sqlite(replicas: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'one.db'}"
    (a,) = replicas(url, 1, models=True)
    served = a.local_decisions(4, "s")
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(a.fail, served))
    assert a.ask("next").headers["x-shadowswitch-path"] == "generative"
    assert audit_kinds(url).count("trip") == 1
    cli("rollout", "set", TASK, "--percent", "100", "--db", url)  # while the server writes to the file
    assert within_a_second([a], "closed") < SECOND
    assert a.ask("again").headers["x-shadowswitch-path"] == "local"
