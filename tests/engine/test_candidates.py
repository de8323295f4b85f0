"""Candidate building and rule filters: pure, no model."""

from __future__ import annotations

from typing import Any

import pytest

from shadowswitch.engines.local.choice import candidates
from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID, CandidateSet, humanise
from shadowswitch.errors import BadRequest
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.engine_requests import FLIGHT, TOOLS, WEATHER, ask
from tests.support.policies import ROOMY

POLICY = Policy(task_type="t")


def build_candidates(request: dict[str, Any], policy: Policy) -> CandidateSet:
    return candidates.build_candidates(ChatView.parse(request), policy)


def ids(request: dict, policy: Policy = POLICY) -> list[str]:
    return [c.id for c in build_candidates(request, policy).candidates]


def test_auto_offers_every_tool_and_no_tool() -> None:
    assert ids(ask("hi", TOOLS)) == [
        "get_weather",
        "book_flight",
        "triangle_area",
        "send_email",
        NO_TOOL_ID,
    ]


def test_required_has_no_no_tool() -> None:
    assert NO_TOOL_ID not in ids(ask("hi", TOOLS, tool_choice="required"))


def test_allow_no_tool_false() -> None:
    policy = Policy(task_type="t", engine={**ROOMY, "allow_no_tool": False})
    assert NO_TOOL_ID not in ids(ask("hi", TOOLS), policy)


def test_none_forces_no_tool() -> None:
    cset = build_candidates(ask("hi", TOOLS, tool_choice="none"), POLICY)
    assert cset.forced is not None and cset.forced.id == NO_TOOL_ID


def test_named_tool_is_the_only_candidate() -> None:
    choice = {"type": "function", "function": {"name": "book_flight"}}
    assert ids(ask("hi", TOOLS, tool_choice=choice)) == ["book_flight"]


def test_named_tool_not_offered_abstains() -> None:
    choice = {"type": "function", "function": {"name": "launch_rocket"}}
    cset = build_candidates(ask("hi", TOOLS, tool_choice=choice), POLICY)
    assert cset.abstain_reason and not cset.candidates


def test_repeated_parameterless_call_is_filtered() -> None:
    ping = {"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}}
    history = [
        {"role": "user", "content": "ping it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "1", "type": "function", "function": {"name": "ping", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "1", "content": "pong"},
        {"role": "user", "content": "again"},
    ]
    cset = build_candidates({"messages": history, "tools": [ping, WEATHER]}, POLICY)
    assert [c.id for c in cset.candidates] == ["get_weather", NO_TOOL_ID]
    assert cset.filtered == [("ping", "repeated_call")]


def test_all_filtered_without_no_tool_abstains() -> None:
    cset = build_candidates(ask("hi", [], tool_choice="required"), POLICY)
    assert cset.abstain_reason and not cset.candidates


def test_a_tool_offered_twice_is_one_candidate() -> None:
    assert ids(ask("hi", [FLIGHT, FLIGHT])) == ["book_flight", NO_TOOL_ID]


def test_malformed_tools_never_reach_the_engine() -> None:
    for tools in ([{"type": "function"}], [{"function": {"name": ""}}]):
        with pytest.raises(BadRequest, match=r"tools\.0\.function"):
            ChatView.parse(ask("hi", tools))


def test_actions_and_schema_enum() -> None:
    policy = Policy(
        task_type="t",
        engine={**ROOMY, "candidates": "actions"},
        actions=[{"id": "a", "description": "do a", "output": "x"}],
    )
    assert ids(ask("hi"), policy) == ["a"]
    fmt = {
        "type": "json_schema",
        "json_schema": {
            "name": "r",
            "schema": {
                "type": "object",
                "properties": {"n": {"type": "string"}, "label": {"enum": ["spam", "ham"]}},
            },
        },
    }
    policy = Policy(task_type="t", engine={**ROOMY, "candidates": "schema_enum"})
    assert ids(ask("hi", response_format=fmt), policy) == ["spam", "ham"]


def test_humanise() -> None:
    assert humanise("getWeather_v2.fetch") == "get weather v2 fetch"
