"""`bench scaling` on a tiny input: requests built from BFCL's live files, and the JSON a real run writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.scaling.run import Fresh, ScalingConfig, run_scaling
from bench.scaling.simple import TOOLS, SimpleTraffic
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


def test_simple_traffic_sends_the_same_tools_and_never_the_same_text_twice() -> None:
    traffic = SimpleTraffic()
    requests = traffic.take(300) + traffic.take(400)
    texts = [r.body["messages"][-1]["content"] for r in requests]
    assert len(texts) == len(set(texts)) == 700
    assert all(r.body["tools"] == TOOLS for r in requests) and len(TOOLS) == 8
    assert {r.expected for r in requests} == {t["function"]["name"] for t in TOOLS}
    counts = {len(t["function"]["parameters"]["required"]) for t in TOOLS}
    assert counts == {1, 2, 3}


def test_simple_traffic_is_the_same_for_a_seed() -> None:
    assert [r.body for r in SimpleTraffic(3).take(20)] == [r.body for r in SimpleTraffic(3).take(20)]
    assert [r.body for r in SimpleTraffic(3).take(20)] != [r.body for r in SimpleTraffic(4).take(20)]


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
