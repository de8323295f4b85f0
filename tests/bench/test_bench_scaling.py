"""`bench scaling` on a tiny input: requests built from BFCL's live files, and the JSON a real run writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.scaling.run import Fresh, ScalingConfig, run_scaling
from bench.scaling.tools import requests_with_tools


def test_each_request_offers_its_own_tool_among_distinct_others() -> None:
    for count in (2, 16, 64):
        for request in requests_with_tools(3, count):
            names = [t["function"]["name"] for t in request.body["tools"]]
            assert len(names) == count == len(set(names))
            assert request.expected in names


def test_a_run_never_sends_the_same_question_twice() -> None:
    fresh = Fresh()
    texts = [json.dumps(r.body["messages"]) for tools in (2, 8, 8, 64) for r in fresh.take(40, tools)]
    assert len(texts) == len(set(texts)) == 160


@pytest.mark.slow
def test_a_tiny_run_writes_latency_memory_and_startup(tmp_path: Path) -> None:
    out = tmp_path / "scaling.json"
    config = ScalingConfig(out=out, tools=(2, 16), concurrencies=(1, 2), per_size=2, per_concurrency=2)
    run_scaling(config)
    results = json.loads(out.read_text())
    assert results["benchmark"] == "scaling" and "git_commit" in results and results["machine"]["cores"]
    assert results["startup_to_readyz_s"] > 0 and results["memory"]["rss_ready_mb"] > 100
    assert [r["tools"] for r in results["by_tools"]] == [2, 16]
    assert [r["concurrency"] for r in results["by_concurrency"]] == [1, 2]
    for row in results["by_tools"] + results["by_concurrency"]:
        assert row["errors"] == 0 and sum(row["paths"].values()) == row["requests"]
        assert row["latency_p50_ms"] > 0 and row["throughput_rps"] > 0
    assert "batch" in results["batching"]
    assert [run["workers"] for run in results["by_workers"]] == [1]
    assert results["memory"]["pss_ready_mb"] > 100
