"""Policies the tests serve, and the tools their requests offer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.support.clients import TASK

# The tests share a loaded machine, where a decision can take seconds: the default time budget
# would turn the local answers they look at into abstentions. The budget's own tests set theirs.
TEST_TIME_BUDGET_MS = 60_000
ROOMY = {"time_budget_ms": TEST_TIME_BUDGET_MS}  # a policy's `engine` settings for such tests

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_flights",
            "description": "Search flights between two cities",
            "parameters": {
                "type": "object",
                "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}},
                "required": ["origin", "destination"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "book_hotel",
            "description": "Book a hotel room in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
                "required": ["city", "nights"],
            },
        },
    },
]
TRAVEL = {
    "task_type": "pick_tool",
    "match": {"tools_include": ["search_flights", "book_hotel"]},
    "rollout": {"mode": "off"},
}


def write_policies(directory: Path, upstream: str, *policies: dict[str, Any], certify: bool = False) -> Path:
    """A policies folder: `_defaults.yaml` naming the scripted upstream, then one file per policy.

    `certify` is off unless asked for: these tests serve the prior at once to test something else
    than certified serving (tests/test_certified_serving.py tests it, with the product's default)."""
    directory.mkdir(parents=True, exist_ok=True)
    upstream_of = {"model": "openai/scripted", "api_base": upstream, "timeout_s": 5}
    defaults: dict[str, Any] = {"upstream": upstream_of}
    defaults["engine"] = {**ROOMY, "certify": certify}
    (directory / "_defaults.yaml").write_text(yaml.safe_dump(defaults))
    for policy in policies:
        (directory / f"{policy['task_type']}.yaml").write_text(yaml.safe_dump(policy))
    return directory


def travel(**breaker: Any) -> dict[str, Any]:
    """The travel tools, all on the local path (canary 100 %), with a quick breaker."""
    return {
        "task_type": TASK,
        "match": {"tools_include": ["search_flights", "book_hotel"]},
        "rollout": {"mode": "canary", "percent": 100},
        "breaker": {"consecutive_failures": 3, "reprobe_after_s": 0, **breaker},
        "feedback": {"tool_error_regex": "(?i)error|not found"},
    }
