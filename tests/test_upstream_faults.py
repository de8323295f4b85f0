"""Upstream faults, from a real upstream that misbehaves on purpose over HTTP (support/upstreams/faulty).

Each fault reaches the agent with the right status (502, 504, 429 with its Retry-After, the
upstream's own 4xx), is retried only where that is safe (never after the first streamed byte),
and is recorded on its decision with the error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from shadowswitch.engines.base import Choice
from shadowswitch.errors import UnsupportedRequest
from shadowswitch.policy.models import Policy
from tests.support.clients import client, decision, rollout
from tests.support.policies import TOOLS
from tests.support.upstreams import RETRY_AFTER_S, FaultyUpstream
from tests.support.wait import eventually

RETRIES = 2  # the proxy's default: three attempts in all


@pytest.fixture(scope="module")
def faulty() -> Iterator[FaultyUpstream]:
    with FaultyUpstream() as server:
        yield server


def faulty_policy(faulty: FaultyUpstream, **upstream: Any) -> dict[str, Any]:
    return {
        "task_type": "faulty",
        "upstream": {"model": None, "api_base": faulty.base_url, "timeout_s": 5, **upstream},
    }


def post(url: str, model: str, text: str = "hi", **body: Any) -> httpx.Response:
    return httpx.post(
        url + "/v1/chat/completions",
        json={"model": model, "messages": [{"role": "user", "content": text}], **body},
        headers={"X-Shadowswitch-Task": "faulty"},
        timeout=30,
    )


def error_of(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert set(body["error"]) == {"message", "type", "param", "code"}, body
    return dict(body["error"])


@pytest.mark.parametrize(
    ("model", "status", "code", "attempts"),
    [
        ("status-500", 502, "upstream_error", 1 + RETRIES),
        ("status-503", 502, "upstream_error", 1 + RETRIES),
        ("status-504", 504, "upstream_timeout", 1),  # the upstream already waited: not again
        ("reset", 502, "upstream_unreachable", 1 + RETRIES),
        ("notjson", 502, "upstream_malformed", 1),
        ("nochoices", 502, "upstream_malformed", 1),
        ("status-400", 400, None, 1),
        ("status-404", 404, None, 1),
        ("status-429", 429, "rate_limit_exceeded", 1),
    ],
)
def test_fault_status_retries_and_record(
    proxy: Any, faulty: FaultyUpstream, model: str, status: int, code: str | None, attempts: int
) -> None:
    url = proxy(faulty_policy(faulty))
    before = faulty.hits[model]
    response = post(url, model)
    assert response.status_code == status, response.text
    error = error_of(response)
    assert error["code"] == code
    assert faulty.hits[model] - before == attempts
    if attempts > 1:
        assert f"after {attempts} attempts" in error["message"]
    record = decision(url, response.headers["x-shadowswitch-decision-id"])
    assert record["status_code"] == status and record["error"] and record["valid"] is False
    assert response.headers["x-shadowswitch-path"] == "generative"


def test_429_passes_retry_after_through_to_the_sdk(proxy: Any, faulty: FaultyUpstream) -> None:
    url = proxy(faulty_policy(faulty))
    with pytest.raises(openai.RateLimitError) as raised:
        client(url).chat.completions.create(
            model="status-429",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Shadowswitch-Task": "faulty"},
        )
    assert raised.value.response.headers["retry-after"] == str(RETRY_AFTER_S)
    assert raised.value.response.headers["x-shadowswitch-decision-id"]


def test_timeout_is_504_and_not_retried(proxy: Any, faulty: FaultyUpstream) -> None:
    url = proxy(faulty_policy(faulty, timeout_s=0.5))
    before = faulty.hits["hang"]
    response = post(url, "hang")
    assert response.status_code == 504
    assert error_of(response)["code"] == "upstream_timeout"
    assert faulty.hits["hang"] - before == 1
    record = decision(url, response.headers["x-shadowswitch-decision-id"])
    assert record["status_code"] == 504 and "timed out" in record["error"]


def test_connection_refused_is_502_after_bounded_retries(proxy: Any) -> None:
    policy = {"task_type": "faulty", "upstream": {"model": "openai/m", "api_base": "http://127.0.0.1:9/v1"}}
    url = proxy(policy, upstream_retries=1)
    response = post(url, "m")
    assert response.status_code == 502
    error = error_of(response)
    assert error["code"] == "upstream_unreachable" and "after 2 attempts" in error["message"]


def test_a_passing_failure_is_retried_into_a_success(proxy: Any, faulty: FaultyUpstream) -> None:
    url = proxy(faulty_policy(faulty))
    raw = client(url).chat.completions.with_raw_response.create(
        model="flaky-2",
        messages=[{"role": "user", "content": "flaky once, twice"}],
        extra_headers={"X-Shadowswitch-Task": "faulty"},
    )
    assert raw.parse().choices[0].message.content == "fine"
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["status_code"] == 200 and record["error"] is None and record["valid"] is True


def test_no_retry_after_the_first_streamed_byte(proxy: Any, faulty: FaultyUpstream) -> None:
    url = proxy(faulty_policy(faulty))
    before = faulty.hits["cut"]
    raw = client(url).chat.completions.with_raw_response.create(
        model="cut",
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
        extra_headers={"X-Shadowswitch-Task": "faulty"},
    )
    received: list[str] = []
    with pytest.raises(openai.APIError, match="broke off"):
        for chunk in raw.parse():
            received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == "half "  # what came before the cut reached the agent, once
    assert faulty.hits["cut"] - before == 1
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["status_code"] == 502 and "broke off" in record["error"] and record["valid"] is False


def test_malformed_chunk_mid_stream_ends_the_stream_with_an_error(proxy: Any, faulty: FaultyUpstream) -> None:
    url = proxy(faulty_policy(faulty))
    stream = client(url).chat.completions.create(
        model="badchunk",
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
        extra_headers={"X-Shadowswitch-Task": "faulty"},
    )
    with pytest.raises(openai.APIError):
        list(stream)


def test_a_stream_is_retried_before_its_first_byte(proxy: Any, faulty: FaultyUpstream) -> None:
    url = proxy(faulty_policy(faulty))
    stream = client(url).chat.completions.create(
        model="flaky-1",
        messages=[{"role": "user", "content": "stream after one failure"}],
        stream=True,
        extra_headers={"X-Shadowswitch-Task": "faulty"},
    )
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "half answer"
    with pytest.raises(openai.APIStatusError) as raised:
        client(url).chat.completions.create(
            model="status-503",
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
            extra_headers={"X-Shadowswitch-Task": "faulty"},
        )
    assert raised.value.status_code == 502


# -- the local engine failing on one request ---------------------------------------------------


class FailingEngine:
    """A local engine that fails the way a real one can: an exception of the given kind."""

    ready = True

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.calls = 0

    async def decide(self, request: Any, policy: Policy) -> Choice:
        self.calls += 1
        raise self.error


def canary(**breaker: Any) -> dict[str, Any]:
    return {
        "task_type": "pick_tool",
        "rollout": {"mode": "canary", "percent": 100},
        "breaker": {"consecutive_failures": 3, "reprobe_after_s": 0, **breaker},
    }


def ask_tools(url: str, session: str = "s") -> Any:
    return client(url).chat.completions.with_raw_response.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": "book a hotel in Paris for two nights"}],
        tools=TOOLS,
        extra_headers={"X-Shadowswitch-Task": "pick_tool", "X-Shadowswitch-Session": session},
    )


@pytest.mark.parametrize("error", [MemoryError(), RecursionError("maximum recursion depth exceeded")])
def test_a_local_crash_falls_back_and_counts_for_the_breaker(proxy: Any, error: BaseException) -> None:
    engine = FailingEngine(error)
    url = proxy(canary(), local_factory=lambda: engine)
    eventually(lambda: httpx.get(url + "/readyz").status_code == 200)
    for i in range(3):
        raw = ask_tools(url, f"s{i}")
        assert raw.headers["x-shadowswitch-path"] == "fallback"
        assert raw.parse().choices[0].message.tool_calls  # the upstream answered
        record = decision(url, raw.headers["x-shadowswitch-decision-id"])
        assert record["error"].startswith(f"local engine error: {type(error).__name__}")
        assert record["status_code"] == 200
    assert eventually(lambda: rollout(url)["breaker"]["state"] == "open")
    raw = ask_tools(url, "after")  # the process lives on, now generative only
    assert raw.headers["x-shadowswitch-path"] == "generative" and engine.calls == 3


def test_an_unsupported_request_abstains_without_counting(proxy: Any) -> None:
    engine = FailingEngine(UnsupportedRequest("tool 'x': parameters use a $ref the engine cannot follow"))
    url = proxy(canary(), local_factory=lambda: engine)
    eventually(lambda: httpx.get(url + "/readyz").status_code == 200)
    for i in range(4):
        raw = ask_tools(url, f"s{i}")
        assert raw.headers["x-shadowswitch-path"] == "fallback"
        record = decision(url, raw.headers["x-shadowswitch-decision-id"])
        assert record["abstain_reason"].startswith("unsupported: tool 'x'") and record["error"] is None
    assert rollout(url)["breaker"]["state"] == "closed"
