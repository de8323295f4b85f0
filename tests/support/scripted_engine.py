"""A proxy whose local path is a scripted stand-in (the `LocalEngine` Protocol), so that a test
decides exactly what the local path answers; everything else is real."""

from __future__ import annotations

from typing import Any

import httpx

from shadowswitch.engines.base import Choice
from shadowswitch.policy.models import Policy
from tests.support.clients import client
from tests.support.policies import TOOLS, travel
from tests.support.wait import eventually


class ScriptedEngine:
    """Answers every request with the same choice (a tool the request offers, unless told otherwise)."""

    ready = True

    def __init__(self, name: str = "book_hotel", kind: str = "tool") -> None:
        self.name, self.kind = name, kind

    async def decide(self, request: dict[str, Any], policy: Policy) -> Choice:
        if self.kind == "no_tool":
            return Choice(kind="no_tool", name=None, content="Done.", confidence=0.9, margin=0.5)
        arguments = {"city": "Paris", "nights": 2}
        return Choice(kind="tool", name=self.name, arguments=arguments, confidence=0.9, margin=0.5)


def start(proxy: Any, engine: ScriptedEngine | None = None, **breaker: Any) -> str:
    """A proxy serving the travel policy with `engine` (by default a ScriptedEngine), once ready."""
    url: str = proxy(travel(**breaker), local_factory=lambda: engine or ScriptedEngine())
    eventually(lambda: httpx.get(url + "/readyz").status_code == 200)
    return url


def turn(url: str, messages: list[dict[str, Any]], session: str = "s-1") -> Any:
    return client(url).chat.completions.with_raw_response.create(
        model="travel-agent-step",
        messages=messages,
        tools=TOOLS,
        extra_headers={"X-Shadowswitch-Session": session},
    )


def local_decisions(url: str, n: int) -> list[str]:
    """`n` requests in fresh sessions, each answered on the local path; their decision ids."""
    ids = []
    for i in range(n):
        raw = turn(url, [{"role": "user", "content": f"book a hotel in Paris ({i})"}], session=f"k{i}")
        assert raw.headers["x-shadowswitch-path"] == "local"
        ids.append(raw.headers["x-shadowswitch-decision-id"])
    return ids
