"""Every accepted spelling of the same request is handled alike, locally and generatively.

`tools` or the legacy `functions`, and each form of `tool_choice`/`function_call`, go through
the real proxy with the real openai SDK: the same task type, path, choice, arguments and
verdict, answered in the spelling the agent used.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.clients import client, decision
from tests.support.local_path import WEATHER
from tests.support.policies import TOOLS

pytestmark = pytest.mark.slow

FUNCTIONS = [t["function"] for t in [*TOOLS, WEATHER]]
NAMED = {"type": "function", "function": {"name": "get_weather"}}
SHAPES: dict[str, dict[str, Any]] = {
    "tools": {"tools": [*TOOLS, WEATHER]},
    "tools, auto": {"tools": [*TOOLS, WEATHER], "tool_choice": "auto"},
    "tools, required": {"tools": [*TOOLS, WEATHER], "tool_choice": "required"},
    "tools, named": {"tools": [*TOOLS, WEATHER], "tool_choice": NAMED},
    "functions": {"functions": FUNCTIONS},
    "functions, auto": {"functions": FUNCTIONS, "function_call": "auto"},
    "functions, named": {"functions": FUNCTIONS, "function_call": {"name": "get_weather"}},
}


def weather_policy(mode: str) -> dict[str, Any]:
    """Claimed by its tools (no task header), so classification reads the offered tools too."""
    return {
        "task_type": "weather",
        "match": {"tools_include": ["get_weather"]},
        "rollout": {"mode": mode, "percent": 100},
        "engine": {"min_confidence": 0.0, "min_margin": 0.0},
    }


def call_of(message: Any) -> tuple[str, dict[str, Any], str]:
    """(name, arguments, spelling) of the one call an answer makes."""
    if message.tool_calls:
        function, spelling = message.tool_calls[0].function, "tools"
    else:
        function, spelling = message.function_call, "functions"
    return function.name, json.loads(function.arguments), spelling


def ask(url: str, shape: dict[str, Any], stream: bool = False) -> Any:
    return client(url).chat.completions.with_raw_response.create(
        model="assistant",
        messages=[{"role": "user", "content": "What's the weather like in Lisbon today?"}],
        stream=stream,
        **shape,
    )


@pytest.mark.parametrize("mode, path", [("canary", "local"), ("off", "generative")])
def test_each_spelling_is_handled_alike(proxy: Any, local_engine: Any, mode: str, path: str) -> None:
    url = proxy(weather_policy(mode), local_factory=lambda: local_engine)
    seen = {}
    for label, shape in SHAPES.items():
        raw = ask(url, shape)
        assert raw.headers["x-shadowswitch-task"] == "weather", label
        assert raw.headers["x-shadowswitch-path"] == path, label
        name, arguments, spelling = call_of(raw.parse().choices[0].message)
        assert spelling == ("functions" if "functions" in shape else "tools"), label
        record = decision(url, raw.headers["x-shadowswitch-decision-id"])
        assert record["valid"] is True and record["chosen"] == name, (label, record)
        seen[label] = (name, arguments)
    assert len(set(map(json.dumps, seen.values()))) == 1, seen
    assert next(iter(seen.values()))[0] == "get_weather"


def test_a_streamed_legacy_answer_keeps_its_spelling(proxy: Any, local_engine: Any) -> None:
    url = proxy(weather_policy("canary"), local_factory=lambda: local_engine)
    raw = ask(url, SHAPES["functions"], stream=True)
    assert raw.headers["x-shadowswitch-path"] == "local"
    parts = [c.choices[0].delta.function_call for c in raw.parse() if c.choices]
    name = "".join(p.name or "" for p in parts if p)
    arguments = json.loads("".join(p.arguments or "" for p in parts if p))
    assert name == "get_weather" and arguments["city"] == "Lisbon"
