"""Bad input and upstream failures come back in OpenAI's error shape, with the right status."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from tests.support.clients import client, decision


def _error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert set(body["error"]) == {"message", "type", "param", "code"}, body
    return dict(body["error"])


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (b'{"model": "m"}', 400, "messages"),
        (b'{"model": "m", "messages": "hi"}', 400, "messages"),
        (b'{"model": "m", "messages": []}', 400, "messages"),
        (b'{"model": "m", "messages": [{"role": "wizard", "content": "x"}]}', 400, "role"),
        (b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": "yes"}', 400, "stream"),
        (b'{"model": "m", "messages": [{"role": "user"}], "tools": [{"type": "function"}]}', 400, "tools"),
    ],
)
def test_bad_requests_get_clear_errors(proxy: Any, body: bytes, status: int, words: str) -> None:
    url = proxy()
    response = httpx.post(
        url + "/v1/chat/completions", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == status
    assert words in _error(response)["message"]


def test_oversized_body_is_413(proxy: Any) -> None:
    url = proxy(max_body_bytes=1000)
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * 2000}]}
    response = httpx.post(url + "/v1/chat/completions", json=big)
    assert response.status_code == 413
    _error(response)


@pytest.mark.parametrize(
    ("model", "status"),
    [
        ("error-500", 502),
        ("error-503", 502),
        ("error-400", 400),
        ("error-404", 404),
        ("error-429", 429),
        ("garbage", 502),
    ],
)
def test_upstream_faults_are_converted_and_recorded(
    proxy: Any, upstream: str, model: str, status: int
) -> None:
    url = proxy({"task_type": "faulty", "upstream": {"model": None, "api_base": upstream}})
    response = httpx.post(
        url + "/v1/chat/completions",
        json={"model": model, "messages": [{"role": "user", "content": "hi"}]},
        headers={"X-Shadowswitch-Task": "faulty"},
    )
    assert response.status_code == status, response.text
    _error(response)
    record = decision(url, response.headers["x-shadowswitch-decision-id"])
    assert record["status_code"] == status and record["error"]


def test_upstream_timeout_is_504(proxy: Any, upstream: str) -> None:
    policy = {
        "task_type": "slow",
        "upstream": {"model": "openai/slow-3", "api_base": upstream, "timeout_s": 0.5},
    }
    url = proxy(policy)
    response = httpx.post(
        url + "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        headers={"X-Shadowswitch-Task": "slow"},
        timeout=30,
    )
    assert response.status_code == 504
    assert _error(response)["code"] == "upstream_timeout"


def test_connection_refused_is_502(proxy: Any) -> None:
    policy = {"task_type": "down", "upstream": {"model": "openai/m", "api_base": "http://127.0.0.1:9/v1"}}
    url = proxy(policy)
    with pytest.raises(openai.APIStatusError) as raised:
        client(url).chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Shadowswitch-Task": "down"},
        )
    assert raised.value.status_code == 502


def test_stream_upstream_failure_is_an_error_before_the_stream(proxy: Any, upstream: str) -> None:
    url = proxy({"task_type": "faulty", "upstream": {"model": None, "api_base": upstream}})
    with pytest.raises(openai.APIStatusError) as raised:
        client(url).chat.completions.create(
            model="error-500",
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
            extra_headers={"X-Shadowswitch-Task": "faulty"},
        )
    assert raised.value.status_code == 502


def test_unknown_decision_is_404(proxy: Any) -> None:
    url = proxy()
    response = httpx.get(url + "/v1/shadowswitch/decisions/nope")
    assert response.status_code == 404
    _error(response)
    response = httpx.get(url + "/no/such/route")
    assert response.status_code == 404
    _error(response)
