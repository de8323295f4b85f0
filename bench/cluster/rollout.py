"""The cluster bench's last phase: a ramp and a breaker trip driven through the load balancer,
so that both replicas see the evidence, and the audit log counted: each ramp step and the trip
must happen once, whichever replica took it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import yaml
from sqlalchemy import create_engine, text

from bench.load import traffic

TASK = "cluster_ramp"
# Tools without parameters, so that the scripted upstream (which fills required parameters with
# placeholders) and the local engine can agree on the whole call: the ramp needs agreement.
TOOLS = [
    {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": {"type": "object"}},
    }
    for name, description in (
        ("list_bookings", "List the user's bookings"),
        ("contact_support", "Open a chat with a support agent"),
    )
]
STEPS = [25, 50, 100]
FAILURES = 5  # the breaker's threshold: negative feedback on this many local answers in a row


def write_policy(folder: Path) -> None:
    """Shadow first, then a ramp on agreement; a breaker that stays open once tripped."""
    policy = {
        "task_type": TASK,
        "rollout": {
            "mode": "shadow",
            "compare_percent": 100,
            "ramp": {
                "steps": STEPS,
                "min_pairs": 10,
                "min_duration": "1s",
                "require": {"agreement": 0.5, "valid": 1.0},
            },
        },
        "engine": {"scorer": "embedding", "min_confidence": 0, "min_margin": 0, "certify": False},
        "breaker": {"consecutive_failures": FAILURES, "reprobe_after_s": 3600},
    }
    (folder / f"{TASK}.yaml").write_text(yaml.safe_dump(policy))


def ramp_and_trip(
    base: str, db_url: str, timeout_s: float = 300
) -> tuple[dict[str, Any], list[traffic.Result]]:
    """Send the task's requests through `base` until the ramp has reached 100%, then negative
    feedback on local answers until the breaker trips; the audit events of each, and what each
    request got back (its row is counted with the others')."""
    started = time.monotonic()
    sent: list[traffic.Result] = []
    with httpx.Client(base_url=base, timeout=120) as client:
        while 100 not in _steps(db_url) and time.monotonic() - started < timeout_s:
            sent += [_ask(client, len(sent)) for _ in range(10)]
        ramped_s = round(time.monotonic() - started, 1)
        local: list[str] = []
        while len(local) < FAILURES and time.monotonic() - started < timeout_s:
            sent.append(_ask(client, len(sent)))
            if sent[-1].path == "local" and sent[-1].decision_id:
                local.append(sent[-1].decision_id)
        for decision in local:  # through the balancer: the replicas take turns
            body = {"decision_id": decision, "success": False, "reason": "bench cluster"}
            client.post("/v1/shadowswitch/feedback", json=body).raise_for_status()
        deadline = time.monotonic() + 10
        while not _kinds(db_url).count("trip") and time.monotonic() < deadline:
            time.sleep(0.2)
    kinds = _kinds(db_url)
    steps = _steps(db_url)
    summary = {
        "requests": len(sent),
        "seconds_to_100": ramped_s,
        "ramp_steps": steps,
        "each_step_once": steps == STEPS,
        "ramp_starts": kinds.count("ramp_start"),
        "trips": kinds.count("trip"),
        "audit_kinds": kinds,
    }
    return summary, sent


def _ask(client: httpx.Client, i: int) -> traffic.Result:
    body = {
        "model": "load-step",
        "messages": [{"role": "user", "content": f"show me my bookings please ({i})"}],
        "tools": TOOLS,
    }
    headers = {"X-Shadowswitch-Task": TASK, "X-Shadowswitch-Session": f"ramp-{i}"}
    started = time.perf_counter()
    response = client.post("/v1/chat/completions", json=body, headers=headers)
    response.raise_for_status()
    ms = (time.perf_counter() - started) * 1000
    decision, path = (
        response.headers.get("x-shadowswitch-decision-id"),
        response.headers.get("x-shadowswitch-path"),
    )
    return traffic.Result("ramp", ms, decision, path)


def _events(db_url: str) -> list[tuple[str, float | None]]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            query = text("SELECT kind, new_percent FROM audit_event WHERE task_type = :task ORDER BY id")
            return [(row[0], row[1]) for row in conn.execute(query, {"task": TASK})]
    finally:
        engine.dispose()


def _kinds(db_url: str) -> list[str]:
    return [kind for kind, _ in _events(db_url)]


def _steps(db_url: str) -> list[int]:
    return [int(percent or 0) for kind, percent in _events(db_url) if kind == "ramp_step"]
