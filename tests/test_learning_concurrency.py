"""Learning never delays a concurrent request: while the proxy learns a task type from 240
pairs, tuning the sentence encoder to them too, the local path keeps answering at about its normal
latency, on a loaded machine too.

Real proxy (uvicorn in a thread, the session's embedded models, SQLite), real learning run (in a
process of its own). Each request's text is new, so the encoder really runs. Learning on the event
loop, or on a low-priority thread holding the GIL while the machine is busy, would stall the
requests sent meanwhile for a large part of the run (seen: 0.9 s with the tests' other lanes).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from sqlmodel import Session, select

from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings
from shadowswitch.store import db
from shadowswitch.store.tables import AuditEvent, Exemplar
from tests.support.policies import write_policies
from tests.support.servers import running
from tests.support.wait import eventually

TASK = "busy"
PAIRS = 240  # distinct turns, past the tuning's minimum: a run of a minute, longer than any stall
TOOLS = ("lookup_order", "cancel_order", "__no_tool__")
ASKED = ("where is order {} now", "please cancel order {}", "thanks, that is all for {}")  # per tool


def tool(name: str, description: str) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": {"order_id": {"type": "string", "description": "Order id like AB123456"}},
        "required": ["order_id"],
    }
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


OFFERED = [tool("lookup_order", "Look up the status of an order"), tool("cancel_order", "Cancel an order")]


def fill(url: str, encoder: str, dim: int = 384) -> None:
    """PAIRS exemplars in three clusters, as the pipeline writes them (in one transaction): the
    prior agrees with them all, so whatever the run decides, the thresholds stay at 0."""
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(len(TOOLS), dim))
    rows = []
    for i in range(PAIRS):
        kind = i % len(TOOLS)
        v = centres[kind] / np.linalg.norm(centres[kind]) + rng.normal(scale=0.1, size=dim)
        probs = {t: 0.1 for t in TOOLS} | {TOOLS[kind]: 0.8}
        label = TOOLS[kind]
        rows.append(
            Exemplar(
                task_type=TASK,
                decision_id=f"d{i:030d}",
                encoder=encoder,
                vector=(v / np.linalg.norm(v)).astype(np.float32).tobytes(),
                label=label,
                tools_key="k",
                zero_shot=probs,
                local_tool=label,
                args_status="agree" if label != "__no_tool__" else "none",
                texts={"query": ASKED[kind].format(f"AB{100000 + i:06d}")},
            )
        )
    with Session(db.make_engine(url)) as session:
        session.add_all(rows)
        session.commit()


def ask(client: httpx.Client, i: int) -> float:
    text = f"look up the status of my order AB{100000 + i * 7919 % 900000:06d}?"  # new: the encoder runs
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": text}],
        "tools": OFFERED,
    }
    started = time.perf_counter()
    response = client.post("/v1/chat/completions", json=body, headers={"X-Shadowswitch-Task": TASK})
    took = time.perf_counter() - started
    assert response.status_code == 200, response.text
    path = response.headers["x-shadowswitch-path"]
    decision = response.headers["x-shadowswitch-decision-id"]
    assert path == "local", str(client.get(f"/v1/shadowswitch/decisions/{decision}").json())
    return took


def test_learning_never_delays_a_concurrent_request(tmp_path: Path, upstream: str, local_engine: Any) -> None:
    url = f"sqlite:///{tmp_path / 'busy.db'}"
    db.upgrade(url)
    encoder = local_engine.engine.models.encoder_id
    fill(url, encoder)
    policy = {
        "task_type": TASK,
        "rollout": {"mode": "canary", "percent": 100, "compare_percent": 0},
        "engine": {
            "scorer": "embedding",
            "allow_no_tool": False,
            "min_confidence": 0,
            "min_margin": 0,
            "learn": True,
        },
    }
    settings = Settings(
        db_url=url,
        policies=write_policies(tmp_path / "policies", upstream, policy),
        load_models=False,
        learn_interval_s=3600,  # the thread waits; the test wakes it
    )
    app = create_app(settings, local_factory=lambda: local_engine)
    learner = app.state.shadowswitch.learner
    with running(app, ready_path="/readyz") as base, httpx.Client(base_url=base, timeout=60) as client:
        for i in range(5):  # warm: the tools' vectors, the first request's set-up
            ask(client, i)
        baseline = [ask(client, 100 + i) for i in range(20)]
        learner.wake()
        eventually(lambda: learner.busy.is_set() or learner.runs, timeout_s=30, interval_s=0.005)
        during = []
        while learner.busy.is_set():  # paced: a request each 50 ms or so, not a load of its own
            during.append(ask(client, 1000 + len(during)))
            time.sleep(0.03)
        after = [ask(client, 5000 + i) for i in range(10)]
        served_after = app.state.shadowswitch.learning.memories.get(TASK)

    assert learner.runs, "the learning thread did not run"
    run = learner.runs[-1]
    assert run.task_type == TASK and run.status in ("promoted", "judged"), run
    KINDS = ("learn_promote", "learn_reject")
    with Session(db.make_engine(url)) as session:  # the run tuned the encoder, in its process
        event = session.exec(select(AuditEvent).where(AuditEvent.kind.in_(KINDS))).one()  # type: ignore[attr-defined]
    tunings = json.loads(event.reason)["fitted"]["encoder"]["tunings"]
    assert tunings and all(t["pairs"] > 0 for t in tunings), event.reason
    print("RUN", run, served_after)
    assert len(during) >= 5, (run, during)  # on the event loop, one request would wait it all out
    normal = statistics.median(baseline + after)
    slowest_normal = max(baseline + after)
    # Generous for a loaded 2-core machine: the learning thread competes for the cores and the
    # GIL, so a request may be somewhat slower, but none stalls for a stretch of the run (a run
    # on the event loop, or C code holding the GIL for 0.5 s, would stall one for that long).
    assert statistics.median(during) <= 3 * normal + 0.05, (normal, during)
    assert max(during) <= max(0.5, 4 * slowest_normal), (run, slowest_normal, during)
