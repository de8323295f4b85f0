"""Bad input gets a clear OpenAI-shaped 4xx from a real proxy, and nothing else breaks.

Complements tests/test_errors.py (malformed JSON, wrong roles and types): empty, huge, deep
and non-UTF-8 bodies, absurd tools, tool results that answer no call, and unknown fields
(passed through, never refused).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.clients import client
from tests.support.policies import TOOLS

USER = [{"role": "user", "content": "hi"}]


def send(url: str, content: bytes | Iterator[bytes], **headers: str) -> httpx.Response:
    return httpx.post(
        url + "/v1/chat/completions",
        content=content,
        headers={"content-type": "application/json", **headers},
        timeout=30,
    )


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body["error"]) == {"message", "type", "param", "code"}, body
    for internal in ("Traceback", "/work/", ".py", "site-packages", "SELECT"):
        assert internal not in body["error"]["message"]
    return dict(body["error"])


def tool(name: str, parameters: Any = None) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters or {"type": "object"}}}


def body(**fields: Any) -> bytes:
    return json.dumps({"model": "m", "messages": USER, **fields}).encode()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b'{"model": "m", "messages": [{"role": "user", "content": "\xff\xfe"}]}', "not valid JSON"),
        (b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}', "surrogate"),
        (b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": NaN}', "NaN"),
        (
            b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "seed": ' + b"9" * 5000 + b"}",
            "JSON",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
        (body(metadata=json.loads('{"a":' * 80 + "1" + "}" * 80)), "nested deeper"),
        (body(messages=[{"role": "user", "content": 42}]), "messages.0.content"),
        (body(tools={"name": "x"}), "tools"),
        (body(tools=[tool("x", "a string schema")]), "parameters"),
        (body(tools=[tool(f"t{i}") for i in range(2000)]), "tools"),
        (
            body(tools=[tool("dup"), tool("other"), tool("dup", {"type": "object", "properties": {}})]),
            "twice",
        ),
        (body(functions=[{"name": "f"}, {"name": "f"}]), "twice"),
        (
            body(messages=[*USER, {"role": "tool", "tool_call_id": "call_nowhere", "content": "ok"}]),
            "answers no",
        ),
        (body(messages=[*USER, {"role": "tool", "content": "ok"}]), "tool_call_id"),
        (body(messages=[*USER, {"role": "assistant", "tool_calls": "x"}]), "tool_calls"),
    ],
)
def test_bad_bodies_get_a_clear_400(proxy: Any, content: bytes, words: str) -> None:
    url = proxy()
    error = error_of(send(url, content), 400)
    assert words in error["message"] and error["type"] == "invalid_request_error"
    assert client(url).chat.completions.create(model="m", messages=USER).choices  # still serving


def test_huge_bodies_are_413_by_length_and_while_streaming(proxy: Any) -> None:
    url = proxy(max_body_bytes=64 * 1024)
    big = body(messages=[{"role": "user", "content": "x" * 100_000}])
    assert error_of(send(url, big), 413)["code"] == "request_too_large"

    def chunked() -> Iterator[bytes]:  # no Content-Length: the limit must hold while reading
        for start in range(0, len(big), 8192):
            yield big[start : start + 8192]

    assert error_of(send(url, chunked()), 413)["code"] == "request_too_large"
    fits = body(messages=[{"role": "user", "content": "x" * 60_000}])
    assert send(url, fits).status_code == 200
    feedback = httpx.post(url + "/v1/shadowswitch/feedback", content=big, timeout=30)
    error_of(feedback, 413)  # every route, not only chat


def test_tool_results_answering_earlier_calls_pass(proxy: Any) -> None:
    url = proxy()
    call = {"id": "call_1", "type": "function", "function": {"name": "book_hotel", "arguments": "{}"}}
    messages = [
        *USER,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "booked"},
    ]
    assert send(url, body(messages=messages, tools=TOOLS)).status_code == 200


def test_unknown_fields_are_passed_through(proxy: Any, upstream: str) -> None:
    url = proxy()
    messages = [{"role": "user", "content": "vendor fields", "x_trace": "t-1"}]
    response = send(url, body(messages=messages, x_vendor_option={"level": 3}))
    assert response.status_code == 200, response.text
    seen = httpx.get(upstream.removesuffix("/v1") + "/requests").json()
    forwarded = next(
        r["body"] for r in reversed(seen) if r["body"]["messages"][0]["content"] == "vendor fields"
    )
    assert forwarded["x_vendor_option"] == {"level": 3}
    assert forwarded["messages"][0]["x_trace"] == "t-1"
