"""Feedback into the breaker, through a real proxy and the real openai SDK.

The local engine here is a scripted stand-in (the `LocalEngine` Protocol) so that
each test decides exactly what the local path answers; everything else is real:
uvicorn, the pipeline, LiteLLM to a real upstream, the database, the breaker.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.clients import TASK, breaker_is, decision, feedback, metric, rollout
from tests.support.policies import travel
from tests.support.scripted_engine import ScriptedEngine, local_decisions, start, turn
from tests.support.wait import eventually


def test_tool_errors_in_the_next_turns_fail_decisions_and_trip_the_breaker(proxy: Any) -> None:
    url = start(proxy)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "book a hotel in Paris for 2 nights"}]
    served = []
    for step in range(3):
        raw = turn(url, messages)
        assert raw.headers["x-shadowswitch-path"] == "local"
        served.append(raw.headers["x-shadowswitch-decision-id"])
        call = raw.parse().choices[0].message.tool_calls[0]
        messages += [
            raw.parse().choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": f"Error: hotel not found ({step})"},
        ]
    raw = turn(url, messages)  # carries the error for the third decision
    eventually(lambda: all(decision(url, d)["success"] is False for d in served))
    assert "matched error pattern" in decision(url, served[0])["feedback_reason"]
    eventually(lambda: breaker_is(url, "open"))
    assert turn(url, messages).headers["x-shadowswitch-path"] == "generative"
    trip = next(e for e in audit(url) if e["kind"] == "trip")
    # the three failures, in the order their feedback was processed (in the background: under
    # load the first turn's may land after the second's)
    assert sorted(trip["decision_ids"]) == sorted(served) and trip["actor"] == "breaker"
    assert "negative feedback ×3" in trip["reason"]


def test_a_tool_result_without_error_succeeds_and_resets_the_count(proxy: Any) -> None:
    url = start(proxy)
    first = turn(url, [{"role": "user", "content": "book a hotel"}])
    second = turn(url, [{"role": "user", "content": "book another hotel"}], session="s-2")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "book a hotel"}]
    for raw, text in ((first, "Error: sold out"), (second, "Booked: confirmation 42")):
        call = raw.parse().choices[0].message.tool_calls[0]
        reply = [
            *messages,
            raw.parse().choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": text},
        ]
        turn(url, reply)
        ok = text.startswith("Booked")
        decision_id = raw.headers["x-shadowswitch-decision-id"]
        eventually(lambda d=decision_id, ok=ok: decision(url, d)["success"] is ok)
        eventually(lambda ok=ok: rollout(url)["breaker"]["consecutive_failures"] == (0 if ok else 1))


def test_negative_feedback_trips_at_once_for_the_very_next_request(proxy: Any) -> None:
    url = start(proxy)
    ids = local_decisions(url, 3)
    for decision_id in ids:
        assert feedback(url, decision_id, success=False).status_code == 200
    # no waiting: the replica that tripped it has already switched
    assert turn(url, [{"role": "user", "content": "book"}], session="k0").headers["x-shadowswitch-path"] == (
        "generative"
    )
    assert rollout(url)["breaker"]["state"] == "open"
    text = httpx.get(url + "/metrics").text
    assert f'shadowswitch_breaker_events_total{{event="trip",task_type="{TASK}"}} 1.0' in text


def test_feedback_twice_on_one_decision_counts_once(proxy: Any) -> None:
    url = start(proxy)
    (decision_id,) = local_decisions(url, 1)
    for _ in range(3):
        feedback(url, decision_id, success=False)
    assert rollout(url)["breaker"]["consecutive_failures"] == 1


def test_feedback_on_generative_decisions_does_not_count(proxy: Any) -> None:
    url = proxy({**travel(), "rollout": {"mode": "off"}}, local_factory=ScriptedEngine)
    raw = turn(url, [{"role": "user", "content": "book a hotel"}])
    assert raw.headers["x-shadowswitch-path"] == "generative"
    assert feedback(url, raw.headers["x-shadowswitch-decision-id"], success=False).status_code == 200
    assert rollout(url)["breaker"]["consecutive_failures"] == 0


def test_invalid_local_output_counts(proxy: Any) -> None:
    url = start(proxy, ScriptedEngine(name="teleport"))  # a tool the request does not offer
    for i in range(3):
        raw = turn(url, [{"role": "user", "content": f"book ({i})"}], session=f"k{i}")
        assert raw.headers["x-shadowswitch-path"] == "fallback"
    eventually(lambda: breaker_is(url, "open"))
    trip = next(e for e in audit(url) if e["kind"] == "trip")
    assert "invalid output ×3" in trip["reason"]


def test_reprobe_then_restore_after_successes(proxy: Any) -> None:
    engine = ScriptedEngine(kind="no_tool")  # plain answers: valid means success
    url = start(proxy, engine, reprobe_after_s=0.5, reprobe_percent=100, restore_after_successes=2)
    ids = local_decisions_any(url, 3)
    for decision_id in ids:
        feedback(url, decision_id, success=False)
    assert breaker_is(url, "open")
    eventually(lambda: breaker_is(url, "half_open"), timeout_s=3)
    for i in range(2):
        raw = turn(url, [{"role": "user", "content": f"hi ({i})"}], session=f"p{i}")
        assert raw.headers["x-shadowswitch-path"] == "local"
    eventually(lambda: breaker_is(url, "closed"))
    kinds = [e["kind"] for e in reversed(audit(url))]
    assert kinds[-3:] == ["trip", "reprobe", "restore"]
    restore = audit(url)[0]
    assert (restore["old"]["percent"], restore["new"]["percent"]) == (100, 100)
    for event in ("trip", "reprobe", "restore"):
        assert metric(url, "shadowswitch_breaker_events_total", task_type=TASK, event=event) == 1.0


def test_a_failure_while_reprobing_reverts_with_a_longer_wait(proxy: Any) -> None:
    url = start(proxy, reprobe_after_s=0.5, reprobe_percent=100)
    for decision_id in local_decisions(url, 3):
        feedback(url, decision_id, success=False)
    eventually(lambda: breaker_is(url, "half_open"), timeout_s=3)
    (probe,) = local_decisions(url, 1)
    feedback(url, probe, success=False)
    state = rollout(url)["breaker"]
    assert state["state"] == "open" and state["reprobe_wait_s"] == 1.0
    assert audit(url)[0]["decision_ids"] == [probe]


def local_decisions_any(url: str, n: int) -> list[str]:
    return [
        turn(url, [{"role": "user", "content": f"hello ({i})"}], session=f"k{i}").headers[
            "x-shadowswitch-decision-id"
        ]
        for i in range(n)
    ]


def audit(url: str) -> list[dict[str, Any]]:
    return list(httpx.get(f"{url}/v1/shadowswitch/audit", params={"task": TASK}).json())


@pytest.mark.parametrize("success", [True, False])
def test_explicit_feedback_is_stored(proxy: Any, success: bool) -> None:
    url = start(proxy)
    (decision_id,) = local_decisions(url, 1)
    response = feedback(url, decision_id, success)
    assert response.status_code == 200 and response.json()["success"] is success
    assert feedback(url, "nope", success).status_code == 404
