"""`bench beside`: the heavy agent's upstream answers its nested call, and a tiny real run writes
the short requests' figures beside the heavy steps' shadow runs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from bench.scaling.beside import run_beside
from bench.scaling.heavy import UPDATE_ORDER, answer, heavy_step


def test_the_upstream_answers_each_heavy_step_with_its_nested_call() -> None:
    for index in (0, 7, 10_003):
        step = heavy_step(index)
        call = answer(step)["tool_calls"][0]["function"]  # type: ignore[index]
        arguments = json.loads(call["arguments"])
        assert call["name"] == "update_order"
        jsonschema.validate(arguments, UPDATE_ORDER["function"]["parameters"])
        asked = step["messages"][-1]["content"]
        assert arguments["order_id"] in asked and arguments["items"][0]["sku"] in asked
    assert answer({"messages": [{"role": "user", "content": "hello"}]}) is None


@pytest.mark.slow
def test_a_tiny_run_writes_short_latencies_and_the_heavy_shadow_runs(tmp_path: Path) -> None:
    out = tmp_path / "beside.json"
    run_beside(out, short=4, steps=2)
    results = json.loads(out.read_text())
    assert results["benchmark"] == "beside" and results["machine"]["cores"]
    for name in ("short_alone", "short_beside"):
        row = results[name]
        assert row["errors"] == 0 and row["latency_p99_ms"] > 0 and row["throughput_rps"] > 0
    heavy = results["heavy"]
    assert heavy["steps"] == 2 and len(heavy["shadow_recorded_after_request_s"]) == 2
    assert "no shadow run recorded" not in heavy["shadow_outcomes"]  # each step's shadow run is in
