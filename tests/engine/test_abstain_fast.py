"""The engine abstains before filling arguments when the ranking alone decides it: a step
after a tool result that ranks the tool just called first again, or a confidence below the
policy's floor. The fallback then costs the generative answer and little more."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shadowswitch.engines.local.conversation import called_this_turn
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.engine_requests import FLIGHT, TOOLS, WEATHER, ask
from tests.support.policies import ROOMY

POLICY = Policy(task_type="t", engine={**ROOMY, "min_confidence": 0.0, "min_margin": 0.0})
ERRORS = Policy(task_type="t").feedback.tool_error_regex


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"id": call_id, "type": "function", "function": function}


def after_call(text: str, name: str, result: str, **arguments: Any) -> list[dict[str, Any]]:
    """A user turn, the assistant's call for it, and the call's result."""
    return [
        {"role": "user", "content": text},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", name, **arguments)]},
        {"role": "tool", "tool_call_id": "c1", "content": result},
    ]


def view(messages: list[dict[str, Any]], tools: list[dict[str, Any]] = TOOLS) -> ChatView:
    return ChatView.parse({"model": "m", "messages": messages, "tools": tools})


def test_calls_count_for_the_last_user_turn_only_and_errors_do_not() -> None:
    done = after_call("Weather in Paris?", "get_weather", '{"sky": "sunny"}', city="Paris")
    assert called_this_turn(view(done), ERRORS) == {"get_weather"}
    # a new user turn: the earlier call answered the earlier turn
    assert called_this_turn(view([*done, {"role": "user", "content": "And Rome?"}]), ERRORS) == set()
    failed = after_call("Weather in Paris?", "get_weather", "Error: city not found", city="Paris")
    assert called_this_turn(view(failed), ERRORS) == set()  # an error result may be retried
    no_result = done[:2]
    assert called_this_turn(view(no_result), ERRORS) == {"get_weather"}


def test_a_legacy_function_call_counts_by_its_name() -> None:
    messages = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "function_call": {"name": "get_weather", "arguments": "{}"}},
        {"role": "function", "name": "get_weather", "content": "sunny"},
    ]
    raw = {"model": "m", "messages": messages, "functions": [WEATHER["function"]]}
    assert called_this_turn(ChatView.parse(raw), ERRORS) == {"get_weather"}


@pytest.mark.slow
async def test_the_step_after_a_result_abstains_before_filling(engine: Any, monkeypatch: Any) -> None:
    filled: list[str] = []
    real = engine.engine._fill

    def spy(best: Any, *args: Any, **kwargs: Any) -> Any:
        filled.append(best.id)
        return real(best, *args, **kwargs)

    monkeypatch.setattr(engine.engine, "_fill", spy)
    text = "What's the weather like in Paris right now?"
    first = await engine.decide(ask(text, TOOLS), POLICY)
    assert first.name == "get_weather" and filled == ["get_weather"]
    hits = engine.engine.query_vectors.hits
    messages = after_call(text, "get_weather", '{"sky": "sunny"}', **first.arguments)
    again = await engine.decide({"messages": messages, "tools": TOOLS}, POLICY)
    assert again.name == "get_weather" and again.arguments is None
    assert again.abstain_reason == "repeated_call: get_weather was already called for this user turn"
    assert filled == ["get_weather"]  # no second fill
    assert engine.engine.query_vectors.hits == hits + 1  # the turn's vector, not a new encoder pass
    assert again.trace.candidates[0].id == "get_weather" and again.confidence == first.confidence


@pytest.mark.slow
async def test_after_an_error_result_the_call_is_filled_again(engine: Any) -> None:
    text = "What's the weather like in Paris right now?"
    # The agent's earlier call was broken (not JSON): the engine may make it properly.
    messages = after_call(text, "get_weather", "error: the arguments are not valid JSON", city="Pa")
    choice = await engine.decide({"messages": messages, "tools": TOOLS}, POLICY)
    assert choice.name == "get_weather" and choice.abstain_reason is None
    assert choice.arguments and choice.arguments["city"] == "Paris"


@pytest.mark.slow
async def test_low_confidence_abstains_without_arguments(engine: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(engine.engine, "_fill", lambda *a, **k: pytest.fail("filled a low-confidence choice"))
    strict = Policy(task_type="t", engine={**ROOMY, "min_confidence": 1.0})
    choice = await engine.decide(ask("Fly me from Oslo to Rome", [FLIGHT, WEATHER]), strict)
    assert choice.abstain_reason and choice.abstain_reason.startswith("low_confidence")
    assert choice.name == "book_flight" and choice.arguments is None and choice.trace.candidates
