"""Certified serving over time, end to end: the real proxy with the embedded models, a replay
upstream answering as the support agent's large model does, the openai SDK, the `learn` CLI.

New phrasings come in and the served share grows: a challenger whose certified region serves more
of the held-out pairs replaces the served state (one that serves no more does not:
test_learning_certified.py, on the same `learn`). A withdrawn certificate stops a running ramp as
negative evidence does (hold, or revert to shadow), and the breaker, whose own rule does not count
disagreements here, stays closed."""

from __future__ import annotations

import itertools
import time
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.support.clients import feedback
from tests.support.learning import AUTH, TOKEN, cli, requests, send_paced, serves, shadow_policy, status
from tests.support.learning import ask_support as ask
from tests.support.wait import eventually

WAIT_S = 180


def rollout(url: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{url}/v1/shadowswitch/rollouts/support", headers=AUTH).json()
    return body


def set_mode(url: str, mode: str, percent: float = 0) -> None:
    change = {"mode": mode, "percent": percent, "reason": "test"}
    httpx.put(f"{url}/v1/shadowswitch/rollouts/support", json=change, headers=AUTH).raise_for_status()
    eventually(lambda: rollout(url)["mode"] == mode, timeout_s=10)


def audit(url: str) -> list[dict[str, Any]]:
    events = httpx.get(f"{url}/v1/shadowswitch/audit", params={"limit": 200}, headers=AUTH).json()
    return list(reversed(events))  # oldest first


def path(url: str, decision_id: str) -> str:
    return str(httpx.get(f"{url}/v1/shadowswitch/decisions/{decision_id}", headers=AUTH).json()["path"])


def served_share(url: str, client: openai.OpenAI, test: list[tuple[str, Any]]) -> tuple[float, list[str]]:
    """Canary 100% over the test requests: the share answered locally, and their decisions."""
    set_mode(url, "canary", 100)
    ids = [ask(client, text) for text, _ in test]
    set_mode(url, "shadow")
    return sum(path(url, i) == "local" for i in ids) / len(ids), ids


def settled_pairs(url: str, quiet_s: float = 3.0) -> int:
    """The pairs stored once their count has stopped growing (the test requests' fallbacks)."""
    last, since = -1, time.monotonic()
    while time.monotonic() - since < quiet_s:
        now = int(status(url, "support")["pairs"])
        if now != last:
            last, since = now, time.monotonic()
        time.sleep(0.3)
    return last


def unlearn(url: str, ids: list[str]) -> None:
    """Negative feedback on decisions the upstream answered: their pairs no longer teach (the
    breaker counts feedback on local answers only)."""
    for decision_id in ids:
        if path(url, decision_id) != "local":
            assert feedback(url, decision_id, False).status_code == 200


def send_more(url: str, send: Any, texts: list[str]) -> list[str]:
    """`send_paced`, counting from the pairs stored now (excluded pairs no longer count)."""
    stored, ids = int(status(url, "support")["pairs"]), []
    for start in range(0, len(texts), 8):
        ids += [send(text) for text in texts[start : start + 8]]
        want = stored + len(ids)
        eventually(lambda w=want: status(url, "support")["pairs"] >= w, timeout_s=WAIT_S, interval_s=0.3)
    return ids


@pytest.mark.one_backend
def test_the_served_share_grows_as_pairs_come_in_and_a_wider_region_replaces_the_state(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path
) -> None:
    first = requests(range(0, 2), range(16))  # 48 pairs, two phrasings of each kind (40 to learn)
    test = requests(range(2, 6), range(101, 109))  # the other four
    later = requests(range(2, 6), range(16, 44))
    httpx.post(replay + "/answers", json=dict(first + test + later)).raise_for_status()
    policy = shadow_policy("support", replay, certify=True)
    policy["rollout"] = {"mode": "shadow", "compare_percent": 0}  # a local answer makes no pair
    url = proxy(policy, local_factory=lambda: local_engine, admin_token=TOKEN, learn_interval_s=0)
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")
    send = partial(ask, client)
    learn = partial(cli, db_url, tmp_path / "policies0", "support")

    send_paced(url, "support", send, [t for t, _ in first])
    one = learn()
    assert one["status"] == "promoted", one["evaluation"]["why_not"]
    eventually(lambda: serves(url, "support", 1), timeout_s=WAIT_S)
    before, tested = served_share(url, client, test)
    settled_pairs(url)
    unlearn(url, tested)  # the test requests never teach

    # Pairs of the other phrasings come in: the challenger's region serves more of them.
    send_more(url, send, [t for t, _ in later])
    two = learn()
    assert two["status"] == "promoted", two["evaluation"]["why_not"]
    figures = two["evaluation"]
    assert figures["challenger"]["serves_held_out"] > figures["served"]["serves_held_out"], figures
    eventually(lambda: serves(url, "support", 2), timeout_s=WAIT_S)
    after, tested = served_share(url, client, test)
    assert after > before, (before, after)
    assert status(url, "support")["served_version"] == 2


def ramp_policy(replay: str, on_fail: str) -> dict[str, Any]:
    """Shadow, then a ramp to 50% and 100%, 12 pairs a step. The prior agrees on few of this
    agent's requests, and the monitor withdraws after about 5 compared answers disagree: the
    ramp's own agreement bound is set so low (1%, beyond doubt only after hundreds of pairs) that
    neither stops it, and the withdrawal is what does. Disagreements are not the breaker's to
    count (its default)."""
    policy = shadow_policy("support", replay, certify=True)
    policy["rollout"] = {
        "mode": "shadow",
        "compare_percent": 100,
        "ramp": {
            "steps": [50, 100],
            "min_pairs": 12,
            "min_duration": "1s",
            "require": {"agreement": 0.01, "success_not_worse": True, "valid": 1.0},
            "on_fail": on_fail,
        },
    }
    policy["breaker"] = {"consecutive_failures": 3, "reprobe_after_s": 0}
    return policy


@pytest.mark.one_backend
@pytest.mark.parametrize("on_fail", ["hold", "revert"])
def test_a_withdrawn_certificate_stops_the_ramp_and_leaves_the_breaker_closed(
    proxy: Any, local_engine: Any, replay: str, db_url: str, tmp_path: Path, on_fail: str
) -> None:
    train = requests(range(0, 4), range(16))
    test = requests(range(0, 4), range(101, 125))
    httpx.post(replay + "/answers", json=dict(train + test)).raise_for_status()
    url = proxy(
        ramp_policy(replay, on_fail),
        local_factory=lambda: local_engine,
        admin_token=TOKEN,
        learn_interval_s=0,
        rollout_refresh_s=0.1,
        ramp_check_s=0.1,
    )
    client = openai.OpenAI(base_url=url + "/v1", api_key="x")
    send_paced(url, "support", partial(ask, client), [t for t, _ in train])
    assert rollout(url)["mode"] == "shadow"  # 48 pairs, agreeing enough: the ramp waits for a region
    learned = cli(db_url, tmp_path / "policies0", "support")
    assert learned["status"] == "promoted", learned["evaluation"]["why_not"]
    more = itertools.cycle(t for t, _ in train)

    def stepped() -> bool:  # the step's pairs, now with a certified region
        ask(client, next(more))
        return bool(rollout(url)["mode"] == "canary")

    eventually(stepped, timeout_s=WAIT_S, interval_s=0.3)
    assert rollout(url)["percent"] == 50 and rollout(url)["ramp"]["state"] == "running"

    # The agent's model changes: every compared answer disagrees, the monitor withdraws.
    changed = {t: {"content": "Our new assistant handles this differently."} for t, _ in train + test}
    httpx.post(replay + "/answers", json=changed).raise_for_status()
    asked = itertools.cycle(t for t, _ in test)

    def stopped() -> bool:
        ask(client, next(asked))
        return rollout(url)["ramp"]["state"] in ("held", "reverted")

    eventually(stopped, timeout_s=WAIT_S, interval_s=0.3)
    kinds = [e["kind"] for e in audit(url)]
    assert "learn_withdraw" in kinds and f"ramp_{on_fail}" in kinds
    (event,) = [e for e in audit(url) if e["kind"] == f"ramp_{on_fail}"]
    assert "certificate was withdrawn" in event["reason"]
    now = rollout(url)
    assert (now["mode"], now["percent"]) == (("canary", 50) if on_fail == "hold" else ("shadow", 0))
    assert now["breaker"]["state"] == "closed" and now["breaker"]["consecutive_failures"] == 0
    assert not any(e["kind"].startswith("breaker") for e in audit(url))
