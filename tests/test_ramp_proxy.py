"""The ramp end to end, in accelerated time: a real proxy, the real openai SDK, a scripted upstream
on loopback, the real database; durations of a second and a handful of pairs per step.

The local engine is a scripted stand-in (the `LocalEngine` Protocol) that answers exactly as the
upstream does, or picks another offered tool: the ramp's logic is under test, so what the local
path says must be under the test's control. Everything else is real.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from shadowswitch.engines.base import Choice
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from shadowswitch.rollouts.routing import bucket
from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings
from tests.support.clients import TASK, client, feedback
from tests.support.policies import TOOLS, write_policies
from tests.support.servers import running
from tests.support.upstreams import answer
from tests.support.wait import eventually

TOKEN = "ramp-admin-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
FAST = {"rollout_refresh_s": 0.1, "ramp_check_s": 0.1, "admin_token": TOKEN}
_keys = itertools.count()


class Mirror:
    """Answers as the scripted upstream would (agree), or calls the other offered tool (disagree)."""

    ready = True

    def __init__(self, agree: bool = True) -> None:
        self.agree = agree

    async def decide(self, request: ChatView, policy: Policy) -> Choice:
        body = request.raw
        if not self.agree:
            mine = answer(body)["tool_calls"][0]["function"]["name"]
            other = next(t["function"]["name"] for t in body["tools"] if t["function"]["name"] != mine)
            body = {**body, "tool_choice": {"type": "function", "function": {"name": other}}}
        call = answer(body)["tool_calls"][0]["function"]
        arguments = json.loads(call["arguments"])
        return Choice(kind="tool", name=call["name"], arguments=arguments, confidence=0.9, margin=0.5)


def ramp_policy(on_fail: str = "hold", min_pairs: int = 8, **breaker: Any) -> dict[str, Any]:
    return {
        "task_type": TASK,
        "match": {"tools_include": ["search_flights", "book_hotel"]},
        "rollout": {
            "mode": "shadow",
            "compare_percent": 100,
            "ramp": {
                "steps": [5, 25, 50, 100],
                "min_pairs": min_pairs,
                "min_duration": "1s",
                "require": {"agreement": 0.5, "success_not_worse": True, "valid": 1.0},
                "on_fail": on_fail,
            },
        },
        "breaker": {"consecutive_failures": 2, "reprobe_after_s": 0, **breaker},
    }


def start(proxy: Any, engine: Mirror, **policy: Any) -> str:
    url: str = proxy(ramp_policy(**policy), local_factory=lambda: engine, **FAST)
    eventually(lambda: httpx.get(url + "/readyz").status_code == 200)
    return url


def rollout(url: str) -> dict[str, Any]:
    return dict(httpx.get(f"{url}/v1/shadowswitch/rollouts/{TASK}", headers=AUTH).json())


def audit(url: str, kind_prefix: str = "ramp_") -> list[dict[str, Any]]:
    events = httpx.get(f"{url}/v1/shadowswitch/audit", params={"limit": 200}, headers=AUTH).json()
    return [e for e in reversed(events) if e["kind"].startswith(kind_prefix)]  # oldest first


def ramp(url: str, action: str, reason: str | None = None) -> httpx.Response:
    body = {"action": action, **({"reason": reason} if reason else {})}
    return httpx.post(f"{url}/v1/shadowswitch/rollouts/{TASK}/ramp", json=body, headers=AUTH)


def ask(url: str, key: str) -> Any:
    return client(url).chat.completions.with_raw_response.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": "Book a hotel room in Paris for two nights"}],
        tools=TOOLS,
        extra_headers={"X-Shadowswitch-Session": key},
    )


def local_key(percent: float) -> str:
    """A sticky key the canary serves locally at `percent` (any key in shadow)."""
    while True:
        key = f"agent-{next(_keys)}"
        if percent <= 0 or percent >= 100 or bucket(TASK, key) < percent:
            return key


def served(url: str) -> tuple[str, float]:
    r = rollout(url)
    return r["mode"], r["percent"] if r["mode"] == "canary" else 0.0


def feed_until(
    urls: list[str], done: Callable[[dict[str, Any]], bool], timeout_s: float = 60
) -> dict[str, Any]:
    """Send agent turns (to every replica in turn) on keys the rollout serves locally, until `done`."""
    replicas = itertools.cycle(urls)

    def fed() -> dict[str, Any] | None:
        url = next(replicas)
        current = rollout(url)
        if done(current):
            return current
        percent = current["percent"] if current["mode"] == "canary" else 0.0
        for _ in range(3):
            ask(url, local_key(percent))
        return None

    return eventually(fed, timeout_s=timeout_s, interval_s=0, what="the ramp gets there")


def at(percent: float) -> Callable[[dict[str, Any]], bool]:
    return lambda r: r["mode"] == "canary" and r["percent"] == percent


def ramp_state(state: str) -> Callable[[dict[str, Any]], bool]:
    return lambda r: (r["ramp"] or {}).get("state") == state


def ramp_checks(proxy: Any, url: str, passes: int = 2) -> None:
    """Until the proxy's ramp controller has checked its ramps `passes` more times (with what the
    test has just sent in hand), instead of sleeping and hoping it looked."""
    live = proxy.app(url).state.shadowswitch.live
    done = live.ramp_passes
    eventually(lambda: live.ramp_passes >= done + passes, what=f"{passes} ramp checks")


def past_min_duration(url: str) -> bool:
    """The ramp's step has lasted its `min_duration` (1 s): time alone would not hold it back."""
    since = datetime.fromisoformat(rollout(url)["ramp"]["since"])
    return datetime.now(UTC) - since > timedelta(seconds=1)


