"""The learning curve on the shop agent's conversations (`bench learning --traffic shop`): its
split by customer, the per-decision breakdown, and a short run through a real proxy (in-process,
the session's embedded models) that writes the breakdown into the results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.breakdown import breakdown, origin_of
from bench.learning_curve import run_learning
from bench.learning_demo import Step, judge
from bench.learning_shop import shop_traffic, split
from bench.learning_shop import slipped as shop_slipped
from examples.shop import scenarios
from tests.support.proxies import bench_proxy

# the requests of the first ten customers: two held out
FEW = [s for s in scenarios() if int(s.id[1:4]) < 10]

MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "Refunds go to the original payment method."},
    {"role": "user", "content": "I'm Ines Sato, zip code 98918. Return my headlamp."},
    {
        "role": "assistant",
        "tool_calls": [{"id": "c1", "function": {"name": "get_customer", "arguments": "{}"}}],
    },
    {
        "role": "tool",
        "tool_call_id": "c1",
        "content": json.dumps({"orders": ["LK1", "LK2"], "payment": {"id": "pm_9"}}),
    },
    {"role": "assistant", "content": "Which order, LK7 perhaps?"},
]


@pytest.mark.unit
def test_a_value_is_traced_to_where_it_first_can_be_copied_from() -> None:
    assert origin_of(MESSAGES, "LK2") == ("tool_result", "get_customer:orders[]")
    assert origin_of(MESSAGES, "pm_9") == ("tool_result", "get_customer:payment.id")
    assert origin_of(MESSAGES, ["LK1", "LK2"]) == ("tool_result", "get_customer:orders[]")
    assert origin_of(MESSAGES, "LK7") == ("assistant", None)
    assert origin_of(MESSAGES, "98918") == ("user", None) and origin_of(MESSAGES, "sato") == ("user", None)
    assert origin_of(MESSAGES, "original payment method") == ("system", None)
    assert origin_of(MESSAGES, "LK3") == ("nowhere", None) and origin_of(MESSAGES, "LK") == ("nowhere", None)


@pytest.mark.unit
def test_the_breakdown_counts_each_tool_and_each_argument() -> None:
    request = {"messages": MESSAGES, "tools": []}
    call = Step("t", "return", request, {"name": "get_order", "arguments": {"order_id": "LK2"}})
    text = Step("t", "return", request, {"content": "Which one?"})
    local = {"path": "local", "chosen": "get_order", "arguments": {"order_id": "LK1"}, "argument_sources": {}}
    decisions = [
        {**local, "arguments": {}},
        {**local, "arguments": {"order_id": "LK2"}},
        {
            "path": "fallback",
            "chosen": "get_order",
            "arguments": {},
            "abstain_reason": "missing_value:order_id",
        },
        {"path": "local", "chosen": "get_customer", "arguments": {}},
        {"path": "local", "chosen": "get_order", "arguments": {"order_id": "LK1"}},
    ]
    cases = [call, call, call, call, text]
    out = breakdown(
        cases, decisions, lambda s: s.answer, [judge(c, d) for c, d in zip(cases, decisions, strict=True)]
    )
    assert out["tools"]["get_order"] == {
        "abstained": 1,
        "instead": {"get_customer": 1},
        "right": 1,
        "wrong": 2,
    }
    assert out["tools"]["__text__"] == {"wrong": 1, "instead": {"get_order": 1}}
    assert out["text_steps"]["answered_with_a_call"] == 1 and out["tool_call_steps"]["right"] == 1
    argument = out["arguments"]["get_order.order_id"]
    assert argument == {"from_tool_result": 4, "right": 1, "missing": 1, "not_filled": 1, "not_judged": 1}
    assert out["origins"]["tool_result"]["right"] == 1 and out["tool_result_paths"] == {
        "get_customer:orders[]": 4
    }
    assert [(s["upstream"], s["chosen"], s["outcome"]) for s in out["steps"]] == [
        ("get_order", "get_order", "wrong"),
        ("get_order", "get_order", "right"),
        ("get_order", "get_order", "abstained"),
        ("get_order", "get_customer", "wrong"),
        ("__text__", "get_order", "wrong"),
    ]


@pytest.mark.unit
def test_the_test_set_is_other_customers() -> None:
    stream, test = split(scenarios())
    assert test and len(stream) > 3 * len(test)
    assert {s.customer_id for s in stream}.isdisjoint({s.customer_id for s in test})


@pytest.mark.slow  # about 100 s: the proxy, learning, the embedded models
def test_a_short_shop_curve_through_the_proxy_writes_the_breakdown(tmp_path: Path, local_engine: Any) -> None:
    proxy = bench_proxy(local_engine)

    traffic = shop_traffic(FEW)
    assert {s.task.split("-")[0] for s in traffic.test} == {"c004", "c009"}
    out = tmp_path / "learning_shop.json"
    results = run_learning([0, 12], 8, out, timings=False, traffic_set=traffic, proxy=proxy)
    assert json.loads(out.read_text()) == results and results["traffic"]["name"] == "shop"
    points = results["checkpoints"]
    assert [p["pairs"] >= target for p, target in zip(points, (0, 12), strict=True)] == [True, True]
    for point in points:
        parts = point["breakdown"]
        assert point["test_requests"] == 8 and point["invented_values"] == 0
        counted = sum(v for c in parts["tools"].values() for k, v in c.items() if k != "instead")
        assert counted == 8  # each test step once, under the tool the upstream called or __text__
        assert set(parts["origins"]) <= {"tool_result", "assistant", "user", "system", "nowhere"}
        slipped = point["upstream_slipped"]
        assert slipped["tool_call_steps"] + slipped["text_steps"] == sum(map(shop_slipped, traffic.test[:8]))
        assert [s["slipped"] for s in parts["steps"]] == [shop_slipped(s) for s in traffic.test[:8]]


@pytest.mark.integration  # records the conversations against the model served over HTTP
def test_a_slip_of_the_simulated_model_is_told_from_its_policy() -> None:
    """A step is a slip where the model's answer is not its policy's: where the policy calls a
    tool, the recorded call differs from the policy's; a slip that replies in text replaces a call."""
    from examples.shop.plan import Call
    from examples.shop.simulated import ShopModel

    stream = shop_traffic(FEW).stream
    flags = [shop_slipped(s) for s in stream]
    assert 0 < sum(flags) < len(flags) / 5
    for step, slip in zip(stream, flags, strict=True):
        planned, _, _, _ = ShopModel(mistakes=False).decide(step.request)
        if isinstance(planned, Call):
            policy = {"name": planned.name, "arguments": planned.arguments}
            assert slip == (step.answer != policy), step.answer


