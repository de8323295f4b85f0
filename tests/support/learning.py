"""What the learning tests share: the admin token, the support agent's shadow stream (its tools, its
requests and how its large model answers them), the `learn` CLI, checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai

from tests.support.clients import metric
from tests.support.policies import ROOMY
from tests.support.wait import eventually

TOKEN = "learn-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def cli(db_url: str, policies: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "SHADOWSWITCH_DB_URL": db_url}
    run = subprocess.run(
        [sys.executable, "-m", "shadowswitch.cli", "learn", *args, "--policies", str(policies), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def shadow_policy(task: str, replay: str, target: float = 0.9, certify: bool = False) -> dict[str, Any]:
    """A task type in shadow behind the replay upstream, learning, with the fast scorer. These
    tests judge what is learned, so promotion is the utility test's (`certify: false`);
    certified serving has tests of its own (test_certified_serving.py)."""
    return {
        "task_type": task,
        "upstream": {"model": "openai/replay", "api_base": replay + "/v1", "timeout_s": 10},
        "rollout": {"mode": "shadow"},
        "engine": {
            **ROOMY,
            "scorer": "embedding",
            "target_agreement": target,
            "learn": True,
            "certify": certify,
        },
    }


def shadow_proxy(
    proxy: Any, local_engine: Any, task: str, replay: str, answers: dict[str, Any]
) -> tuple[str, openai.OpenAI]:
    """A proxy shadowing `task` with the real engine, learning only when asked, its upstream the
    replay told `answers` (text → the large model's answer); its URL and an agent's client."""
    httpx.post(replay + "/answers", json=answers).raise_for_status()
    url: str = proxy(
        shadow_policy(task, replay), local_factory=lambda: local_engine, admin_token=TOKEN, learn_interval_s=0
    )
    return url, openai.OpenAI(base_url=url + "/v1", api_key="x")


def ask(client: Any, task: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> str:
    """Send one request as an agent of `task` with the openai SDK; the decision's id."""
    raw = client.chat.completions.with_raw_response.create(
        model=f"{task}-agent", messages=messages, tools=tools, extra_headers={"X-Shadowswitch-Task": task}
    )
    return str(raw.headers["x-shadowswitch-decision-id"])


def serve_all(proxy: Any, url: str, task: str, version: int = 1) -> Any:
    """Every request of `task` to the engine (canary 100%), once this replica decides with
    `version`: its copy of the served states."""
    change = {"mode": "canary", "percent": 100}
    httpx.put(f"{url}/v1/shadowswitch/rollouts/{task}", json=change, headers=AUTH).raise_for_status()
    served = proxy.app(url).state.shadowswitch.learning.memories  # this replica's copy, polled
    eventually(lambda: getattr(served.get(task), "version", None) == version, timeout_s=10)
    return served


def decision(url: str, decision_id: str) -> dict[str, Any]:
    """The proxy's record of a decision."""
    body: dict[str, Any] = httpx.get(f"{url}/v1/shadowswitch/decisions/{decision_id}", headers=AUTH).json()
    return body


def serves(url: str, task: str, version: int) -> bool:
    """Does this replica decide with `version` yet? `GET /learning` reads the database, which says
    a promotion at once; the replica loads the state on its next poll (`served.POLL_S`)."""
    return (metric(url, "shadowswitch_learned_version", task_type=task) or 0) == version


def has_pairs(learning: Any, n: int) -> bool:
    return bool(learning()["pairs"] == n)


def agrees(decision: dict[str, Any], want: dict[str, Any]) -> bool:
    if decision["abstain_reason"]:
        return False
    if "content" in want:
        return bool(decision["chosen"] == "__no_tool__")
    return bool(decision["chosen"] == want["name"] and decision["arguments"] == want["arguments"])


def tool(name: str, description: str, priority: bool = False) -> dict[str, Any]:
    properties: dict[str, Any] = {"order_id": {"type": "string", "description": "Order id like AB123456"}}
    if priority:
        properties["priority"] = {"type": "string", "enum": ["normal", "urgent"]}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": ["order_id"]},
        },
    }


TOOLS = [
    tool("lookup_order", "Look up the status of an order"),
    tool("escalate_order", "Hand an order over to a human agent", priority=True),
    tool("refund_order", "Refund an order"),
]
# The agent's own conventions, which the tools' descriptions do not tell: an angry customer is
# escalated (always "urgent"), a question about an order is looked up, and refunds are refused in
# text, never with the refund tool.
KINDS = {
    "escalate": [
        "This is ridiculous, order {id} still has not arrived!",
        "I am furious, where on earth is {id}?",
        "Unacceptable. {id} was promised last week and nothing came.",
        "I have waited forever for {id}, this is a disgrace!",
        "Worst service ever, my order {id} is lost again!",
        "Seriously?! {id} is late for the third time!",
    ],
    "lookup": [
        "where is my order {id}",
        "has {id} shipped yet?",
        "can you check the status of {id}",
        "when will order {id} arrive?",
        "what is the delivery status for {id}",
        "is {id} on its way?",
    ],
    "refuse": [
        "please refund order {id}",
        "I want my money back for {id}",
        "can you refund {id} for me?",
        "refund {id} now please",
        "give me a refund on order {id}",
        "I would like a refund for {id}",
    ],
}


def expected(kind: str, order: str) -> dict[str, Any]:
    if kind == "escalate":
        return {"name": "escalate_order", "arguments": {"order_id": order, "priority": "urgent"}}
    if kind == "lookup":
        return {"name": "lookup_order", "arguments": {"order_id": order}}
    return {"content": "I am sorry, refunds are handled by our shop directly."}


def requests(templates: range, orders: range) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for n in orders:
        for kind, texts in KINDS.items():
            order = f"AB{100000 + n * 7919 % 900000:06d}"
            out.append((texts[templates[n % len(templates)]].format(id=order), expected(kind, order)))
    return out


def policy(replay: str) -> dict[str, Any]:
    """The support agent's task type in shadow, learning."""
    return shadow_policy("support", replay)


def ask_support(client: openai.OpenAI, text: str) -> str:
    """One request of the support agent's stream; the decision's id."""
    return ask(client, "support", TOOLS, [{"role": "user", "content": text}])


def status(url: str, task: str) -> dict[str, Any]:
    """`GET /learning/{task}`: the pairs collected, the served version, its figures."""
    body: dict[str, Any] = httpx.get(f"{url}/v1/shadowswitch/learning/{task}", headers=AUTH).json()
    return body


def send_paced(url: str, task: str, send: Callable[[str], str], texts: Sequence[str]) -> list[str]:
    """Send the texts 8 at a time, each batch once its pairs are stored (shadow runs beyond the
    queue's room are skipped); the decision ids."""
    ids: list[str] = []
    for start in range(0, len(texts), 8):
        ids += [send(text) for text in texts[start : start + 8]]
        eventually(partial(has_pairs, partial(status, url, task), len(ids)), timeout_s=180, interval_s=0.3)
    return ids
