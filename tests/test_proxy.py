"""The drop-in proxy end to end: the real openai SDK → a real proxy → LiteLLM → a real upstream."""

from __future__ import annotations

import gc
import json
import time
from typing import Any

import httpx
import pytest

from tests.support.clients import client, decision
from tests.support.policies import TOOLS, TRAVEL


def test_plain_chat_is_forwarded_and_recorded(proxy: Any) -> None:
    url = proxy()
    raw = client(url).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hello there"}], temperature=0.2
    )
    completion = raw.parse()
    assert completion.choices[0].message.content == "echo: hello there"
    assert raw.headers["x-shadowswitch-task"] == "unclassified"
    assert raw.headers["x-shadowswitch-path"] == "generative"
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["task_type"] == "unclassified"
    assert record["path"] == "generative"
    assert record["valid"] is True
    assert record["upstream_model"] == "openai/scripted"
    assert record["prompt_tokens"] == 11 and record["completion_tokens"] == 7
    assert record["latency_ms"] > 0


def test_extra_parameters_reach_the_upstream(proxy: Any, upstream: str) -> None:
    url = proxy()
    client(url).chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "params please"}],
        temperature=0.3,
        max_tokens=17,
        seed=5,
    )
    seen = httpx.get(upstream.removesuffix("/v1") + "/requests").json()
    body = next(s["body"] for s in reversed(seen) if "params please" in json.dumps(s["body"]))
    assert body["temperature"] == 0.3 and body["max_tokens"] == 17 and body["seed"] == 5


def test_tools_are_classified_and_answered_with_tool_calls(proxy: Any) -> None:
    url = proxy(TRAVEL)
    raw = client(url).chat.completions.with_raw_response.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": "book a hotel in Paris for 2 nights"}],
        tools=TOOLS,
        tool_choice="auto",
        extra_headers={"X-Shadowswitch-Session": "s-1"},
    )
    message = raw.parse().choices[0].message
    assert message.tool_calls and message.tool_calls[0].function.name == "book_hotel"
    assert raw.headers["x-shadowswitch-task"] == "pick_tool"
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["valid"] is True and record["chosen"] == "book_hotel"
    assert record["arguments"] == {"city": "x", "nights": 1}
    assert "s-1" not in json.dumps(record)  # the sticky key is stored hashed, never raw


def test_header_names_the_task(proxy: Any) -> None:
    url = proxy({**TRAVEL, "match": {"model": "something-else"}})
    raw = client(url).chat.completions.with_raw_response.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "hi"}],
        extra_headers={"X-Shadowswitch-Task": "pick_tool"},
    )
    assert raw.headers["x-shadowswitch-task"] == "pick_tool"


def test_stream_is_relayed_chunk_by_chunk(proxy: Any) -> None:
    url = proxy()
    with client(url).chat.completions.with_streaming_response.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "one two three four"}],
        stream=True,
        stream_options={"include_usage": True},
    ) as response:
        assert response.headers["x-shadowswitch-path"] == "generative"
        decision_id = response.headers["x-shadowswitch-decision-id"]
        chunks = list(response.parse())
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "echo: one two three four"
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) >= 4
    record = decision(url, decision_id)
    assert record["stream"] is True and record["valid"] is True
    assert record["prompt_tokens"] == 11


def test_generative_only_server_freezes_its_heap_and_still_streams(proxy: Any) -> None:
    """With no local models to load, the start-up objects (LiteLLM's, the app's) leave the
    collector's full passes once warmed up, as they do after a load: a full pass under load
    otherwise walks them all while every request in flight waits."""
    gc.unfreeze()
    url = proxy()
    deadline = time.monotonic() + 10
    while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gc.get_freeze_count() > 0
    stream = client(url).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "still here"}], stream=True
    )
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "echo: still here"


def test_stream_is_not_buffered(proxy: Any, upstream: str) -> None:
    url = proxy({"task_type": "drip", "upstream": {"model": None, "api_base": upstream}})
    started = time.monotonic()
    arrivals = []
    stream = client(url).chat.completions.create(
        model="drip",
        messages=[{"role": "user", "content": "a b c d e f"}],
        stream=True,
        extra_headers={"X-Shadowswitch-Task": "drip"},
    )
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            arrivals.append(time.monotonic() - started)
    assert len(arrivals) == 7  # "echo:" and six words, 0.2 s apart upstream
    assert arrivals[-1] - arrivals[0] > 0.8  # they arrived spread out, as the upstream sent them


def test_streamed_tool_call_is_joined_and_validated(proxy: Any) -> None:
    url = proxy(TRAVEL)
    stream = client(url).chat.completions.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": "search flights from Oslo to Rome"}],
        tools=TOOLS,
        stream=True,
    )
    calls: dict[int, dict[str, str]] = {}
    for chunk in stream:
        for part in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            call = calls.setdefault(part.index, {"name": "", "arguments": ""})
            call["name"] += part.function.name or "" if part.function else ""
            call["arguments"] += part.function.arguments or "" if part.function else ""
    assert calls[0]["name"] == "search_flights"
    assert json.loads(calls[0]["arguments"]) == {"origin": "x", "destination": "x"}


@pytest.mark.parametrize("kind", ["json_object", "json_schema"])
def test_response_format_is_forwarded(proxy: Any, kind: str) -> None:
    url = proxy()
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    fmt: dict[str, Any] = {"type": kind}
    if kind == "json_schema":
        fmt["json_schema"] = {"name": "place", "schema": schema}
    raw = client(url).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "where"}], response_format=fmt
    )
    content = raw.parse().choices[0].message.content
    assert isinstance(json.loads(content or ""), dict)
    assert decision(url, raw.headers["x-shadowswitch-decision-id"])["valid"] is True


def test_models_lists_policy_models(proxy: Any) -> None:
    url = proxy({**TRAVEL, "match": {"model": "travel-agent-step"}})
    names = [m.id for m in client(url).models.list()]
    assert "travel-agent-step" in names
