"""Talking to a running proxy as its users do: the openai SDK, the decision record, /metrics."""

from __future__ import annotations

from typing import Any

import httpx
import openai

TASK = "pick_tool"  # the travel policies' task type (tests.support.policies)


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0)


def decision(url: str, decision_id: str) -> dict[str, Any]:
    response = httpx.get(f"{url}/v1/shadowswitch/decisions/{decision_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def rollout(url: str, task: str = TASK) -> dict[str, Any]:
    return dict(httpx.get(f"{url}/v1/shadowswitch/rollouts/{task}").json())


def metric(url: str, name: str, **labels: str) -> float | None:
    """One sample of /metrics: this replica's live, in-memory view."""
    wanted = name + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "} "
    for line in httpx.get(url + "/metrics").text.splitlines():
        if line.startswith(wanted):
            return float(line.rsplit(" ", 1)[1])
    return None


def breaker_is(url: str, state: str, task: str = TASK) -> bool:
    return metric(url, "shadowswitch_breaker_state", task_type=task, state=state) == 1.0


def feedback(url: str, decision_id: str, success: bool) -> httpx.Response:
    body = {"decision_id": decision_id, "success": success, "reason": "test"}
    return httpx.post(f"{url}/v1/shadowswitch/feedback", json=body)
