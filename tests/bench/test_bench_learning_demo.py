"""The learning curve on the demo agent's traffic (`bench learning --traffic demo`): its steps,
its split by task, and a tiny run through a real proxy (in-process, the session's embedded
models) that writes the results JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bench.learning_curve import run_learning
from bench.learning_demo import demo_traffic, judge
from examples.travel_agent.task_sets import tasks_in
from examples.travel_agent.tasks import TASKS
from shadowswitch.engines.local.languages.zh.script import has_chinese
from tests.support.proxies import bench_proxy

FLIGHTS = [t for t in TASKS if t.tags == ("flights",)][:3]  # split: two stream tasks, one test task


@pytest.mark.integration  # serves the demo upstream
def test_the_demo_traffic_splits_by_task_and_judges_the_whole_call() -> None:
    traffic = demo_traffic(FLIGHTS)
    stream, test = traffic.stream, traffic.test
    assert {s.task for s in stream}.isdisjoint({s.task for s in test}) and test
    assert {s.task for s in stream} | {s.task for s in test} == {t.id for t in FLIGHTS}
    turns = sum(len(t.turns) for t in FLIGHTS)
    calls = sum(len(u.calls) for t in FLIGHTS for u in t.turns)
    assert len(stream) + len(test) == turns + calls  # every call, and the text after each turn
    step = next(s for s in test if "name" in s.answer)
    assert step.request["messages"][-1]["role"] == "user" and step.request["tools"]
    local = {"path": "local", "chosen": step.answer["name"], "arguments": dict(step.answer["arguments"])}
    local["argument_sources"] = {k: {"source": "text"} for k in local["arguments"]}
    assert judge(step, local)["agree"] and judge(step, local)["why"] is None
    dropped = dict(local, arguments={k: v for k, v in list(local["arguments"].items())[1:]})
    assert judge(step, dropped)["why"] == "a parameter the upstream sets, left out"
    assert (
        judge(step, dict(local, chosen="__no_tool__", arguments={}))["why"] == "no tool where a call was due"
    )
    text = next(s for s in test if "content" in s.answer)
    assert judge(text, {"path": "generative", "chosen": "__no_tool__"})["agree"]


@pytest.mark.integration  # serves the demo upstream
def test_the_demo_traffic_in_chinese_is_the_agent_talking_chinese() -> None:
    chinese = [t for t in tasks_in("zh") if t.tags == ("flights",)][:3]
    traffic = demo_traffic(chinese, lang="zh")
    steps = traffic.stream + traffic.test
    assert traffic.about["language"] == "zh" and {s.task for s in steps} == {t.id for t in chinese}
    first = steps[0].request["messages"]
    assert first[0]["role"] == "system" and has_chinese(first[0]["content"])
    assert all(has_chinese(m["content"]) for m in first if m["role"] == "user")


def test_a_tiny_demo_curve_writes_its_results(tmp_path: Path, local_engine: Any) -> None:
    proxy = bench_proxy(local_engine)

    out = tmp_path / "learning_demo.json"
    traffic = demo_traffic(FLIGHTS)
    environment = dict(os.environ)
    results = run_learning([0, 400, 1000], 3, out, timings=False, traffic_set=traffic, proxy=proxy)
    assert dict(os.environ) == environment  # the tests after this one must not inherit its token
    assert json.loads(out.read_text()) == results
    assert results["traffic"]["name"] == "demo" and results["traffic"]["stream"] == len(traffic.stream)
    points = results["checkpoints"]
    assert len(points) == 2  # the set spent at the second checkpoint: no third repeating it
    assert points[0]["pairs"] == 0 and 4 <= points[1]["pairs"] <= len(traffic.stream)
    assert points[1]["stream_sent"] == len(traffic.stream)
    assert points[1]["learn"]["status"] == "not_enough_pairs"  # fewer than 40 pairs: the prior
    for point in points:
        assert point["test_requests"] == 3 and point["invented_values"] == 0
        assert point["coverage"] is not None and 0 <= point["coverage"] <= 1