def test_agreeing_answers_ramp_from_shadow_to_100_one_audit_event_per_step(proxy: Any) -> None:
    url = start(proxy, Mirror())
    assert rollout(url)["ramp"]["state"] == "running" and [e["kind"] for e in audit(url)] == ["ramp_start"]
    for percent in (5, 25, 50, 100):
        feed_until([url], at(percent))
    assert rollout(url)["ramp"]["state"] == "done"
    steps = [e for e in audit(url) if e["kind"] == "ramp_step"]
    moves = [(e["old"]["mode"], e["old"]["percent"], e["new"]["percent"]) for e in steps]
    assert moves == [("shadow", 0, 5), ("canary", 5, 25), ("canary", 25, 50), ("canary", 50, 100)]
    for event in steps:
        figures = event["figures"]
        assert event["actor"] == "ramp" and figures["pairs"] >= 8 and figures["agreement_cs"][0] >= 0.5
        assert figures["elapsed_s"] >= 1 and f"{figures['pairs']} pairs" in event["reason"]
    assert ask(url, "anyone").headers["x-shadowswitch-path"] == "local"
    history = httpx.get(f"{url}/dashboard/{TASK}/data", headers=AUTH).json()["rollout_history"]
    moves = [p for p in history["ramp"] if p is not None]
    assert moves == [0, 5, 25, 50, 100] and history["percent"][-1] == 100  # start, then each step


@pytest.mark.parametrize("on_fail", ["hold", "revert"])
def test_disagreeing_answers_hold_at_their_step_or_revert(proxy: Any, on_fail: str) -> None:
    engine = Mirror()
    url = start(proxy, engine, on_fail=on_fail)
    feed_until([url], at(5))
    engine.agree = False
    stopped = feed_until([url], ramp_state("held" if on_fail == "hold" else "reverted"))
    (event,) = [e for e in audit(url) if e["kind"] == f"ramp_{on_fail}"]
    assert event["figures"]["agreement_cs"][1] < 0.5 and "agreement below 50%" in event["reason"]
    if on_fail == "hold":
        assert (stopped["mode"], stopped["percent"]) == ("canary", 5)
        assert event["new"]["mode"] is None  # holding moves nothing
    else:
        assert (stopped["mode"], served(url)[1]) == ("shadow", 0)
        assert (event["old"], event["new"]) == (
            {"mode": "canary", "percent": 5},
            {"mode": "shadow", "percent": 0},
        )
    engine.agree = True  # good answers again: a stopped ramp stays where it is until a person acts
    for _ in range(10):
        ask(url, local_key(5))
    ramp_checks(proxy, url)
    assert rollout(url)["ramp"]["state"] == stopped["ramp"]["state"]
    assert [e["kind"] for e in audit(url)].count("ramp_step") == 1