@pytest.mark.unit
def test_the_checkpoints_are_read_from_the_command_line() -> None:
    import typer

    from bench.cli import _checkpoints

    assert _checkpoints("0,100, 400") == [0, 100, 400] and _checkpoints("") == []
    for bad in ("0,x", "400,100", "0,0", "-5"):
        with pytest.raises(typer.BadParameter):
            _checkpoints(bad)


@pytest.mark.integration  # records the conversations against the model served over HTTP
def test_new_wording_rewords_only_the_test_customers_openings() -> None:
    plain, new = shop_traffic(FEW), shop_traffic(FEW, new_wording=True)
    assert new.stream == plain.stream  # the stream is the same shadow traffic
    firsts = {
        s.task: s.request["messages"][1]["content"] for s in plain.test if len(s.request["messages"]) == 2
    }
    reworded = {
        s.task: s.request["messages"][1]["content"] for s in new.test if len(s.request["messages"]) == 2
    }
    assert firsts.keys() == reworded.keys() and all(firsts[t] != reworded[t] for t in firsts)
    assert new.about["test_openings"].startswith("reworded")


@pytest.mark.unit
def test_new_wording_is_the_shops_option_only() -> None:
    import typer

    from bench.cli import learning

    with pytest.raises(typer.BadParameter, match="--traffic shop"):
        learning(traffic="helpdesk", new_wording=True)
