"""Two real `shadowswitch serve` replicas on real PostgreSQL learn from one shadow stream: a round
woken on both at once trains once, both serve the promoted version within seconds, and a rollback
through the CLI puts both back on the previous one. The real embedded models, a replay upstream
answering as the agent's large model does, the openai SDK as client."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from shadowswitch.store import db
from tests.support.clients import metric
from tests.support.learning import AUTH, TOKEN, agrees, has_pairs, policy, requests
from tests.support.learning import ask_support as ask
from tests.support.policies import write_policies
from tests.support.replicas import BIN, Replica
from tests.support.wait import eventually

SECONDS = 10.0  # every replica serves a new version within this (each polls its state every 1 s)
SETTINGS = {
    "SHADOWSWITCH_ADMIN_TOKEN": TOKEN,
    "SHADOWSWITCH_LEARN_INTERVAL_S": "3600",  # the learners wait; the test wakes them
}


@pytest.fixture
def pair(pg_url: str, replay: str, tmp_path: Path) -> Iterator[list[Replica]]:
    db.upgrade(pg_url)
    policies = write_policies(tmp_path / "policies", replay + "/v1", policy(replay))
    group = [Replica(f"r{i}", pg_url, policies, tmp_path, True, **SETTINGS) for i in range(2)]
    try:
        for replica in group:  # two loading the models at once on a busy machine: minutes
            replica.wait_ready(timeout_s=600)
        yield group
    finally:
        for replica in group:
            replica.stop()


def learning(replica: Replica) -> dict[str, Any]:
    response = httpx.get(f"{replica.url}/v1/shadowswitch/learning/support", headers=AUTH, timeout=60)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def runs(replica: Replica, outcome: str) -> float:
    found = metric(replica.url, "shadowswitch_learning_runs_total", outcome=outcome, task_type="support")
    return found or 0.0


def skips(replicas: list[Replica]) -> float:
    return sum(runs(r, outcome) for r in replicas for outcome in ("locked", "already_judged"))


def decide(replica: Replica, text: str) -> dict[str, Any]:
    client = openai.OpenAI(base_url=replica.url + "/v1", api_key="x", timeout=60)
    decision_id = ask(client, text)
    found = httpx.get(f"{replica.url}/v1/shadowswitch/decisions/{decision_id}", headers=AUTH, timeout=30)
    body: dict[str, Any] = found.json()
    return body


def loaded(replicas: list[Replica], version: int) -> bool:
    """Both replicas hold `version` as the one they serve (their /metrics)."""
    return all(
        (metric(r.url, "shadowswitch_learned_version", task_type="support") or 0) == version for r in replicas
    )


def serves(replicas: list[Replica], version: int, text: str) -> bool:
    """Both replicas' next decision is made under `version` of the learned state, and served
    (in shadow the local decision is recorded after the answer, so it may not be there yet)."""
    return all(decide(r, text)["state_version"] == version for r in replicas)


def wake_all(replicas: list[Replica]) -> None:
    def wake(replica: Replica) -> None:
        woken = httpx.post(f"{replica.url}/v1/shadowswitch/learning/wake", headers=AUTH, timeout=30)
        assert woken.status_code == 200, woken.text

    with ThreadPoolExecutor(len(replicas)) as pool:  # at the same moment
        list(pool.map(wake, replicas))


def audit(replica: Replica) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = httpx.get(
        f"{replica.url}/v1/shadowswitch/audit?task=support", headers=AUTH, timeout=30
    ).json()
    return [e for e in events if e["kind"].startswith("learn_")]


@pytest.mark.slow
def test_two_replicas_train_once_serve_the_same_version_and_roll_back_together(
    pair: list[Replica], replay: str, pg_url: str
) -> None:
    a, b = pair
    train = requests(range(0, 4), range(16))  # 48 pairs, four phrasings of each kind
    test = requests(range(0, 4), range(101, 103))
    httpx.post(replay + "/answers", json={text: answer for text, answer in train + test}).raise_for_status()
    for start in range(0, len(train), 8):  # the stream through both replicas, paced
        clients = [openai.OpenAI(base_url=r.url + "/v1", api_key="x", timeout=60) for r in pair]
        for i, (text, _) in enumerate(train[start : start + 8]):
            ask(clients[i % 2], text)
        eventually(partial(has_pairs, partial(learning, a), start + 8), timeout_s=180, interval_s=0.3)

    wake_all(pair)
    eventually(lambda: runs(a, "promoted") + runs(b, "promoted") == 1, timeout_s=180, interval_s=0.3)
    eventually(lambda: skips(pair) == 1, timeout_s=180, interval_s=0.3)
    events = audit(a)
    assert [e["kind"] for e in events] == ["learn_promote"]  # one training run across the two
    trainer = events[0]["actor"]
    assert trainer.startswith("learner:")
    logs = [r.log.read_text() for r in pair]
    assert sum(f"promoted version 1 by {trainer}" in text for text in logs) == 1

    promoted_at = datetime.fromisoformat(events[0]["at"]).timestamp()
    eventually(partial(loaded, pair, 1), timeout_s=60, interval_s=0.1)
    assert time.time() - promoted_at < SECONDS
    change = {"mode": "canary", "percent": 100}
    httpx.put(f"{a.url}/v1/shadowswitch/rollouts/support", json=change, headers=AUTH).raise_for_status()
    # b sees the rollout on its next refresh; until then it decides in shadow, after answering
    eventually(partial(serves, pair, 1, test[0][0]), timeout_s=30, interval_s=0.5)
    for replica in pair:
        decisions = [(decide(replica, text), want) for text, want in test]
        assert sum(agrees(d, w) for d, w in decisions) >= len(test) - 1, decisions
        assert all(d["state_version"] == 1 for d, _ in decisions)
    for replica in pair:  # the same figures from either: they are the database's
        status = learning(replica)
        assert status["served_version"] == 1
        (version,) = status["versions"]
        assert version["learned_from"] and version["held_out"]["pairs"]
        assert version["live"]["decisions"] >= 2 * len(test) and version["live"]["coverage"] > 0
        assert status["prior"]["decisions"] >= len(train)  # the stream, decided under no state
    with httpx.Client(base_url=b.url, timeout=60) as browser:  # the dashboard's task page shows it
        browser.post("/dashboard/login", data={"token": TOKEN})
        page = browser.get("/dashboard/support").text
    assert "Learned versions (serving 1)" in page and f"<td>{version['learned_from']}</td>" in page

    rolled = subprocess.run(
        [str(BIN), "learn", "rollback", "support", "--json", "--db", pg_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rolled.returncode == 0, rolled.stderr
    started = time.monotonic()
    eventually(partial(loaded, pair, 0), timeout_s=60, interval_s=0.1)
    assert time.monotonic() - started < SECONDS
    assert serves(pair, 0, test[1][0])  # requests get the previous version's decisions
    assert all(learning(r)["served_version"] == 0 for r in pair)
    before = skips(pair)
    wake_all(pair)  # a round after the rollback does not learn the same pairs again: both skip
    eventually(lambda: skips(pair) == before + 2, timeout_s=120, interval_s=0.3)
    assert [e["kind"] for e in audit(b)] == ["learn_rollback", "learn_promote"]
    assert serves(pair, 0, test[2][0])