def test_too_few_pairs_waits_and_says_for_what(proxy: Any) -> None:
    url = start(proxy, Mirror(), min_pairs=30)
    for _ in range(20):
        ask(url, local_key(0))
    waiting = eventually(lambda: _waits_for(url, "20 of 30 pairs"), timeout_s=10)
    assert any(w.startswith("agreement 100.0% [") for w in waiting)  # the figures it has so far
    # past min_duration, and the agreement alone would do: it still waits for pairs
    eventually(lambda: past_min_duration(url), timeout_s=10)
    ramp_checks(proxy, url)
    assert rollout(url)["mode"] == "shadow" and _waits_for(url, "20 of 30 pairs")
    assert "20 of 30 pairs" in rollout(url)["ramp"]["text"]
    (entry,) = httpx.get(f"{url}/v1/shadowswitch/report", headers=AUTH).json()["task_types"]
    assert (
        entry["ramp"]["state"] == "running" and "20 of 30 pairs; agreement 100.0% [" in entry["ramp"]["text"]
    )
    for page in ("/dashboard", f"/dashboard/{TASK}"):
        assert "20 of 30 pairs; agreement 100.0% [" in httpx.get(url + page, headers=AUTH).text
    feed_until([url], at(5))
    (step,) = [e for e in audit(url) if e["kind"] == "ramp_step"]
    assert step["figures"]["pairs"] >= 30


def _waits_for(url: str, what: str) -> list[str] | None:
    waiting: list[str] = rollout(url)["ramp"]["waiting"]
    return waiting if what in waiting else None


def test_a_manual_change_pauses_the_ramp_until_resume(proxy: Any) -> None:
    url = start(proxy, Mirror())
    changed = httpx.put(
        f"{url}/v1/shadowswitch/rollouts/{TASK}", json={"mode": "canary", "percent": 10}, headers=AUTH
    )
    assert changed.status_code == 200 and changed.json()["ramp"]["state"] == "paused"
    (pause,) = [e for e in audit(url) if e["kind"] == "ramp_pause"]
    assert pause["actor"] == "api:admin"
    for _ in range(25):  # plenty of agreeing pairs: a paused ramp does not move
        ask(url, local_key(10))
    eventually(lambda: past_min_duration(url), timeout_s=10)
    ramp_checks(proxy, url)
    assert (rollout(url)["percent"], rollout(url)["ramp"]["state"]) == (10, "paused")
    assert ramp(url, "pause").status_code == 409
    resumed = ramp(url, "resume", "checked the canary by hand")
    assert resumed.status_code == 200 and resumed.json()["ramp"]["state"] == "running"
    assert resumed.json()["ramp"]["next_percent"] == 25  # it carries on from the person's 10%
    feed_until([url], at(25))
    kinds = [e["kind"] for e in audit(url)]
    assert kinds == ["ramp_start", "ramp_pause", "ramp_resume", "ramp_step"]


