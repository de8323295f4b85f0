"""LiteLLMEngine's cost-map entry for an upstream model LiteLLM does not list: made once, at zero
price, and nothing else changes: the upstream receives the same request as without it."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import litellm
import pytest
from litellm.exceptions import BadRequestError

from shadowswitch.engines import generative
from shadowswitch.engines.generative import LiteLLMEngine
from shadowswitch.policy.models import Upstream

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "answer",
        "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    },
}
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
SHAPES: dict[str, dict[str, Any]] = {
    "plain": {"max_tokens": 16, "temperature": 0.2},
    "tools": {"tools": [TOOL], "tool_choice": "auto", "parallel_tool_calls": False},
    "schema": {"response_format": SCHEMA, "seed": 7},
    "image": {"messages": [{"role": "user", "content": [{"type": "text", "text": "what is it?"}, IMAGE]}]},
    "stream": {"stream": True, "stream_options": {"include_usage": True}, "max_completion_tokens": 9},
}


def unlisted() -> str:
    return f"openai/unlisted-{uuid.uuid4().hex[:8]}"


def run(engine: LiteLLMEngine, request: dict[str, Any], upstream: Upstream) -> None:
    async def call() -> None:
        if request.get("stream"):
            async for _chunk in await engine.open_stream(request, upstream):
                pass
        else:
            await engine.complete(request, upstream)

    asyncio.run(call())


def direct(model: str, request: dict[str, Any], api_base: str) -> None:
    """The same request through LiteLLM alone, for a model nobody listed."""

    async def call() -> None:
        kwargs = {k: v for k, v in request.items() if k != "model"}
        response = await litellm.acompletion(model=model, api_base=api_base, api_key="not-needed", **kwargs)
        if request.get("stream"):
            async for _chunk in response:
                pass

    asyncio.run(call())


def listed(model: str) -> bool:
    try:
        litellm.get_model_info(model)
    except Exception:  # LiteLLM's "not mapped" error has changed class across versions
        return False
    return True


def last_seen(upstream: str) -> dict[str, Any]:
    seen = httpx.get(upstream.removesuffix("/v1") + "/requests", timeout=10).json()
    return dict(seen[-1]["body"])


def test_an_unlisted_model_is_listed_free_once(upstream: str) -> None:
    engine = LiteLLMEngine(retries=0)
    model = unlisted()
    assert not listed(model)
    request = {"model": "x", "messages": [{"role": "user", "content": "hi"}]}
    run(engine, request, Upstream(model=model, api_base=upstream, timeout_s=10))
    info = litellm.get_model_info(model)
    assert info["input_cost_per_token"] == 0 and info["output_cost_per_token"] == 0
    assert model not in litellm.open_ai_chat_completion_models  # no provider list gained it
    with pytest.raises(BadRequestError):  # a bare name still names no provider
        litellm.get_llm_provider(model.removeprefix("openai/"))


def test_a_listed_model_keeps_its_price(upstream: str) -> None:
    engine = LiteLLMEngine(retries=0)
    before = litellm.get_model_info("openai/gpt-4o-mini")["input_cost_per_token"]
    request = {"model": "x", "messages": [{"role": "user", "content": "hi"}]}
    run(engine, request, Upstream(model="openai/gpt-4o-mini", api_base=upstream, timeout_s=10))
    assert before and litellm.get_model_info("openai/gpt-4o-mini")["input_cost_per_token"] == before


def test_the_names_a_request_can_add_are_bounded(upstream: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generative, "MAX_LISTED", 1)
    engine = LiteLLMEngine(retries=0)
    first, second = unlisted(), unlisted()
    request = {"model": "x", "messages": [{"role": "user", "content": "hi"}]}
    for model in (first, second):
        run(engine, request, Upstream(model=model, api_base=upstream, timeout_s=10))
    assert listed(first)
    assert not listed(second)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_upstream_receives_what_litellm_alone_would_send(upstream: str, shape: str) -> None:
    request = {"model": "x", "messages": [{"role": "user", "content": "hi"}], **SHAPES[shape]}
    listed, never = unlisted(), unlisted()
    run(LiteLLMEngine(retries=0), request, Upstream(model=listed, api_base=upstream, timeout_s=10))
    through_engine = last_seen(upstream)
    direct(never, request, upstream)
    alone = last_seen(upstream)
    assert through_engine["model"] == listed.removeprefix("openai/")
    assert alone["model"] == never.removeprefix("openai/")
    assert {**through_engine, "model": None} == {**alone, "model": None}
