"""`shadowswitch bench e2e` on a tiny input: it runs every condition and writes the JSON it promises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bench.e2e.runner import E2eConfig, run_e2e


@pytest.mark.slow
def test_a_tiny_e2e_run_writes_its_results(tmp_path: Path, local_engine: Any) -> None:
    out = tmp_path / "e2e.json"
    config = E2eConfig(
        upstreams=["simulated"],
        conditions=["direct", "off", "shadow", "local"],
        tasks=3,
        latency=(0.01, 0.02),
        error_rate=0.0,
        concurrency=3,
        out=out,
    )
    with (tmp_path / "log.txt").open("w") as log:
        run_e2e(config, Console(file=log), local_factory=lambda: local_engine)

    results = json.loads(out.read_text())
    assert results["benchmark"] == "e2e" and results["machine"]["cores"] and "commit" in results
    assert results["config"]["tasks"] == 3 and results["config"]["latency_s"] == [0.01, 0.02]
    run = results["runs"]["simulated"]
    for condition in ("direct", "off", "shadow", "local"):
        summary = run[condition]
        assert summary["tasks"] == 3 and 0 <= summary["success"] <= 1
        assert 0 < summary["p50_s"] <= summary["p95_s"]
    assert set(run["direct"]["paths"]) == {"direct"}
    assert set(run["off"]["paths"]) == {"generative"}
    assert run["local"]["paths"].get("local", 0) > 0  # the local engine answered some steps
    assert run["upstream_stats"]["calls"] > 0
    assert run["proxy_report"]["comparison"]["pairs"] > 0  # shadow recorded pairs
    ratios = results["ratios"]["simulated"]
    assert ratios["task_p50_speedup"] == pytest.approx(
        run["direct"]["p50_s"] / run["local"]["p50_s"],
        abs=0.01,  # rounded to 2 places
    )
    assert results["seed_articles"]["speedup"] == 10.0