def test_the_ramp_endpoint_checks_its_input_and_its_caller(proxy: Any) -> None:
    url = start(proxy, Mirror())
    for body, status in (({"action": "faster"}, 422), ({}, 422), ({"action": "start", "x": 1}, 422)):
        response = httpx.post(f"{url}/v1/shadowswitch/rollouts/{TASK}/ramp", json=body, headers=AUTH)
        assert response.status_code == status and response.json()["error"]["param"]
    nobody = httpx.post(f"{url}/v1/shadowswitch/rollouts/{TASK}/ramp", json={"action": "abort"})
    assert nobody.status_code == 401
    assert (
        httpx.post(
            f"{url}/v1/shadowswitch/rollouts/nope/ramp", json={"action": "abort"}, headers=AUTH
        ).status_code
        == 404
    )
    conflict = ramp(url, "start")
    assert conflict.status_code == 409 and "already running" in conflict.json()["error"]["message"]
    assert ramp(url, "abort", "not today").json()["ramp"]["state"] == "aborted"
    assert ramp(url, "resume").status_code == 409  # abort is final: start begins again
    assert ramp(url, "start").json()["ramp"]["state"] == "running"


def test_a_breaker_trip_aborts_the_ramp_which_stays_aborted_after_restore(proxy: Any) -> None:
    url = start(proxy, Mirror(), reprobe_after_s=1, reprobe_percent=100, restore_after_successes=1)
    feed_until([url], at(5))
    failing = [ask(url, local_key(5)) for _ in range(2)]
    assert all(r.headers["x-shadowswitch-path"] == "local" for r in failing)
    for raw in failing:
        assert feedback(url, raw.headers["x-shadowswitch-decision-id"], False).status_code == 200
    tripped = rollout(url)
    assert tripped["breaker"]["state"] == "open" and tripped["ramp"]["state"] == "aborted"
    (abort,) = [e for e in audit(url) if e["kind"] == "ramp_abort"]
    assert abort["actor"] == "breaker" and "breaker tripped" in abort["reason"]
    # the breaker re-probes and restores by itself; the ramp does not come back with it
    eventually(lambda: rollout(url)["breaker"]["state"] == "half_open", timeout_s=10)
    probe = ask(url, local_key(5))
    assert probe.headers["x-shadowswitch-path"] == "local"
    feedback(url, probe.headers["x-shadowswitch-decision-id"], True)
    eventually(lambda: rollout(url)["breaker"]["state"] == "closed", timeout_s=10)
    for _ in range(20):
        ask(url, local_key(5))
    ramp_checks(proxy, url)
    after = rollout(url)
    assert (after["percent"], after["ramp"]["state"]) == (5, "aborted")
    assert [e["kind"] for e in audit(url)].count("ramp_step") == 1


@pytest.fixture
def replicas(tmp_path: Path, upstream: str, pg_url: str) -> Iterator[list[str]]:
    """Two proxies (each its own app, pool, refresh loop and controller) on one PostgreSQL database."""
    policies = write_policies(tmp_path / "policies", upstream, ramp_policy())
    servers = []
    for _ in range(2):
        settings = Settings(db_url=pg_url, policies=policies, load_models=False, **FAST)
        servers.append(running(create_app(settings, local_factory=Mirror), ready_path="/readyz"))
    urls = [server.__enter__() for server in servers]
    for url in urls:
        eventually(lambda u=url: httpx.get(u + "/readyz").status_code == 200)
    yield urls
    for server in reversed(servers):
        server.__exit__(None, None, None)


@pytest.mark.slow  # PostgreSQL whatever the backend: once per CI run is enough
def test_two_replicas_on_postgres_step_exactly_once_per_step(replicas: list[str]) -> None:
    for percent in (5, 25, 50, 100):
        feed_until(replicas, at(percent))
    for url in replicas:
        eventually(lambda u=url: rollout(u)["ramp"]["state"] == "done")
    steps = [e for e in audit(replicas[0]) if e["kind"] == "ramp_step"]
    assert [e["new"]["percent"] for e in steps] == [5, 25, 50, 100]
    starts = [e for e in audit(replicas[1]) if e["kind"] == "ramp_start"]
    assert len(starts) == 1  # seeded once, though both replicas started on the empty database
