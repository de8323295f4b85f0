"""The shop agent against its own simulated model, over real HTTP with the `openai` SDK: ids are
copied from tool results, orders are walked one at a time, every write follows a confirmation,
missing facts are asked for, the model's mistakes are made and recovered from, and all of it is
the same again for the same seed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.breakdown import origin_of
from bench.learning_demo import Step
from bench.learning_shop import record
from examples.shop import scenarios
from examples.shop.backend import WRITES, fresh_backend
from examples.shop.plan import fits
from examples.shop.policy import POLICY
from examples.shop.reading import understand
from examples.shop.tools import TOOLS

ALL = scenarios()
SAMPLE = [s for s in ALL if int(s.id[1:4]) < 40]  # every request of the first 40 customers


@pytest.fixture(scope="module")
def steps() -> Iterator[list[Step]]:
    yield record(SAMPLE)  # raises if the agent fails any of them: the written changes are checked


def _conversations(steps: list[Step]) -> dict[str, list[Step]]:
    out: dict[str, list[Step]] = {}
    for step in steps:
        out.setdefault(step.task, []).append(step)
    return out


def _results(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """(tool name, parsed result or None for an error) of each tool result, in order."""
    names = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    out = []
    for m in messages:
        if m["role"] == "tool":
            parsed = None if m["content"].startswith("error") else json.loads(m["content"])
            out.append((names[m["tool_call_id"]], parsed))
    return out


@pytest.mark.unit
def test_the_agent_is_as_big_as_a_real_one() -> None:
    assert len(POLICY.split()) >= 1500 and len(TOOLS) >= 12
    assert {i for s in ALL for i in s.tags} >= {
        "cancel",
        "return",
        "exchange",
        "order_address",
        "status",
        "damaged",
    }
    assert len({s.customer_id for s in ALL}) >= 80 and len(ALL) >= 3 * 70


@pytest.mark.unit
def test_the_world_and_the_requests_are_the_same_for_the_same_seed() -> None:
    assert fresh_backend(3, 10).state() == fresh_backend(3, 10).state()
    assert fresh_backend(3, 10).state() != fresh_backend(4, 10).state()
    assert scenarios(5, 12) == scenarios(5, 12) and scenarios(5, 12) != scenarios(6, 12)


@pytest.mark.unit
def test_each_opening_is_read_as_its_request() -> None:
    for scenario in ALL:
        card = understand([scenario.opening])
        assert card.intent == scenario.intent.removesuffix("_refused"), scenario.opening
        if scenario.intent in ("return", "exchange", "damaged"):
            assert card.products == scenario.products


@pytest.mark.unit
def test_reworded_openings_are_read_as_the_same_requests_in_words_the_stream_never_used() -> None:
    """`--new-wording`'s test customers: each opening in other words, read by the simulated model
    as the same request with the same facts; every other draw of the scenario unchanged."""
    from dataclasses import replace

    from examples.shop.scenario_text import OPENINGS, REWORDED

    def phrasings(table: dict[str, dict[str, tuple[str, ...]]]) -> set[tuple[str, str, str]]:
        return {
            (intent, style, p) for intent, kinds in table.items() for style, ps in kinds.items() for p in ps
        }

    assert {(i, s) for i, s, _ in phrasings(REWORDED)} == {(i, s) for i, s, _ in phrasings(OPENINGS)}
    assert not {p for *_, p in phrasings(REWORDED)} & {p for *_, p in phrasings(OPENINGS)}
    for plain, reworded in zip(ALL, scenarios(reworded=True), strict=True):
        assert replace(reworded, opening=plain.opening) == plain
        assert reworded.opening != plain.opening
        said, heard = understand([plain.opening]), understand([reworded.opening])
        assert heard.intent == reworded.intent.removesuffix("_refused"), reworded.opening
        if reworded.intent != "cancel_refused":  # the refusal's openings say a reason or not, both ways
            assert replace(heard, text="") == replace(said, text=""), reworded.opening


@pytest.mark.integration  # serves the simulated model
def test_ids_are_copied_from_the_tool_results(steps: list[Step]) -> None:
    ids = {"customer_id", "order_id", "product_id", "tracking_number", "line_ids", "payment_id", "refund_to"}
    seen: dict[str, int] = {}
    for step in steps:
        if "name" not in step.answer:
            continue
        for key, value in step.answer["arguments"].items():
            if key in ids or key.endswith("_ids"):
                origin, path = origin_of(step.request["messages"], value)
                seen[origin] = seen.get(origin, 0) + 1
                if origin == "tool_result":
                    assert path and ":" in path
    # every id but a mistyped one (the model's mistake, "nowhere") was read in a tool result
    assert seen["tool_result"] > 20 * seen.get("nowhere", 0) > 0 and set(seen) <= {"tool_result", "nowhere"}


@pytest.mark.integration  # serves the simulated model
def test_orders_are_walked_one_at_a_time_until_the_one_described(steps: list[Step]) -> None:
    walked = 0
    for task, conversation in _conversations(steps).items():
        scenario = next(s for s in SAMPLE if s.id == task)
        if understand([scenario.opening]).order_id or not scenario.products:
            continue
        last = conversation[-1].request["messages"]
        record = next(r for n, r in _results(last) if n == "get_customer" and r)
        read = [r["order_id"] for n, r in _results(last) if n == "get_order" and r]
        assert read == record["orders"][: len(read)]  # in the record's order, none skipped
        found = [
            r
            for n, r in _results(last)
            if n == "get_order" and r and fits(r, scenario.intent, scenario.products)
        ]
        assert found and found[0]["order_id"] == read[-1]  # stopped at the first that fits
        walked += len(read) > 1
    assert walked >= 10


@pytest.mark.integration  # serves the simulated model
def test_every_write_follows_a_yes_to_its_own_confirmation(steps: list[Step]) -> None:
    writes = 0
    for step in steps:
        name = step.answer.get("name")
        if name not in WRITES or name == "transfer_to_human":
            continue
        messages = step.request["messages"]
        asked, said = messages[-2], messages[-1]
        assert asked["role"] == "assistant" and "(yes/no)" in asked["content"]
        assert said["role"] == "user" and said["content"].lower().startswith(("yes", "sure"))
        earlier = [
            m for m in messages if m.get("tool_calls") and m["tool_calls"][0]["function"]["name"] in WRITES
        ]
        assert not earlier  # one write per conversation, after its own yes
        writes += 1
    declined = [s for s in SAMPLE if s.decline]
    assert writes == sum(len(s.writes) for s in SAMPLE if s.intent != "human") and declined


@pytest.mark.integration  # serves the simulated model
def test_what_is_missing_is_asked_for_in_text(steps: list[Step]) -> None:
    conversations = _conversations(steps)
    for scenario in SAMPLE:
        first = conversations[scenario.id][0].answer
        if not scenario.identity_upfront:
            assert "email" in first["content"]  # identity first, before any look-up
        asked = [s.answer["content"] for s in conversations[scenario.id] if "content" in s.answer]
        if "refund" in scenario.answers:
            assert any("refund" in t and "?" in t and "(yes/no)" not in t for t in asked)
        if "reason" in scenario.answers:
            assert any("reason" in t or "why" in t for t in asked)


@pytest.mark.integration  # serves the simulated model
def test_the_model_makes_a_large_models_mistakes_and_recovers(steps: list[Step]) -> None:
    texts = [s.answer.get("content") or "" for s in steps]
    retried = 0
    for step in steps:
        messages = step.request["messages"]
        if messages[-1]["role"] == "tool" and messages[-1]["content"].startswith("error: no "):
            failed = messages[-2]["tool_calls"][0]["function"]
            retried += step.answer.get("name") == failed["name"]  # the same look-up, now right
    assert retried >= 3
    assert sum("moment" in t for t in texts) >= 3  # text where a call was due
    assert sum("sure" in t.lower() and "(yes/no)" in t for t in texts) >= 3  # a second confirmation
    corrected = [
        s
        for s in steps
        if "not that one" in str(s.request["messages"][-1].get("content"))
        or "wrong item" in str(s.request["messages"][-1].get("content"))
    ]
    assert corrected  # a confirmation naming the wrong item, corrected by the customer


@pytest.mark.integration  # serves the simulated model
def test_the_same_seed_gives_the_same_conversations(steps: list[Step]) -> None:
    again = record(SAMPLE[:12])
    assert [s.answer for s in again] == [s.answer for s in steps[: len(again)]]
    wording = {s.answer.get("content") for s in steps if "content" in s.answer}
    assert len(wording) > len(SAMPLE)  # the texts vary


@pytest.mark.integration  # processes of its own, and the simulated model served
def test_the_agent_runs_on_its_own_from_the_command_line() -> None:
    import subprocess
    import sys

    from examples.demo.servers import serving
    from examples.demo.upstream import create_upstream
    from examples.shop import simulated

    with serving(create_upstream(simulated())) as url:
        command = [sys.executable, "-m", "examples.shop", "--base-url", f"{url}/v1"]
        run = subprocess.run(
            [*command, "--only", "c000-damaged,exchange"], capture_output=True, text=True, timeout=300
        )
        bad = subprocess.run([*command, "--only", "nope"], capture_output=True, text=True, timeout=60)
    exchanges = sum(s.intent == "exchange" for s in ALL)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{exchanges + 1}/{exchanges + 1} conversations succeeded" in run.stdout
    assert bad.returncode == 2 and "unknown requests: nope" in bad.stderr


@pytest.mark.integration  # the simulated model and the proxy, served
def test_the_agent_works_unchanged_through_the_proxy(tmp_path: Path) -> None:
    import httpx
    import yaml
    from openai import OpenAI

    from examples.demo.servers import serving
    from examples.demo.upstream import create_upstream
    from examples.shop import ShopAgent, simulated
    from shadowswitch.server.app import create_app
    from shadowswitch.server.settings import Settings

    one_each = list({s.intent: s for s in SAMPLE}.values())
    with serving(create_upstream(simulated())) as upstream:
        target = {"model": "openai/simulated-large-model", "api_base": f"{upstream}/v1", "timeout_s": 60}
        policy = {
            "task_type": "shop",
            "match": {"model": "shop-agent"},
            "upstream": target,
            "rollout": {"mode": "off"},
        }
        policies = tmp_path / "policies"
        policies.mkdir()
        (policies / "_defaults.yaml").write_text(yaml.safe_dump({"upstream": target}))
        (policies / "shop.yaml").write_text(yaml.safe_dump(policy))
        settings = Settings(db_url=f"sqlite:///{tmp_path / 'ss.db'}", policies=policies, load_models=False)
        with serving(create_app(settings)) as proxy:
            agent = ShopAgent(OpenAI(base_url=f"{proxy}/v1", api_key="x", max_retries=0))
            outcomes = [agent.run(s) for s in one_each]
            report = httpx.get(f"{proxy}/v1/shadowswitch/report").json()["task_types"]
    assert [o.scenario_id for o in outcomes if not o.success] == []
    assert {s.path for o in outcomes for s in o.steps} == {"generative"}
    assert [t["task_type"] for t in report] == ["shop"]
