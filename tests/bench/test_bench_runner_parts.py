"""The runner's model-free parts: parsing generated text, summaries, the stub upstream, policies."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import yaml

from bench.bfcl.baselines import call_schema, json_complete, parse_calls, prompt_messages
from bench.bfcl.checker import Call
from bench.bfcl.data import load_cases
from bench.bfcl.outcome import Outcome, from_compact, percentile, summarise
from bench.bfcl.proxy import choice_ms, policy_for, write_policies
from shadowswitch.policy.models import Defaults, Policy
from tests.support.upstreams import StubUpstream


def test_parse_calls_from_generated_text() -> None:
    text = 'Sure! ```json\n{"name": "f", "arguments": {"x": 1}}\n``` done'
    assert parse_calls(text) == [Call("f", {"x": 1})]
    assert parse_calls('{"name": "f", "parameters": {"x": 1}}') == [Call("f", {"x": 1})]
    assert parse_calls('{"name": "f", "arguments": "{\\"x\\": 2}"}') == [Call("f", {"x": 2})]
    assert parse_calls('{"name": null}') == []
    assert parse_calls("I cannot help with that.") == []
    assert parse_calls('{"name": "f", "arguments": {"x": ') is None
    assert parse_calls('{"tool": "f"}') is None


def test_json_complete_stops_only_after_a_whole_object() -> None:
    assert not json_complete("Let me call")
    assert not json_complete('{"name": "f", "arguments": {')
    assert json_complete('{"name": "f", "arguments": {}} and more')


def test_prompt_puts_tools_in_the_system_message() -> None:
    case = load_cases("simple_python", limit=1)[0]
    messages = prompt_messages(case)
    assert messages[0]["role"] == "system"
    assert case.tools[0]["function"]["name"] in messages[0]["content"]
    assert messages[1:] == case.request["messages"]


def test_call_schema_offers_each_tool_and_no_tool() -> None:
    case = load_cases("multiple", limit=1)[0]
    options = call_schema(case)["anyOf"]
    names = [o["properties"]["name"].get("const") for o in options]
    assert names[:-1] == [t["function"]["name"] for t in case.tools]
    assert options[-1]["properties"]["name"] == {"type": "null"}


def outcome(cat: str, ok: bool, ms: float, path: str = "local") -> Outcome:
    return Outcome(f"{cat}_1", cat, ok, ok, True, "f", ms / 2, ms, path)


def test_summary_splits_call_and_no_tool_accuracy() -> None:
    outs = [
        outcome("simple_python", True, 10),
        outcome("simple_python", False, 30),
        outcome("irrelevance", True, 20, "fallback"),
    ]
    summary = summarise(outs)
    assert summary["ast_acc"] == 0.5 and summary["no_tool_acc"] == 1.0
    assert summary["fallback_rate"] == round(1 / 3, 4)
    assert summary["call_p50_ms"] == 20 and summary["choice_p50_ms"] == 10


def test_compact_rows_round_trip() -> None:
    original = outcome("live_simple", True, 12.345)
    assert from_compact(original.compact()).category == "live_simple"
    assert from_compact(original.compact()).call_ok


def test_percentile() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 95) == 5.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.05


def test_choice_ms_tolerates_record_shapes() -> None:
    assert choice_ms({"timings_ms": {"candidates": 1, "scoring": 2.5}, "latency_ms": 9}) == 3.5
    both = {"candidates": 1, "scoring": 2.5, "arguments": 20, "total": 23.5}
    assert choice_ms({"timings_ms": both}) == 3.5  # the arguments belong to the whole call
    assert choice_ms({"timings_ms": {"scoring": 2.5, "total": 4}, "latency_ms": 9}) == 4.0
    assert choice_ms({"latency_ms": 9}) == 9.0
    assert choice_ms({}) is None


def test_policies_written_are_valid_for_the_proxy(tmp_path: Path) -> None:
    write_policies(tmp_path, ["lm", "hybrid"], "http://127.0.0.1:9/v1", ["hybrid"])
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["_defaults.yaml", "bfcl_hybrid.yaml", "bfcl_hybrid_default.yaml", "bfcl_lm.yaml"]
    Defaults.model_validate(yaml.safe_load((tmp_path / "_defaults.yaml").read_text()))
    zero = Policy.model_validate(policy_for("lm", default_thresholds=False))
    assert zero.engine.min_confidence == 0 and zero.rollout.percent == 100
    assert zero.engine.time_budget_ms > Policy(task_type="x").engine.time_budget_ms  # quality, not speed
    default = Policy.model_validate(policy_for("hybrid", default_thresholds=True))
    assert default.engine.min_confidence == Policy(task_type="x").engine.min_confidence
    assert default.engine.time_budget_ms == Policy(task_type="x").engine.time_budget_ms


@pytest.mark.integration  # serves the stub upstream
def test_stub_upstream_answers_and_counts() -> None:
    with StubUpstream() as stub:
        body = {"model": "stub", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{stub.base_url}/chat/completions", json=body).json()
        assert reply["choices"][0]["message"]["content"]
        assert stub.hits == 1


def test_bench_cli_help_and_option_checks() -> None:
    from typer.testing import CliRunner

    from bench.cli import bench_app

    runner = CliRunner()
    result = runner.invoke(bench_app, ["bfcl", "--help"])
    assert result.exit_code == 0 and "--scorers" in result.output
    bad = runner.invoke(bench_app, ["bfcl", "--scorers", "magic", "--direct"])
    assert bad.exit_code != 0
