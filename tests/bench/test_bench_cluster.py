"""`bench cluster` on a tiny input: two real replicas with the embedded models on a PostgreSQL
database of their own, behind a real HAProxy, one of them SIGKILLed and started again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.cluster.run import ClusterConfig, run_cluster
from bench.load.run import write
from tests.support.postgres import PG_ADMIN


@pytest.mark.slow
def test_a_tiny_run_measures_both_layouts_and_counts_the_rows_a_kill_leaves(tmp_path: Path) -> None:
    out = tmp_path / "cluster.json"
    admin = PG_ADMIN.replace("postgresql://", "postgresql+psycopg://")
    results = run_cluster(ClusterConfig(requests=30, concurrency=6, db=admin, out=out))
    write(results, out)
    saved = json.loads(out.read_text())
    assert saved["benchmark"] == "cluster" and saved["config"]["replicas"] == 2
    for phase in ("one_replica", "two_replicas"):
        assert saved[phase]["summary"]["errors"] == 0, saved[phase]["summary"]["first_errors"]
        assert saved[phase]["throughput_rps"] > 0 and saved[phase]["decisions_per_s"] > 0
    killed = saved["kill_and_restart"]
    assert killed["killed_at_s"] >= 0
    assert killed["records"]["answered_with_id"] > 0
    # A request answered before the SIGKILL has its record in the killed replica's journal, which
    # the replica writes once it is back: nothing answered is lost, nothing written twice.
    assert saved["records"]["missing"] == 0 and saved["records"]["duplicated"] == 0
    assert saved["records"]["unexpected_rows"] <= killed["summary"]["errors"]  # cut off mid-answer
    # a ramp and a breaker trip driven through HAProxy: each step and the trip once, in the audit
    ramp = saved["ramp_and_breaker"]
    assert ramp["ramp_steps"] == [25, 50, 100] and ramp["each_step_once"], ramp
    assert ramp["ramp_starts"] == 1 and ramp["trips"] == 1, ramp["audit_kinds"]
