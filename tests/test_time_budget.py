"""The engine's time budget and its queue, through the real proxy: the embedded models, the
openai SDK, the scripted upstream over real HTTP.

A decision past `engine.time_budget_ms` abstains (`time_budget`) and the upstream answers; a
heavy agent in shadow with learning on (a tool whose schema nests arrays of objects, a
conversation of about 6,000 tokens) does not hold the short requests a user waits for.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bench.scaling.heavy import heavy_step
from tests.support.clients import client, decision
from tests.support.local_path import ask, policy, wait_for

pytestmark = pytest.mark.slow
CITIES = ("Lisbon", "Porto", "Madrid", "Lyon", "Turin", "Ghent", "Leeds", "Cork", "Bremen", "Graz", "Oslo")
HEAVY = {
    "task_type": "heavy_agent",
    "match": {"model": "heavy-agent"},
    "rollout": {"mode": "shadow"},
    "engine": {"learn": True, "time_budget_ms": 250},
}


def test_a_decision_past_its_budget_abstains_and_the_upstream_answers(proxy: Any, local_engine: Any) -> None:
    roomy = proxy(policy(time_budget_ms=60_000), local_factory=lambda: local_engine)
    tight = proxy(policy(time_budget_ms=1), local_factory=lambda: local_engine)
    text = "What's the weather like in Lisbon today?"
    assert ask(roomy, text).headers["x-shadowswitch-path"] == "local"  # within budget: served locally
    raw = ask(tight, text)
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    call = raw.parse().choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather"  # the upstream's answer
    record = decision(tight, raw.headers["x-shadowswitch-decision-id"])
    assert record["abstain_reason"] == "time_budget"
    assert record["valid"] is True


def test_a_shadow_run_is_not_held_to_the_served_paths_budget(proxy: Any, local_engine: Any) -> None:
    """A 1 ms budget: served, the engine abstains; in shadow, where no user waits for it, its run
    ends and makes its pair all the same (a loaded machine must not cost learning its pairs)."""
    shadowed = policy(time_budget_ms=1, learn=True)
    shadowed["rollout"] = {"mode": "shadow"}
    url = proxy(shadowed, local_factory=lambda: local_engine)
    raw = ask(url, "What's the weather like in Lisbon today?")
    assert raw.headers["x-shadowswitch-path"] == "generative"
    record = wait_for(url, raw.headers["x-shadowswitch-decision-id"], "shadow")
    shadow = record["shadow"]
    assert shadow["abstain_reason"] is None and shadow["name"] == "get_weather", shadow
    assert record["agreement"] is not None  # a compared pair
    served = proxy(policy(time_budget_ms=1), local_factory=lambda: local_engine)
    again = ask(served, "What's the weather like in Porto today?")
    assert decision(served, again.headers["x-shadowswitch-decision-id"])["abstain_reason"] == "time_budget"


def test_short_requests_keep_their_p99_beside_a_heavy_agent_learning_in_shadow(
    proxy: Any, local_engine: Any
) -> None:
    # The short requests served locally whatever this machine's load (their budget is not what is
    # tested here), the heavy agent's runs within the default budget.
    url = proxy(policy(time_budget_ms=60_000), HEAVY, local_factory=lambda: local_engine)
    ask(url, "What's the weather like in Rome today?")  # warm: the tools' vectors, the LM prefix
    alone = _short_latencies(url, first=0)
    heavy_ids: list[str] = []
    with ThreadPoolExecutor(1) as pool:
        heavy = pool.submit(_heavy_agent, url, heavy_ids)
        time.sleep(1.0)  # its first steps in the engine's queue
        beside = _short_latencies(url, first=100)
        heavy.result()
    p99_alone, p99_beside = _p99(alone), _p99(beside)
    # Head-of-line blocking put this p99 at 30 s and more; the bound leaves room for a loaded CI
    # machine (the target figures, < 1 s or 1.5x alone, are the benchmark's: docs/benchmarks/scaling.md).
    assert p99_beside < 3.0 or p99_beside <= 3 * p99_alone, (p99_alone, p99_beside)
    for decision_id in heavy_ids:  # each heavy step's shadow run was made and recorded
        shadow = wait_for(url, decision_id, "shadow", timeout_s=120)["shadow"]
        assert shadow["path"] == "local" and "error" not in shadow, shadow


def _short_latencies(url: str, first: int, count: int = 24, concurrency: int = 4) -> list[float]:
    """Seconds each of `count` distinct short requests took, `concurrency` at a time."""

    def one(i: int) -> float:
        begun = time.perf_counter()
        raw = ask(url, f"What's the weather like in {CITIES[i % len(CITIES)]} on day {first + i}?")
        assert raw.headers["x-shadowswitch-path"] == "local"
        return time.perf_counter() - begun

    with ThreadPoolExecutor(concurrency) as pool:
        return list(pool.map(one, range(count)))


def _heavy_agent(url: str, ids: list[str], steps: int = 12) -> None:
    """The heavy agent's distinct steps, two at a time."""
    sdk = client(url)

    def step(i: int) -> None:
        body = heavy_step(i)
        raw = sdk.chat.completions.with_raw_response.create(
            model=body["model"], messages=body["messages"], tools=body["tools"]
        )
        assert raw.headers["x-shadowswitch-task"] == "heavy_agent"
        ids.append(raw.headers["x-shadowswitch-decision-id"])

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(step, range(steps)))


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]
