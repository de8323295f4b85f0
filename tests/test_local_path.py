"""The local engine wired into the proxy: real embedded models, the real openai SDK, a real upstream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import jsonschema
import openai
import pytest

from tests.support.clients import client, decision
from tests.support.local_path import ALL_TOOLS, WEATHER, ask, policy, wait_for

pytestmark = pytest.mark.slow


def assert_valid_call(tool: dict[str, Any], arguments: dict[str, Any]) -> None:
    jsonschema.validate(arguments, tool["function"]["parameters"])


def test_canary_answers_locally_with_a_valid_tool_call(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    raw = ask(url, "What's the weather like in Lisbon today?")
    assert raw.headers["x-shadowswitch-path"] == "local"
    call = raw.parse().choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert_valid_call(WEATHER, json.loads(call.function.arguments))
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["path"] == "local" and record["valid"] is True
    assert record["chosen"] == "get_weather"
    assert {c["id"] for c in record["candidates"]} >= {"get_weather", "book_hotel"}
    assert 0 < record["confidence"] <= 1
    assert set(record["timings_ms"]) >= {"candidates", "scoring", "arguments"}


def test_local_answer_streams_like_an_upstream(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    stream = client(url).chat.completions.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": "Book me a hotel in Rome for 3 nights"}],
        tools=ALL_TOOLS,
        stream=True,
        extra_headers={"X-Shadowswitch-Task": "pick_tool"},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    name = "".join(
        (p.function.name or "") for c in chunks for p in (c.choices[0].delta.tool_calls or []) if p.function
    )
    arguments = "".join(
        (p.function.arguments or "")
        for c in chunks
        for p in (c.choices[0].delta.tool_calls or [])
        if p.function
    )
    assert name == "book_hotel"
    assert json.loads(arguments)["nights"] == 3


def test_low_confidence_falls_back_and_says_why(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(min_confidence=1.0), local_factory=lambda: local_engine)
    raw = ask(url, "Search flights from Oslo to Rome")
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    assert raw.parse().choices[0].message.tool_calls  # the upstream answered
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["abstain_reason"] and "confidence" in record["abstain_reason"]


def test_shadow_mode_serves_generative_and_stores_the_local_choice(proxy: Any, local_engine: Any) -> None:
    shadow = {**policy(), "rollout": {"mode": "shadow"}}
    url = proxy(shadow, local_factory=lambda: local_engine)
    raw = ask(url, "Search flights from Oslo to Rome")
    assert raw.headers["x-shadowswitch-path"] == "generative"
    record = wait_for(url, raw.headers["x-shadowswitch-decision-id"], "shadow")
    assert record["shadow"]["path"] == "local"
    assert record["shadow"]["name"] == "search_flights" and record["shadow"]["valid"] is True
    assert record["agreement"] is False  # the scripted upstream fills arguments with "x"


def test_canary_comparison_runs_generative_in_the_background(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(compare=100), local_factory=lambda: local_engine)
    raw = ask(url, "Book a hotel in Paris for 2 nights")
    assert raw.headers["x-shadowswitch-path"] == "local"
    record = wait_for(url, raw.headers["x-shadowswitch-decision-id"], "shadow")
    assert record["shadow"]["path"] == "generative"
    assert record["shadow"]["message"]["tool_calls"][0]["function"]["name"] == "book_hotel"
    assert record["shadow"]["valid"] is True and record["shadow"]["completion_tokens"] == 7


def test_generative_arguments_force_the_chosen_tool(proxy: Any, local_engine: Any, upstream: str) -> None:
    url = proxy(policy(arguments="generative"), local_factory=lambda: local_engine)
    raw = ask(url, "What's the weather like in Lisbon today?")
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    assert raw.parse().choices[0].message.tool_calls[0].function.name == "get_weather"
    seen = httpx.get(upstream.removesuffix("/v1") + "/requests").json()
    assert seen[-1]["body"]["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}


def test_forced_tool_choice_is_respected(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    forced = {"type": "function", "function": {"name": "book_hotel"}}
    raw = ask(url, "What's the weather like in Lisbon today?", tool_choice=forced)
    assert raw.parse().choices[0].message.tool_calls[0].function.name == "book_hotel"


def test_raw_json_agent_gets_its_action_template(proxy: Any, local_engine: Any) -> None:
    actions = {
        "task_type": "support",
        "rollout": {"mode": "canary", "percent": 100},
        "engine": {"candidates": "actions", "min_confidence": 0.0, "min_margin": 0.0},
        "actions": [
            {
                "id": "order_status",
                "description": "Look up where the user's order is",
                "examples": ["where is my order", "has my package shipped yet"],
                "output": {"action": "order_status", "action_input": {"order_id": "{order_id}"}},
                "slots": {"order_id": {"type": "string", "pattern": "[A-Z]{2}\\d{6}"}},
            },
            {
                "id": "refund",
                "description": "Start a refund for a returned item",
                "examples": ["I want my money back", "refund my purchase"],
                "output": {"action": "refund", "action_input": {"order_id": "{order_id}"}},
                "slots": {"order_id": {"type": "string", "pattern": "[A-Z]{2}\\d{6}"}},
            },
            {
                "id": "final_answer",
                "description": "Answer the user's general question directly",
                "examples": ["what are your opening hours", "do you ship abroad"],
                "output": {"action": "Final Answer", "action_input": "{text}"},
                "fill": "generative",
            },
        ],
    }
    url = proxy(actions, local_factory=lambda: local_engine)
    raw = client(url).chat.completions.with_raw_response.create(
        model="support-bot",
        messages=[
            {"role": "system", "content": 'Reply with JSON {"action": ..., "action_input": ...}'},
            {"role": "user", "content": "Where is my order AB123456? It has not arrived."},
        ],
        extra_headers={"X-Shadowswitch-Task": "support"},
    )
    assert raw.headers["x-shadowswitch-path"] == "local"
    content = json.loads(raw.parse().choices[0].message.content)
    assert content == {"action": "order_status", "action_input": {"order_id": "AB123456"}}

    # the choice stays local, the upstream writes the text, the agent gets its own format
    raw = client(url).chat.completions.with_raw_response.create(
        model="support-bot",
        messages=[{"role": "user", "content": "What are your opening hours on Sunday?"}],
        extra_headers={"X-Shadowswitch-Task": "support"},
    )
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    content = json.loads(raw.parse().choices[0].message.content)
    assert content == {
        "action": "Final Answer",
        "action_input": "echo: What are your opening hours on Sunday?",
    }
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["chosen"] == "final_answer" and record["valid"] is True


def test_many_parallel_local_requests_are_all_answered(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    asks = {
        "What's the weather like in Lisbon today?": "get_weather",
        "Book me a hotel in Rome for 3 nights": "book_hotel",
        "Find flights from Berlin to Madrid": "search_flights",
    }

    async def one(text: str) -> tuple[str, str, str]:
        async with openai.AsyncOpenAI(base_url=url + "/v1", api_key="x", max_retries=0) as aclient:
            raw = await aclient.chat.completions.with_raw_response.create(
                model="m",
                messages=[{"role": "user", "content": text}],
                tools=ALL_TOOLS,
                extra_headers={"X-Shadowswitch-Task": "pick_tool"},
            )
            name = raw.parse().choices[0].message.tool_calls[0].function.name
            return text, name, raw.headers["x-shadowswitch-path"]

    async def all_of() -> list[tuple[str, str, str]]:
        return await asyncio.gather(*(one(t) for t in list(asks) * 6))

    for text, name, path in asyncio.run(all_of()):
        assert path == "local"
        assert name == asks[text], text


def test_a_value_not_in_the_conversation_goes_to_the_upstream(proxy: Any, local_engine: Any) -> None:
    """book_hotel needs a city the user did not give: the engine does not make one up."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    raw = ask(url, "Book me a hotel room for 2 nights, please", tool_choice="required")
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    call = raw.parse().choices[0].message.tool_calls[0]
    assert call.function.name == "book_hotel" and json.loads(call.function.arguments)["city"] == "x"
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["abstain_reason"] == "missing_value:city"
    assert record["chosen"] == "book_hotel" and record["path"] == "fallback"


