"""Certified serving end to end: the real proxy with the real embedded models, a replay upstream
answering as the agent's large model does, the openai SDK as client, the `learn` CLI.

An agent the engine has never seen goes to canary at once: nothing is served locally until a
region is certified on its pairs; then the certified region serves; when the agent's model
changes its answers, the monitor withdraws the certificate and the upstream answers again."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.support.learning import AUTH, TOKEN, cli, has_pairs, requests, serves, shadow_policy, status
from tests.support.learning import ask_support as ask
from tests.support.wait import eventually

PAIRS_WAIT_S = 180


def canary_policy(replay: str) -> dict[str, Any]:
    """The support agent in canary 100% from the start, every local answer compared, certified
    serving as the product's default has it."""
    policy = shadow_policy("support", replay)
    policy["rollout"] = {"mode": "canary", "percent": 100, "compare_percent": 100}
    policy["engine"]["certify"] = True
    return policy


def decision(url: str, decision_id: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{url}/v1/shadowswitch/decisions/{decision_id}", headers=AUTH).json()
    return body


def local_share(url: str, ids: list[str]) -> float:
    return sum(decision(url, i)["path"] == "local" for i in ids) / len(ids)


def audit_kinds(url: str) -> list[str]:
    events = httpx.get(f"{url}/v1/shadowswitch/audit?task=support", headers=AUTH).json()
    return [e["kind"] for e in events]


@pytest.mark.one_backend
def test_an_unseen_agent_is_served_locally_only_once_certified_and_withdrawn_when_it_changes(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    train = requests(range(0, 4), range(16))  # 48 requests, four phrasings of each kind
    test = requests(range(0, 4), range(101, 113))
    httpx.post(replay + "/answers", json={t: a for t, a in train + test}).raise_for_status()
    url = proxy(
        canary_policy(replay), local_factory=lambda: local_engine, admin_token=TOKEN, learn_interval_s=0
    )
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")
    learning = partial(status, url, "support")

    # No pairs: canary serves nothing locally, and says why; each answer becomes a pair.
    ids = []
    for start in range(0, len(train), 8):
        ids += [ask(client, text) for text, _ in train[start : start + 8]]
        eventually(partial(has_pairs, learning, len(ids)), timeout_s=PAIRS_WAIT_S, interval_s=0.3)
    first = [decision(url, i) for i in ids]
    assert all(d["path"] != "local" for d in first)
    assert all(
        (d["abstain_reason"] or "").startswith(("uncertified", "low_confidence", "small_margin"))
        for d in first
    )
    assert any((d["abstain_reason"] or "").startswith("uncertified") for d in first)

    # Learning certifies a region on those pairs; the replica serves inside it.
    policies = tmp_path / "policies0"
    learned = cli(db_url, policies, "support")
    assert learned["status"] == "promoted", learned["evaluation"]["why_not"]
    certificate = learned["evaluation"]["challenger"]
    assert certificate["threshold"] is not None and certificate["served"] > 0
    eventually(lambda: serves(url, "support", 1), timeout_s=PAIRS_WAIT_S)
    served = proxy.app(url).state.shadowswitch.learning.memories
    eventually(lambda: served.certified("support", 1) is not None, timeout_s=10)
    shown = learning()["versions"][-1]
    assert (
        shown["certificate"]["pairs"] == certificate["pairs"]
        and shown["certificate"]["status"] == "certified"
    )
    with httpx.Client(base_url=url) as browser:  # the dashboard says what the certificate rests on
        browser.post("/dashboard/login", data={"token": TOKEN})
        page = browser.get("/dashboard/support").text
    assert f"certified ≥ {certificate['threshold']}" in page and f"on {certificate['pairs']} pairs" in page
    half = len(test) // 2
    after = [ask(client, text) for text, _ in test[:half]]
    assert local_share(url, after) > 0.3

    # The agent's model is upgraded: it now answers every request in text. The compared local
    # answers disagree, the monitor withdraws the certificate, and the upstream answers again.
    changed = {t: {"content": "Our new assistant handles this differently."} for t, _ in train + test}
    httpx.post(replay + "/answers", json=changed).raise_for_status()

    def withdrawn() -> bool:
        ask(client, test[half][0])
        return "learn_withdraw" in audit_kinds(url)

    eventually(withdrawn, timeout_s=PAIRS_WAIT_S, interval_s=0.5)
    eventually(lambda: served.certified("support", 1) is None, timeout_s=10)
    later = [decision(url, ask(client, text)) for text, _ in test[half:]]
    assert all(d["path"] != "local" for d in later)
    assert any((d["abstain_reason"] or "").startswith("uncertified") for d in later)
    counted = httpx.get(f"{url}/metrics").text
    assert 'shadowswitch_certificates_withdrawn_total{task_type="support"} 1.0' in counted


@pytest.mark.one_backend
def test_a_poisoned_stream_never_certifies(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    """The upstream calls a tool at random with an order the conversation never names: no local
    call can agree, so no region is certified and canary keeps serving nothing locally."""
    stream = requests(range(0, 4), range(16))
    tools = ("lookup_order", "escalate_order")
    answers = {
        text: {"name": tools[i * 7 % 3 % 2], "arguments": {"order_id": f"ZZ{900000 - i:06d}"}}
        for i, (text, _) in enumerate(stream)
    }
    httpx.post(replay + "/answers", json=answers).raise_for_status()
    url = proxy(
        canary_policy(replay), local_factory=lambda: local_engine, admin_token=TOKEN, learn_interval_s=0
    )
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")
    ids: list[str] = []
    for start in range(0, len(stream), 8):
        ids += [ask(client, text) for text, _ in stream[start : start + 8]]
        eventually(partial(has_pairs, partial(status, url, "support"), len(ids)), timeout_s=PAIRS_WAIT_S)
    learned = cli(db_url, tmp_path / "policies0", "support")
    assert learned["status"] == "judged" and learned["certificate"]["threshold"] is None
    assert learned["evaluation"]["challenger"]["threshold"] is None
    later = [decision(url, ask(client, text)) for text, _ in stream[:8]]
    assert all(d["path"] != "local" for d in later)
    assert local_share(url, ids) == 0.0
    assert "learn_reject" in audit_kinds(url) and "learn_promote" not in audit_kinds(url)
