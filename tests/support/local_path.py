"""Requests for a proxy whose local path is the real embedded engine."""

from __future__ import annotations

from typing import Any

from tests.support.clients import client, decision
from tests.support.policies import TOOLS
from tests.support.wait import eventually

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather forecast for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
ALL_TOOLS = [*TOOLS, WEATHER]


def policy(**engine: Any) -> dict[str, Any]:
    """Every request on the local path (canary 100 %), whatever its confidence unless `engine` says."""
    return {
        "task_type": "pick_tool",
        "rollout": {"mode": "canary", "percent": 100, "compare_percent": engine.pop("compare", 0)},
        "engine": {"min_confidence": 0.0, "min_margin": 0.0, **engine},
    }


def ask(url: str, text: str, **extra: Any) -> Any:
    return client(url).chat.completions.with_raw_response.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": text}],
        tools=extra.pop("tools", ALL_TOOLS),
        extra_headers={"X-Shadowswitch-Task": "pick_tool", "X-Shadowswitch-Session": "s1"},
        **extra,
    )


def wait_for(url: str, decision_id: str, field: str, timeout_s: float = 60) -> dict[str, Any]:
    """The decision record once `field` is filled in (a background comparison, say)."""

    def filled() -> dict[str, Any]:
        record = decision(url, decision_id)
        return record if record.get(field) is not None else {}

    found = eventually(
        filled, timeout_s=timeout_s, interval_s=0.2, what=f"decision {decision_id} gets {field}"
    )
    assert found is not None
    return found