def test_the_decision_record_says_where_each_argument_comes_from(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    text = "Book me a hotel in Rome for 3 nights"
    raw = ask(url, text)
    assert raw.headers["x-shadowswitch-path"] == "local"
    record = decision(url, raw.headers["x-shadowswitch-decision-id"])
    assert record["arguments"] == {"city": "Rome", "nights": 3}
    assert record["argument_sources"] == {
        "city": {"source": "text", "message": 0, "start": 19, "end": 23, "text": "Rome"},
        "nights": {"source": "text", "message": 0, "start": 28, "end": 29, "text": "3"},
    }


FIND_USER = {
    "type": "function",
    "function": {
        "name": "find_user",
        "description": "Search the directory for a user by name",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "the person's name"}},
            "required": ["query"],
        },
    },
}
UNLOCK = {
    "type": "function",
    "function": {
        "name": "unlock_account",
        "description": "Unlock a user's account that is locked out",
        "parameters": {
            "type": "object",
            "properties": {"username": {"type": "string", "description": "the account's username"}},
            "required": ["username"],
        },
    },
}


def test_the_second_step_takes_the_id_the_tool_returned(proxy: Any, local_engine: Any) -> None:
    """An agent searched, then acts on the result: the value comes from the tool message, and
    its provenance points into it."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    found = json.dumps(
        {"query": "Dana Whitfield", "users": [{"username": "dwhitfield", "name": "Dana Whitfield"}]}
    )
    messages = [
        {
            "role": "user",
            "content": "Hi, this is Dana Whitfield, my account is locked out. Please unlock it.",
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "find_user", "arguments": json.dumps({"query": "Dana Whitfield"})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": found},
    ]
    raw = client(url).chat.completions.with_raw_response.create(
        model="helpdesk-step",
        messages=messages,  # type: ignore[arg-type]
        tools=[FIND_USER, UNLOCK],  # type: ignore[list-item]
        extra_headers={"X-Shadowswitch-Task": "pick_tool"},
    )
    assert raw.headers["x-shadowswitch-path"] == "local"
    call = raw.parse().choices[0].message.tool_calls[0]
    assert call.function.name == "unlock_account"
    assert json.loads(call.function.arguments) == {"username": "dwhitfield"}
    source = decision(url, raw.headers["x-shadowswitch-decision-id"])["argument_sources"]["username"]
    assert source["message"] == 2 and source["key"] == "username"
    assert found[source["start"] : source["end"]] == source["text"] == "dwhitfield"
