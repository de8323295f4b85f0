"""Learning end to end: the real proxy with the real embedded models, a replay upstream answering
as the agent's large model does, the openai SDK as client, the CLI in a subprocess."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.support.learning import AUTH, TOKEN, agrees, cli, has_pairs, shadow_policy
from tests.support.learning import ask as learning_ask
from tests.support.wait import eventually


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


def ask(client: openai.OpenAI, text: str) -> str:
    return learning_ask(client, "support", TOOLS, [{"role": "user", "content": text}])


# The store's PostgreSQL side is tested in test_learning_state.py; this one loads the models.
@pytest.mark.one_backend
def test_shadow_pairs_teach_the_local_choice(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    train = requests(range(0, 4), range(16))  # 48 pairs, four phrasings of each kind
    test = requests(range(0, 4), range(101, 104))  # requests like them: the same phrasings, other orders
    httpx.post(replay + "/answers", json={text: answer for text, answer in train + test}).raise_for_status()
    url = proxy(
        shadow_policy("support", replay),
        local_factory=lambda: local_engine,
        admin_token=TOKEN,
        learn_interval_s=0,
    )
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")

    def learning() -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(f"{url}/v1/shadowswitch/learning/support", headers=AUTH).json()
        return body

    ids: list[str] = []
    for start in range(0, len(train), 8):  # paced: shadow runs beyond the queue's room are skipped
        ids += [ask(client, text) for text, _ in train[start : start + 8]]
        eventually(partial(has_pairs, learning, len(ids)), timeout_s=180, interval_s=0.3)
    before = learning()
    assert before["served_version"] == 0 and before["thresholds"]["source"] == "policy"
    assert (before["recent"]["agreement"] or 0) * before["recent"]["coverage"] < 0.5

    policies = tmp_path / "policies0"
    assert cli(db_url, policies, "support", "--dry-run")["status"] == "judged"
    learned = cli(db_url, policies, "support")
    assert learned["status"] == "promoted", learned
    audit = httpx.get(f"{url}/v1/shadowswitch/audit?task=support", headers=AUTH).json()
    assert audit[0]["kind"] == "learn_promote" and "evaluation" in json.loads(audit[0]["reason"])

    change = {"mode": "canary", "percent": 100}
    httpx.put(f"{url}/v1/shadowswitch/rollouts/support", json=change, headers=AUTH).raise_for_status()
    eventually(lambda: learning()["served_version"] == 1, timeout_s=180, interval_s=0.3)
    served = proxy.app(url).state.shadowswitch.learning.memories  # this replica's copy, polled
    eventually(lambda: getattr(served.get("support"), "version", None) == 1, timeout_s=10)
    decisions = []
    for text, want in test:
        decision = httpx.get(f"{url}/v1/shadowswitch/decisions/{ask(client, text)}", headers=AUTH).json()
        decisions.append((decision, want))
    agreed = [agrees(d, w) for d, w in decisions]
    assert sum(agreed) >= len(test) - 2, decisions
    refused = [d for d, w in decisions if "content" in w]
    assert any(d["chosen"] == "__no_tool__" for d in refused)  # no-tool exemplars: no refund tool
    escalated = [d for d, w in decisions if w.get("name") == "escalate_order" and agrees(d, w)]
    assert escalated and escalated[0]["argument_sources"]["priority"]["source"] == "learned"

    after = learning()
    assert after["served_version"] == 1 and after["curve"]
    feedback = {"decision_id": ids[0], "success": False, "reason": "wrong order"}
    httpx.post(f"{url}/v1/shadowswitch/feedback", json=feedback).raise_for_status()
    assert learning()["excluded"] == 1

    assert cli(db_url, policies, "rollback", "support")["served_version"] == 0
    eventually(lambda: learning()["served_version"] == 0, timeout_s=180, interval_s=0.3)
