"""No gap at the trip point: concurrent failing requests trip the breaker after exactly N failures.

Twelve requests arrive together on a task type whose (scripted) local engine answers with a tool
that was not offered. Each local failure is counted before its response leaves, one at a time,
so exactly `consecutive_failures` of them are local failures; every other request is answered
generatively, none locally, and none counted.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from shadowswitch.proxy.pipeline import BREAKER_OPENED
from tests.support.clients import TASK, decision
from tests.support.policies import TOOLS
from tests.support.scripted_engine import ScriptedEngine, start

CONCURRENT = 12
THRESHOLD = 3


async def fire(url: str) -> list[httpx.Response]:
    body = {
        "model": "travel-agent-step",
        "messages": [{"role": "user", "content": "book a hotel in Paris for two nights"}],
        "tools": TOOLS,
    }
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        requests = [
            client.post("/v1/chat/completions", json=body, headers={"X-Shadowswitch-Session": f"s{i}"})
            for i in range(CONCURRENT)
        ]
        return list(await asyncio.gather(*requests))


def test_concurrent_failures_trip_after_exactly_the_threshold(proxy: Any) -> None:
    url = start(proxy, ScriptedEngine(name="launch_rocket"), consecutive_failures=THRESHOLD)
    responses = asyncio.run(fire(url))
    assert all(r.status_code == 200 for r in responses)
    records = [decision(url, r.headers["x-shadowswitch-decision-id"]) for r in responses]
    assert not [r for r in records if r["path"] == "local"]
    failed = [r for r in records if r["path"] == "fallback" and r["abstain_reason"] is None]
    assert len(failed) == THRESHOLD, [(r["path"], r["abstain_reason"]) for r in records]
    assert all(
        r["path"] == "generative" or r["abstain_reason"] == BREAKER_OPENED for r in records if r not in failed
    )
    (trip,) = [
        e
        for e in httpx.get(f"{url}/v1/shadowswitch/audit", params={"task": TASK}).json()
        if e["kind"] == "trip"
    ]
    assert sorted(trip["decision_ids"]) == sorted(r["id"] for r in failed)
    (rollout,) = [r for r in httpx.get(f"{url}/v1/shadowswitch/rollouts").json() if r["task_type"] == TASK]
    assert rollout["breaker"]["state"] == "open"
